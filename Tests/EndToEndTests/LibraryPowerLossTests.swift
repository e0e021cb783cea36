import Foundation
import ThrumCompiler
import ThrumHarness
import ThrumLibrary
import ThrumSim
import ThrumTestSupport
import ThrumWire
import XCTest

/// Power lost at every byte, and at every page write, of a flash: after the power comes back the
/// previous library is active in every case, and the new one in every case where the switch (the
/// record page write) completed. Trigger inputs on the virtual device, with no host.
final class LibraryPowerLossTests: XCTestCase {
    /// Drives the firmware with frames directly (no link, no engine): a flash is a fixed sequence
    /// of sequenced frames, and the power-loss sweep runs it thousands of times.
    struct Flasher {
        var seq: UInt8 = 0
        var started = false

        mutating func frames(_ image: [UInt8]) -> [[UInt8]] {
            var messages: [HostMessage] = [.library(.begin(size: UInt32(image.count), crc: LibraryImage.storedCRC(image)))]
            var offset = 0
            while offset < image.count {
                let end = min(offset + LibraryCommand.maxWriteBytes, image.count)
                messages.append(.library(.write(offset: UInt32(offset), data: Array(image[offset..<end]))))
                offset = end
            }
            messages.append(.library(.commit))
            return messages.map { message in
                defer {
                    seq &+= 1
                    started = true
                }
                return Frame(direction: .hostToDevice, flags: started ? [] : .resync, seq: seq, payload: HostMessage.encodePayload([message]))
                    .encode()
            }
        }
    }

    private static func device(storage: LibraryStorage) -> VirtualDevice {
        var configuration = VirtualDeviceFactory.configuration(for: .default)
        configuration.storage = storage
        return VirtualDevice(configuration: configuration)
    }

    /// Feeds the frames one by one (each after the previous was handled); stops early when power is lost.
    private static func flash(_ frames: [[UInt8]], on device: VirtualDevice) {
        for frame in frames {
            device.receive(frame)
            device.advance(to: device.now + 200)
            if device.storage?.powerLost == true { return }
        }
        device.advance(to: device.now + 1_000)
    }

    private func images() throws -> (old: [UInt8], small: [UInt8], full: [UInt8]) {
        let built = try LibraryBuilder().build(directory: PackageRoot.file("examples/library").path)
        var old = built.image
        old.name = "old"
        old.version = 7
        old.presets = Array(old.presets.prefix(2))
        var small = built.image
        small.name = "small"
        small.presets = Array(small.presets.prefix(4))
        return (try old.encode(), try small.encode(), try built.image.encode())
    }

    /// Power lost after every byte of a flash of a small library (every byte of the image and of
    /// the switch record), and after every page write of a flash of the whole example library.
    func testPowerLossAtEveryByteAndEveryPageWriteKeepsAPlayableLibrary() throws {
        let (old, small, full) = try images()
        // The device already holds `old`.
        let base = LibraryStorage()
        var flasher = Flasher()
        Self.flash(flasher.frames(old), on: Self.device(storage: base))
        let before = try XCTUnwrap(Self.device(storage: base.copy()).activeLibrary, "the old library went in")
        XCTAssertEqual(before.crc, LibraryImage.storedCRC(old))

        var interrupted = 0, completed = 0
        func sweep(_ new: [UInt8], byBytes: Bool) {
            // A full flash, to count what it writes.
            let reference = base.copy()
            var f = Flasher()
            Self.flash(f.frames(new), on: Self.device(storage: reference))
            XCTAssertEqual(Self.device(storage: reference.copy()).activeLibrary?.crc, LibraryImage.storedCRC(new))
            let total = byBytes ? reference.bytesWritten : reference.pageWrites
            XCTAssertGreaterThan(reference.pageWrites, new.count / 64)
            for k in 0...total {
                let storage = base.copy()
                if byBytes { storage.powerLossAfterBytes = k } else { storage.powerLossAfterWrites = k }
                var f = Flasher()
                Self.flash(f.frames(new), on: Self.device(storage: storage))
                let after = Self.device(storage: storage.copy()).activeLibrary  // power back: a fresh boot
                let label = "power lost after \(k) of \(total) \(byBytes ? "bytes" : "page writes")"
                if k >= total {
                    XCTAssertEqual(after?.crc, LibraryImage.storedCRC(new), label)
                    completed += 1
                } else {
                    XCTAssertEqual(after?.crc, before.crc, label)
                    XCTAssertEqual(after?.seq, before.seq, label)
                    interrupted += 1
                }
            }
        }
        sweep(small, byBytes: true)
        sweep(full, byBytes: false)
        print("power-loss sweep: \(interrupted) interrupted flashes kept the previous library, \(completed) completed ones switched")
        XCTAssertGreaterThan(interrupted, small.count + full.count / 64, "every interrupted flash left the previous library")
        XCTAssertEqual(completed, 2, "every completed switch made the new library active")
    }

    /// The trigger path: an edge plays the preset mapped to the input within 1 ms, with a TRIGGER
    /// report; bounces within the rest period are ignored; after the rest it plays again.
    func testTriggerPlaysTheMappedPresetWithinOneMillisecondDebounced() throws {
        let (_, _, new) = try images()
        let storage = LibraryStorage()
        let device = Self.device(storage: storage)
        var flasher = Flasher()
        Self.flash(flasher.frames(new), on: device)
        XCTAssertNotNil(device.activeLibrary)
        _ = device.takeOutput()
        device.advance(to: device.now + 50_000)

        func firstDrive(after t: UInt64) -> UInt64? {
            device.chip.trace.registerWrites.first { $0.time >= t && $0.register == 0x02 && $0.value != 0 }?.time
        }
        func triggers() -> [TriggerReport] {
            var decoder = FrameDecoder(direction: .deviceToHost)
            return decoder.push(device.takeOutput()).flatMap { frame in
                ((try? DeviceMessage.parsePayload(frame.payload)) ?? []).compactMap { message -> TriggerReport? in
                    if case .library(.trigger(let t)) = message { return t }
                    return nil
                }
            }
        }

        let pressed = device.now
        device.setTrigger(0, active: true)  // input 0 plays the heartbeat (id 1)
        device.advance(to: device.now + 3_000)
        let drive = try XCTUnwrap(firstDrive(after: pressed))
        print("trigger → first drive: \(drive - pressed) µs")
        XCTAssertLessThanOrEqual(drive - pressed, 1_000, "trigger → first drive ≤ 1 ms (was \(drive - pressed) µs)")
        let reports = triggers()
        XCTAssertEqual(reports.map(\.input), [0])
        XCTAssertEqual(reports.map(\.preset), [1])

        // Bounce: released and pressed again 2 ms later: ignored.
        device.setTrigger(0, active: false)
        device.advance(to: device.now + 2_000)
        device.setTrigger(0, active: true)
        device.advance(to: device.now + 2_000)
        XCTAssertEqual(triggers().count, 0, "a bounce within the rest period plays nothing")

        // Released for longer than the rest period, then pressed: plays again.
        device.setTrigger(0, active: false)
        device.advance(to: device.now + UInt64(ProtocolConstants.triggerDebounceMicroseconds) + 1_000)
        let again = device.now
        device.setTrigger(0, active: true)
        device.advance(to: device.now + 3_000)
        XCTAssertEqual(triggers().map(\.preset), [1])
        XCTAssertNotNil(firstDrive(after: again))

        // An input no preset is mapped to does nothing.
        device.advance(to: device.now + 1_500_000)
        device.setTrigger(5, active: true)
        device.advance(to: device.now + 3_000)
        XCTAssertEqual(triggers().count, 0)
    }
}
