import Foundation
import ThrumWire

/// A trace or host log of the AVR simulation harness (hardware/avrsim) that does not read as one.
public struct AVRTraceError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

/// The harness's CSV: `time_us,register,value,pacing_lag_us` rows, `#` comment lines with
/// `key=value` facts (t0 on CLOCK_MONOTONIC, the device clock's start, the end-of-run summary).
public struct AVRTrace: Sendable {
    public struct Write: Equatable, Sendable {
        public var timeMicros: Double
        public var register: UInt8
        public var value: UInt8
        /// The write on the host's clock is `monotonic_ns_at_t0` + `timeMicros` + this (µs,
        /// signed). Paced, the harness's device clock is a crystal and this is its constant, minus
        /// the trace's `lead_us` (hardware/avrsim/pty_uart.h); unpaced, the wall clock's lag read
        /// at the write.
        public var pacingLagMicros: Double
    }

    /// A 10 ms window in which the simulation fell more than 100 µs behind the wall clock.
    public struct LagWindow: Equatable, Sendable {
        public var endMicros: Double
        public var maxLagMicros: Double
    }

    /// A stall longer than the harness's `--max-hold-ms` that moved its crystal
    /// (`# crystal_jump time_us=T behind_us=B lead_us=L`): from `timeMicros` on, the device
    /// clock reads `leadMicros` ahead of the wall clock (the lag column is −that).
    public struct CrystalJump: Equatable, Sendable {
        public var timeMicros: Double
        public var behindMicros: Double
        public var leadMicros: Double
    }

    /// A trigger input the harness pressed (`# trigger input=N time_us=T`, the library image).
    public struct TriggerPress: Equatable, Sendable {
        public var input: Int
        public var timeMicros: Double
    }

    public var writes: [Write] = []
    public var facts: [String: String] = [:]
    public var lagWindows: [LagWindow] = []
    public var crystalJumps: [CrystalJump] = []
    public var triggerPresses: [TriggerPress] = []

    /// Reads a trace the harness wrote (`--trace`); a row that does not parse throws an
    /// ``AVRTraceError`` naming its line.
    public init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        for (number, line) in text.split(separator: "\n").enumerated() {
            if line.hasPrefix("# lag ") {
                let values = line.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Double($0) } }
                if values.count == 2 { lagWindows.append(LagWindow(endMicros: values[0], maxLagMicros: values[1])) }
                continue
            }
            if line.hasPrefix("# crystal_jump ") {
                let values = line.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Double($0) } }
                guard values.count == 3 else {
                    throw AVRTraceError(message: "\(url.lastPathComponent):\(number + 1): expected '# crystal_jump time_us=T behind_us=B lead_us=L', got '\(line)'")
                }
                crystalJumps.append(CrystalJump(timeMicros: values[0], behindMicros: values[1], leadMicros: values[2]))
                continue
            }
            if line.hasPrefix("# trigger ") {
                let values = line.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Double($0) } }
                if values.count == 2 { triggerPresses.append(TriggerPress(input: Int(values[0]), timeMicros: values[1])) }
                continue
            }
            if line.hasPrefix("#") {
                for word in line.split(separator: " ") where word.contains("=") {
                    let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    if parts.count == 2, !parts[0].isEmpty { facts[String(parts[0])] = String(parts[1]) }
                }
                continue
            }
            if line.hasPrefix("time_us") { continue }
            let fields = line.split(separator: ",")
            guard fields.count == 4, let t = Double(fields[0]), let r = UInt8(fields[1]), let v = UInt8(fields[2]),
                  let lag = Double(fields[3])
            else {
                throw AVRTraceError(message: "\(url.lastPathComponent):\(number + 1): expected time_us,register,value,pacing_lag_us, got '\(line)'")
            }
            writes.append(Write(timeMicros: t, register: r, value: v, pacingLagMicros: lag))
        }
    }

    /// A numeric fact of the header or footer (`monotonic_ns_at_t0`, `device_clock_start_us`, ...).
    public func number(_ key: String) throws -> Double {
        guard let text = facts[key], let value = Double(text) else {
            throw AVRTraceError(message: "the trace has no numeric '\(key)' (facts: \(facts.keys.sorted()))")
        }
        return value
    }

    /// The largest pacing lag (µs) the harness saw between simulated times `from` and `to`.
    public func maxLag(from: Double, to: Double) -> Double {
        let windowed = lagWindows.filter { $0.endMicros >= from && $0.endMicros - 10_000 <= to }.map(\.maxLagMicros)
        let atWrites = writes.filter { $0.timeMicros >= from && $0.timeMicros <= to }.map(\.pacingLagMicros)
        return (windowed + atWrites).max() ?? 0
    }

    /// The first non-zero RTP_INPUT write at or after `time`: for a marked SEGMENT whose drive is
    /// due at `time`, the write the firmware reports as its ONSET (PROTOCOL.md §4.1).
    public func firstDriveWrite(notBefore time: Double) -> Write? {
        rtpWrites.first { $0.timeMicros >= time && $0.value != 0 }
    }

    /// RTP_INPUT (0x02) writes.
    public var rtpWrites: [Write] { writes.filter { $0.register == 0x02 } }
}

/// The harness's `--host-log` CSV: `time_us,byte,pacing_lag_us` of each host byte as it reached
/// the UART (the lag column is absent from logs of older harnesses).
public struct HostLog: Sendable {
    public struct Entry: Sendable {
        public var timeMicros: Double
        public var byte: UInt8
        /// The byte arrived on the host's clock at `monotonic_ns_at_t0` + `timeMicros` + this (µs,
        /// signed): paced, the crystal's constant (minus `lead_us`); unpaced, or in logs of
        /// harnesses before the crystal, the wall clock's lag read at the arrival. Nil in a log
        /// without the column.
        public var pacingLagMicros: Double?
    }

    /// A SEGMENT that marks a haptic event's onset, as the device received it.
    public struct OnsetSegment: Equatable, Sendable {
        public var receivedMicros: Double
        public var event: UInt32
        /// Device time (µs) the host asked the ramp to start at.
        public var start: UInt32
        public var duration: UInt32
        public var from: UInt8
        public var to: UInt8

        /// Device time (µs) the drive is due (PROTOCOL.md §4.1): the start, or for a ramp up from
        /// 0 the crossing `start + ceil(duration / (2 × to))` where its rounded value reaches 1.
        public var due: UInt32 { start &+ SegmentCommand.firstDriveOffset(duration: duration, from: from, to: to) }
        /// Started by a GO (a preloaded program's segment): `receivedMicros` is the GO's arrival.
        public var programmed = false
    }

    public var entries: [Entry] = []

    /// Reads a host log the harness wrote (`--host-log`); a row that does not parse throws an
    /// ``AVRTraceError`` naming its line.
    public init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        for (number, line) in text.split(separator: "\n").enumerated() where !line.hasPrefix("time_us") {
            let fields = line.split(separator: ",")
            guard fields.count == 2 || fields.count == 3, let t = Double(fields[0]), let b = UInt8(fields[1]),
                fields.count == 2 || Double(fields[2]) != nil
            else {
                throw AVRTraceError(message: "\(url.lastPathComponent):\(number + 1): expected time_us,byte,pacing_lag_us, got '\(line)'")
            }
            entries.append(Entry(timeMicros: t, byte: b, pacingLagMicros: fields.count == 3 ? Double(fields[2]) : nil))
        }
    }

    /// A PLAY_PRESET as the device received it (the simulated time of its frame's last byte).
    public struct PlayPreset: Equatable, Sendable {
        public var receivedMicros: Double
        public var id: UInt32
        /// Device time (µs) the host asked the preset's drive to begin at.
        public var start: UInt32
    }

    /// Every PLAY_PRESET in the host's frames (a resent frame's copies included: the device plays
    /// the first).
    public func playPresets() -> [PlayPreset] {
        var decoder = FrameDecoder(direction: .hostToDevice)
        var found: [PlayPreset] = []
        for entry in entries {
            for frame in decoder.push([entry.byte]) {
                guard let messages = try? HostMessage.parsePayload(frame.payload) else { continue }
                for case .library(.play(let play)) in messages {
                    found.append(PlayPreset(receivedMicros: entry.timeMicros, id: play.id, start: play.start))
                }
            }
        }
        return found
    }

    /// Every onset-marking SEGMENT in the host's frames, retransmissions removed; with
    /// `includingPrograms`, also the onset-marking segments of preloaded programs where a GO
    /// started them (start = GO's start + the segment's offset, event + GO's event base).
    public func onsetSegments(includingPrograms: Bool = false) -> [OnsetSegment] {
        var decoder = FrameDecoder(direction: .hostToDevice)
        var found: [OnsetSegment] = []
        var seen: Set<UInt64> = []
        var programs: [UInt8: [PreloadSegmentCommand]] = [:]
        var loading: UInt8?
        func add(_ segment: OnsetSegment) {
            guard seen.insert(UInt64(segment.event) << 32 | UInt64(segment.start)).inserted else { return }
            found.append(segment)
        }
        for entry in entries {
            for frame in decoder.push([entry.byte]) {
                guard let messages = try? HostMessage.parsePayload(frame.payload) else { continue }
                for message in messages {
                    switch message {
                    case .segment(let segment) where segment.event != 0:
                        add(OnsetSegment(receivedMicros: entry.timeMicros, event: segment.event, start: segment.start,
                                         duration: segment.duration, from: segment.from, to: segment.to))
                    case .preloadBegin(let slot) where includingPrograms:
                        programs[slot] = []
                        loading = slot
                    case .preloadSegment(let segment) where includingPrograms:
                        if let slot = loading { programs[slot, default: []].append(segment) }
                    case .go(let go) where includingPrograms:
                        for segment in programs[go.slot] ?? [] where segment.event != 0 {
                            add(OnsetSegment(receivedMicros: entry.timeMicros, event: segment.event &+ go.eventBase,
                                             start: go.start &+ segment.offset, duration: segment.duration,
                                             from: segment.from, to: segment.to, programmed: true))
                        }
                    default:
                        break
                    }
                }
            }
        }
        return found
    }
}
