import ThrumLibrary
import ThrumLink
import ThrumTime
import ThrumWire

/// How far a library flash has got (``DeviceSession/writeLibrary(_:expectedProfile:progress:)``).
public struct LibraryWriteProgress: Sendable, Equatable {
    /// What the flash is doing.
    public enum Phase: String, Sendable {
        /// Image bytes going to the device.
        case writing
        /// The device reads the slot back and checks its CRC-32.
        case verifying
        /// The device switched to the new library.
        case done
    }
    /// What the flash is doing.
    public var phase: Phase
    /// Image bytes the device has acknowledged.
    public var bytesWritten: Int
    /// The image's size.
    public var totalBytes: Int
    /// Time since the flash began.
    public var elapsed: HostDuration

    /// Acknowledged bytes per second so far (0 at the start).
    public var bytesPerSecond: Double { elapsed.seconds > 0 ? Double(bytesWritten) / elapsed.seconds : 0 }
    /// Seconds left at the rate so far (nil before there is a rate).
    public var secondsLeft: Double? {
        bytesPerSecond > 0 ? Double(totalBytes - bytesWritten) / bytesPerSecond : nil
    }
}

/// Why a library operation failed; every case says what to do.
public enum LibraryClientError: Error, Sendable, CustomStringConvertible {
    /// The session failed underneath.
    case engine(EngineError)
    /// The device speaks a protocol version without the library (the AVR build).
    case unsupported(protocolVersion: UInt32)
    /// The image was refused before anything was written.
    case invalidImage(LibraryImageError)
    /// The device has no library storage.
    case noStorage
    /// The device refused or failed a step (LIBRARY status).
    case deviceRefused(status: UInt8)
    /// The device did not answer a library request in time.
    case noReply(String)
    /// The write was stopped on request (`shouldStop`, a signal) before LIBRARY_COMMIT: the
    /// image in the inactive slot is incomplete and nothing was switched.
    case interrupted(bytesWritten: Int, totalBytes: Int)
    /// No stored preset has this id (`available`: the ids that exist).
    case noPreset(id: UInt32, available: [UInt16])
    /// The device holds no library.
    case noLibrary

    public var description: String {
        switch self {
        case .engine(let e): return e.description
        case .unsupported(let v):
            return "the device speaks protocol version \(v), which has no preset library (version 1 has; the AVR build leaves it out)"
        case .invalidImage(let e): return "refused before writing anything: \(e.description)"
        case .noStorage: return "the device has no library storage (the virtual device needs `thrum sim --storage FILE`)"
        case .deviceRefused(let status): return "the device refused the library: \(Self.statusText(status))"
        case .noReply(let what): return "the device did not answer \(what)"
        case .interrupted(let written, let total):
            return "the write stopped after \(written) of \(total) B: the new library is incomplete on the device and was "
                + "not switched to (the device keeps the library it had)"
        case .noPreset(let id, let available):
            let list = available.prefix(20).map(String.init).joined(separator: ", ")
            return "no stored preset with id \(id) (the library holds \(available.count): \(list)\(available.count > 20 ? ", …" : ""))"
        case .noLibrary: return "the device holds no library (flash one with `thrum flash LIB.thl --port P`)"
        }
    }

    /// Words for a LIBRARY status.
    public static func statusText(_ status: UInt8) -> String {
        switch status {
        case ProtocolConstants.libraryStatusActive: return "active"
        case ProtocolConstants.libraryStatusEmpty: return "no library stored"
        case ProtocolConstants.libraryStatusSwitched: return "written, verified and switched to"
        case ProtocolConstants.libraryStatusTooLarge: return "the image is larger than a storage slot"
        case ProtocolConstants.libraryStatusVerifyFailed: return "the CRC-32 read back differs (the previous library stays active)"
        case ProtocolConstants.libraryStatusWriteError: return "a storage write failed (the previous library stays active)"
        case ProtocolConstants.libraryStatusNoStorage: return "the device has no library storage"
        case ProtocolConstants.libraryStatusBadImage: return "the image header is not one the device reads"
        default: return "status \(status)"
        }
    }
}

extension DeviceSession {
    private func requireLibraryProtocol() throws(LibraryClientError) {
        guard let identity else { throw .noReply("IDENTIFY") }
        guard identity.protocolVersion >= 1 else { throw .unsupported(protocolVersion: identity.protocolVersion) }
    }

    private func pumpLibrary(until deadline: HostTime, _ pending: () -> Bool) throws(LibraryClientError) {
        do {
            try pumpWhile(until: deadline, pending)
        } catch {
            throw .engine(error)
        }
    }

    /// LIBRARY_QUERY: what the device holds (status, slot, sequence number, size, CRC, capacity).
    public func libraryStatus(timeout: HostDuration = .milliseconds(500)) throws(LibraryClientError) -> LibraryStatusReport {
        try requireLibraryProtocol()
        var reply: LibraryStatusReport?
        for _ in 0..<3 where reply == nil {
            link.sendImmediately(.library(.query))
            try pumpLibrary(until: now + timeout) {
                for report in link.takeLibraryReports() { if case .status(let s) = report { reply = s } }
                return reply == nil
            }
        }
        guard let reply else { throw .noReply("LIBRARY_QUERY") }
        return reply
    }

    /// Reads the active library image back (LIBRARY_READ, 32 bytes at a time, several in flight,
    /// lost replies asked again) and checks it. Fails after `timeout` without a reply.
    public func readLibrary(timeout: HostDuration = .seconds(5)) throws(LibraryClientError) -> (image: LibraryImage, bytes: [UInt8], status: LibraryStatusReport) {
        let status = try libraryStatus()
        if status.status == ProtocolConstants.libraryStatusNoStorage { throw .noStorage }
        guard status.status == ProtocolConstants.libraryStatusActive else { throw .noLibrary }
        let size = Int(status.size)
        let chunk = Int(ProtocolConstants.libraryReadMax)
        var bytes = [UInt8](repeating: 0, count: size)
        var missing = Set(stride(from: 0, to: size, by: chunk))
        // `timeout` without a piece arriving fails the read (a large image on a slow device takes
        // longer than that in all, and is still answering).
        var deadline = now + timeout
        // Pieces asked for per round: 8, halved after each round that lost any (a small device's
        // transmit ring holds only a few replies: the AVR's 128 bytes, two of 45). A round ends
        // when its pieces are in, or after 100 ms.
        var inFlight = 8
        while !missing.isEmpty {
            guard now < deadline else { throw .noReply("LIBRARY_READ (\(missing.count) pieces missing)") }
            var asked = Set(missing.sorted().prefix(inFlight))
            for offset in asked.sorted() {
                link.sendImmediately(.library(.read(offset: UInt32(offset), length: UInt8(min(chunk, size - offset)))))
            }
            let round = now + .milliseconds(100)
            try pumpLibrary(until: min(round, deadline)) {
                for report in link.takeLibraryReports() {
                    if case .data(let offset, let data) = report, missing.contains(Int(offset)), !data.isEmpty {
                        bytes.replaceSubrange(Int(offset)..<(Int(offset) + data.count), with: data)
                        missing.remove(Int(offset))
                        asked.remove(Int(offset))
                        deadline = now + timeout
                    }
                }
                return !asked.isEmpty && now < round
            }
            if !asked.isEmpty { inFlight = max(1, inFlight / 2) }
        }
        // The read's ACKs came back behind its data replies (45 bytes each, ≈ 4 ms at 115 200
        // baud): the window holds slow return legs, its bracket is wide, and a start placed on
        // its middle landed up to ~3 ms off (docs/timing.md, "A clock sampled behind bulk
        // replies"). Quiet pings narrow it again before anything is placed on the clock.
        do {
            try resynchronizeClock()
            try narrowClock()
        } catch {
            throw .engine(error)
        }
        do {
            return (try LibraryImage.decode(bytes), bytes, status)
        } catch {
            throw .invalidImage(error)
        }
    }

    /// Flashes a library image: checks it (format, CRC, profile, size) before writing anything,
    /// writes it into the slot the active library is not in (LIBRARY_BEGIN, LIBRARY_WRITEs on the
    /// sequenced lane), then LIBRARY_COMMIT: the device reads it back, checks its CRC-32 and
    /// switches with one record write. `progress` is called as bytes are acknowledged.
    /// - Parameters:
    ///   - expectedProfile: the device's actuator profile; an image built for another is refused.
    ///   - shouldStop: asked as acknowledgements come; true before LIBRARY_COMMIT went out stops
    ///     the write (``LibraryClientError/interrupted(bytesWritten:totalBytes:)``). After it, the
    ///     device's check and switch are awaited: they take well under a second.
    @discardableResult
    public func writeLibrary(
        _ image: [UInt8], expectedProfile: LibraryImage.Profile? = nil, progress: (LibraryWriteProgress) -> Void = { _ in },
        shouldStop: () -> Bool = { false }
    ) throws(LibraryClientError) -> LibraryStatusReport {
        try requireLibraryProtocol()
        let decoded: LibraryImage
        do {
            decoded = try LibraryImage.decode(image)
        } catch {
            throw .invalidImage(error)
        }
        if let expectedProfile, expectedProfile != decoded.profile {
            throw .invalidImage(.wrongProfile(image: decoded.profile.id, device: expectedProfile.id))
        }
        let status = try libraryStatus()
        if status.status == ProtocolConstants.libraryStatusNoStorage { throw .noStorage }
        guard image.count <= Int(status.capacity) else {
            throw .invalidImage(.doesNotFit(size: image.count, capacity: Int(status.capacity)))
        }

        let started = now
        let crc = LibraryImage.storedCRC(image)
        var failure: UInt8?
        func watch() {
            for report in link.takeLibraryReports() {
                if case .status(let s) = report, s.status != ProtocolConstants.libraryStatusActive,
                    s.status != ProtocolConstants.libraryStatusEmpty
                {
                    failure = s.status
                }
            }
        }
        let chunk = LibraryCommand.maxWriteBytes
        link.send(.library(.begin(size: UInt32(image.count), crc: crc)))
        var offset = 0
        while offset < image.count {
            let end = min(offset + chunk, image.count)
            link.send(.library(.write(offset: UInt32(offset), data: Array(image[offset..<end]))))
            offset = end
        }
        let messages = 1 + (image.count + chunk - 1) / chunk
        var reported = -1
        let deadline = now + .seconds(max(10, Double(image.count) / 500))
        try pumpLibrary(until: deadline) {
            watch()
            let done = max(0, messages - link.pendingCount - 1)
            let bytes = min(image.count, done * chunk)
            if bytes != reported {
                reported = bytes
                progress(LibraryWriteProgress(phase: .writing, bytesWritten: bytes, totalBytes: image.count, elapsed: now - started))
            }
            return failure == nil && link.pendingCount > 0 && !shouldStop()
        }
        if let failure { throw .deviceRefused(status: failure) }
        // Stopped while writes were still on their way: LIBRARY_COMMIT never goes out.
        if link.pendingCount > 0 && shouldStop() { throw .interrupted(bytesWritten: max(0, reported), totalBytes: image.count) }
        guard link.pendingCount == 0 else { throw .noReply("the library writes") }
        progress(LibraryWriteProgress(phase: .verifying, bytesWritten: image.count, totalBytes: image.count, elapsed: now - started))
        var result: LibraryStatusReport?
        link.send(.library(.commit))
        try pumpLibrary(until: now + .seconds(5)) {
            for report in link.takeLibraryReports() { if case .status(let s) = report { result = s } }
            return result == nil
        }
        guard let result else { throw .noReply("LIBRARY_COMMIT") }
        guard result.status == ProtocolConstants.libraryStatusSwitched else { throw .deviceRefused(status: result.status) }
        progress(LibraryWriteProgress(phase: .done, bytesWritten: image.count, totalBytes: image.count, elapsed: now - started))
        return result
    }

    /// PLAY_PRESET on the any lane: stored preset `id`, its drive beginning at device time
    /// `deviceStart`, its onsets reported as `eventBase + n`.
    public func sendPlayPreset(id: UInt32, deviceStart: DeviceTime, eventBase: UInt32) {
        link.sendImmediately(.library(.play(PlayPresetCommand(id: id, start: deviceStart.wire.rawValue, eventBase: eventBase))))
    }
}
