import Foundation
import ThrumBench
import ThrumLibrary
import XCTest

/// The preset library on the AVR binary (`make avr-library`) in simavr, with the harness's
/// 24LC256 at 0x50 on the driver's I²C bus (`--storage FILE`) and its trigger inputs (PB0, PB1).
///
/// The first test runs free (no host, no pacing: simulated time only, so it is exact on any
/// machine); the second goes through the `thrum` binary over the pseudo-terminal, as a user does,
/// and asserts correctness only (wall-clock: it tolerates a loaded machine).
final class AVRLibraryTests: XCTestCase {
    /// A `thrum play id:N` that drove every event: exit 0, or 1 only because the simulator, paced
    /// to a wall clock a loaded machine holds up, reached an entry late (on time in simulated time
    /// is what the free-running test checks).
    static func played(_ result: ThrumProcess.Result) -> Bool {
        if result.status == 0 { return true }
        let complaints = result.standardError.split(separator: "\n").filter { $0.hasPrefix("thrum: ") }
        return result.status == 1 && !complaints.isEmpty && complaints.allSatisfy { $0.contains(": late_trimmed:") }
    }

    /// The example library, built by the `thrum` binary.
    private func exampleImage(in dir: URL) throws -> (path: String, bytes: [UInt8]) {
        let path = dir.appendingPathComponent("examples.thl").path
        let build = try ThrumProcess.run(["library", "build", TestPaths.packageRoot.appendingPathComponent("examples/library").path, "-o", path])
        XCTAssertEqual(build.status, 0, build.standardError)
        return (path, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// A 24LC256's contents holding `image` in slot 0 under record A (docs/library.md, "Storage on
    /// the device"), the rest blank: what a flash leaves, written here without one.
    private func storageHolding(_ image: [UInt8]) -> Data {
        var memory = [UInt8](repeating: 0xFF, count: 32_768)
        func put32(_ value: UInt32, _ at: Int, _ bytes: inout [UInt8]) {
            for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
        }
        var record: [UInt8] = [UInt8(ascii: "T"), UInt8(ascii: "L"), 0, 0] + [UInt8](repeating: 0, count: 16)
        put32(1, 4, &record)
        put32(UInt32(image.count), 8, &record)
        put32(LibraryImage.storedCRC(image), 12, &record)
        put32(CRC32.checksum(record[0..<16]), 16, &record)
        memory.replaceSubrange(0..<20, with: record)
        memory.replaceSubrange(128..<(128 + image.count), with: image)
        return Data(memory)
    }

    /// Trigger inputs 0 (the heartbeat) and 1 (impact.heavy) pressed at set simulated times: each
    /// plays its preset from the EEPROM, within the figure printed (trigger → first drive), and
    /// nothing plays before (the inputs rest released from reset).
    func testTriggerInputsPlayTheirPresetsFromTheEEPROMWithNoHost() throws {
        let elf = try AVRToolchain.prepare(firmware: "avr-library")
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let image = try exampleImage(in: dir)
        let storage = dir.appendingPathComponent("eeprom.bin")
        try storageHolding(image.bytes).write(to: storage)
        let trace = dir.appendingPathComponent("trace.csv")
        let harness = TestPaths.packageRoot.appendingPathComponent("hardware/avrsim/build/avrsim")
        let result = try AVRToolchain.run(
            [harness.path, "--elf", elf.path, "--no-pace", "--stop-after-ms", "2200", "--trace", trace.path,
             "--storage", storage.path, "--trigger-at", "400:0", "--trigger-at", "1600:1"])
        XCTAssertEqual(result.status, 0, result.output)
        let t = try AVRTrace(contentsOf: trace)
        XCTAssertEqual(t.triggerPresses.map(\.input), [0, 1])
        XCTAssertEqual(t.facts["trigger_presses"], "2")
        XCTAssertGreaterThan(Int(t.facts["bytes_read"] ?? "0") ?? 0, 0, "the firmware read its library at boot")
        XCTAssertEqual(t.facts["page_writes"], "0", "nothing writes the EEPROM without a host")
        let drive = t.rtpWrites.filter { $0.value != 0 }
        XCTAssertTrue(drive.allSatisfy { $0.timeMicros > t.triggerPresses[0].timeMicros }, "no drive before the first press")
        var latencies: [Double] = []
        for (k, press) in t.triggerPresses.enumerated() {
            let next = k + 1 < t.triggerPresses.count ? t.triggerPresses[k + 1].timeMicros : .infinity
            let burst = drive.filter { $0.timeMicros >= press.timeMicros && $0.timeMicros < next }
            guard let first = burst.first else {
                XCTFail("trigger input \(press.input) played nothing")
                continue
            }
            latencies.append(first.timeMicros - press.timeMicros)
            XCTAssertGreaterThan(burst.count, 3, "input \(press.input): a whole preset, not one write")
        }
        // The heartbeat is four transients over about 0.96 s (a press replaces what plays: input 1
        // comes after it); impact.heavy one.
        let heartbeat = drive.filter { $0.timeMicros < t.triggerPresses[1].timeMicros }
        XCTAssertGreaterThan((heartbeat.last?.timeMicros ?? 0) - (heartbeat.first?.timeMicros ?? 0), 900_000)
        // Each input's preset is decoded ahead (one entry) when the library becomes active, so
        // the press costs the pin-change interrupt, a main-loop pass and one register write.
        XCTAssertTrue(latencies.allSatisfy { $0 < 2_000 }, "trigger → first drive \(latencies) µs of simulated time")
        print("AVR library image: trigger → first drive \(latencies.map { String(format: "%.0f", $0) }.joined(separator: ", ")) µs (simulated time)")
    }

    /// A library near half the slot (about 12 kB): the commit's read-back of the whole image runs
    /// in one main-loop pass (≈ 0.4 s of EEPROM reads at 400 kHz, longer than the 250 ms hardware
    /// watchdog, which the storage reads kick), then the device switches to it and lists it.
    func testALargeLibraryIsReadBackAndSwitchedWithinTheWatchdog() throws {
        let elf = try AVRToolchain.prepare(firmware: "avr-library")
        let dir = try CLITestSupport.scratchDirectory(for: self)
        var presets: [String] = []
        for p in 1...40 {
            // 60 transients, timing different per preset (no two programs alike), 4 shapes shared
            let events = (0..<60).map { k in
                let time = Double(k) * 0.05 + Double(p) * 0.001
                let intensity = [0.4, 0.6, 0.8, 1.0][k % 4]
                return "{\"Event\":{\"Time\":\(time),\"EventType\":\"HapticTransient\",\"EventParameters\":["
                    + "{\"ParameterID\":\"HapticIntensity\",\"ParameterValue\":\(intensity)},"
                    + "{\"ParameterID\":\"HapticSharpness\",\"ParameterValue\":0.5}]}}"
            }
            try Data("{\"Version\":1,\"Pattern\":[\(events.joined(separator: ","))]}".utf8)
                .write(to: dir.appendingPathComponent("p\(p).ahap"))
            presets.append("{\"id\":\(p),\"ahap\":\"p\(p).ahap\"}")
        }
        try Data("{\"name\":\"large\",\"presets\":[\(presets.joined(separator: ","))]}".utf8)
            .write(to: dir.appendingPathComponent("library.json"))
        let image = dir.appendingPathComponent("large.thl").path
        let build = try ThrumProcess.run(["library", "build", dir.path, "-o", image])
        XCTAssertEqual(build.status, 0, build.standardError)
        let size = (try FileManager.default.attributesOfItem(atPath: image)[.size] as? Int) ?? 0
        XCTAssertGreaterThan(size, 8_000, "large enough that its read-back outlasts the watchdog")

        let simulator = try AVRSimulatorProcess(elf: elf, extraArguments: ["--storage", dir.appendingPathComponent("eeprom.bin").path])
        let flash = try ThrumProcess.run(["flash", image, "--port", simulator.ptyPath], timeout: 180)
        XCTAssertEqual(flash.status, 0, flash.standardError)
        let list = try ThrumProcess.run(["library", "list", "--port", simulator.ptyPath], timeout: 180)
        XCTAssertEqual(list.status, 0, list.standardError)
        XCTAssertTrue(list.standardOutput.contains("library: 'large' version 1, \(size) B"), list.standardOutput)
        _ = try simulator.stop()
    }

    /// The README path on the AVR binary: flash the example library over the pty, list it, play by
    /// id, restart the simulation with the same EEPROM file, list and play again, press input 0.
    func testFlashListPlayRestartAndTriggerOnTheAVRBinary() throws {
        let elf = try AVRToolchain.prepare(firmware: "avr-library")
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let image = try exampleImage(in: dir)
        let storage = dir.appendingPathComponent("eeprom.bin").path

        var simulator = try AVRSimulatorProcess(elf: elf, extraArguments: ["--storage", storage])
        let flash = try ThrumProcess.run(["flash", image.path, "--port", simulator.ptyPath, "--json"], timeout: 120)
        XCTAssertEqual(flash.status, 0, flash.standardError)
        let lines = flash.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(lines.last?["event"] as? String, "done")
        XCTAssertEqual(lines.last?["bytes"] as? Int, image.bytes.count)
        let play = try ThrumProcess.run(["play", "id:12", "--port", simulator.ptyPath], timeout: 120)
        XCTAssertTrue(Self.played(play), play.standardError)
        XCTAssertTrue(play.standardOutput.contains("stored preset 12 'impact.heavy'"), play.standardOutput)
        let first = try simulator.stop()
        XCTAssertGreaterThan(first.rtpWrites.filter { $0.value != 0 }.count, 0, "the stored preset drove the chip")
        XCTAssertGreaterThanOrEqual(Int(first.facts["page_writes"] ?? "0") ?? 0, (image.bytes.count + 63) / 64 + 1,
                                    "every page of the image and the record")
        if let rate = lines.last?["rate_bytes_per_s"] as? Int {
            print("AVR library image: flashed \(image.bytes.count) B at \(rate) B/s (wall clock; max pacing lag \(first.facts["max_pacing_lag_us"] ?? "?") µs)")
        }

        // A restart keeps the library: the same EEPROM file.
        simulator = try AVRSimulatorProcess(elf: elf, extraArguments: ["--storage", storage])
        let listed = try ThrumProcess.run(["library", "list", "--port", simulator.ptyPath, "--json"], timeout: 120)
        XCTAssertEqual(listed.status, 0, listed.standardError)
        let list = try CLITestSupport.json(listed) as? [[String: Any]]
        XCTAssertEqual(list?.count, 49)
        XCTAssertEqual(list?.first?["id"] as? Int, 1)
        XCTAssertEqual(list?.first?["name"] as? String, "heartbeat")
        // The first and the last entry of the index (PLAY_PRESET's binary search, both ends).
        for id in ["id:1", "id:55"] {
            let again = try ThrumProcess.run(["play", id, "--port", simulator.ptyPath, "--json"], timeout: 120)
            XCTAssertTrue(Self.played(again), "\(id): \(again.standardError)")
        }
        simulator.input.fileHandleForWriting.write(Data("trigger 1\n".utf8))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = (try? String(contentsOf: simulator.traceURL, encoding: .utf8)) ?? ""
            if text.contains("# trigger input=1") { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 0.5)
        let second = try simulator.stop()
        let drive = second.rtpWrites.filter { $0.value != 0 }
        XCTAssertGreaterThan(drive.count, 0, "the preset played by id after the restart drove the chip")
        guard let press = second.triggerPresses.first else { return XCTFail("the harness did not press input 1") }
        XCTAssertTrue(drive.contains { $0.timeMicros > press.timeMicros }, "trigger input 1 drove the chip")

        // Play by id, simulated time: PLAY_PRESET's arrival → the preset's first drive.
        let log = try HostLog(contentsOf: simulator.hostLogURL)
        let clockStart = try second.number("device_clock_start_us")
        for play in log.playPresets() {
            guard let write = drive.first(where: { $0.timeMicros >= play.receivedMicros }) else { continue }
            let asked = Double(play.start) + clockStart
            print(String(format: "AVR library image: PLAY_PRESET id %u arrival → first drive %.2f ms; requested start − arrival %.2f ms, first drive − requested start %.2f ms (simulated time)",
                         play.id, (write.timeMicros - play.receivedMicros) / 1000, (asked - play.receivedMicros) / 1000,
                         (write.timeMicros - asked) / 1000))
            // Never early by the device's own clock (docs/library.md, "Whole starts"): the binary's
            // first drive comes at or after the device time PLAY_PRESET named (the chip's trace).
            XCTAssertGreaterThanOrEqual(write.timeMicros, asked, "PLAY_PRESET id \(play.id) started before the device time it named")
        }
    }
}
