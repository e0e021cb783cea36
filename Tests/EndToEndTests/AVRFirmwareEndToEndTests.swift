import Foundation
import ThrumBench
import XCTest

/// The AVR firmware *binary* (avr-gcc build of hardware/firmware) in simavr, served by
/// `thrum sim --mcu atmega328p` on a pseudo-terminal, played by `thrum play --port`; each onset is
/// held against the simulated truth: the harness's trace of DRV2605L register writes, each
/// stamped when its I²C data byte completed (CPU cycles / 16 MHz), and the host's own bytes as
/// the UART received them.
///
/// Three measures, tolerances from the spread measured on this harness (docs/avr-simulation.md):
/// - firmware: the first non-zero RTP_INPUT write of each onset SEGMENT (the one the firmware
///   reports as the ONSET) against the device time its drive was due (its start, or the crossing
///   of a ramp up from 0, PROTOCOL.md §4.1), judged by the status the firmware reported. On time:
///   60…250 µs. The AVR build prepares a drive up to 2 ms ahead and holds its write to the instant
///   (THRUM_FW_DRIVE_LEAD_US), so the write completes one I²C register write after it was due
///   (73 µs of bus at 400 kHz and its set-up; measured 90–121 µs). Late (trimmed): the write must
///   be more than 50 µs late too; the firmware must never claim on time for a late write.
///   Independent of the wall clock.
/// - inter-onset error between on-time onsets against their commanded times: bound 50 µs (the
///   issue's target is p99 ≤ 20 µs, which AVRSoakTests asserts over many onsets; measured ≤ 14 µs
///   here: the hold's clock reads and the interrupts that land in the write).
/// - host: where the host wanted each onset on CLOCK_MONOTONIC against where the paced simulation
///   put it (the trace's lag column: the harness's crystal): bound 1.5 ms, while the simulation
///   keeps up with the wall clock; when the harness reports more than `pacingLagBudget` of lag
///   around a playback (a loaded machine: its bytes go out late, a slow link the 1.5 ms does not
///   allow for), that playback's alignment is printed as not measurable instead of asserted. The
///   reported onset is held to the truth within its own bound (or marked suspect) whatever the
///   lag, unless a stall moved the crystal during the play (`# crystal_jump`). The firmware
///   measures are asserted always.
final class AVRFirmwareEndToEndTests: XCTestCase {
    let firmwareLatencyBound = 60.0...250.0  // µs
    let interOnsetBound = 50.0  // µs
    let hostAlignmentBound = 1500.0  // µs
    let pacingLagBudget = 500.0  // µs
    /// Lag (µs) beyond which the simulation was starved by the machine: an event the host then
    /// reports not kept (never reported, a hole in the drive) is not the firmware's.
    let starvationLag = 50_000.0
    /// The firmware reports a segment reached more than this after its start as late (trimmed).
    let lateThreshold = 50.0  // µs

    func testMetronomeAndHeartbeatOnsetsMatchTheSimulatedTruth() throws {
        let elf = try AVRToolchain.prepare()
        let simulator = try AVRSimulatorProcess(elf: elf)
        var plays: [(name: String, play: PlayReport)] = []
        var results: [ThrumProcess.Result] = []
        for name in ["metronome.ahap", "heartbeat.ahap"] {
            let result = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--json", TestPaths.example(name).path])
            let play = try PlayReport(json: result.standardOutput)
            plays.append((name, play))
            results.append(result)
        }
        let trace = try simulator.stop()
        for ((name, play), result) in zip(plays, results) {
            // Exit 1 when an event was not on time (dropped, or the AVR's late onsets): judged below,
            // against the truth. Or when the host reported a fault of the run (a hole in the drive)
            // while the machine starved the simulation.
            let notOnTime = play.events.contains { $0.status != "on_time" }
            let startSim = Double(play.startHostNanos) / 1e3 - (try trace.number("monotonic_ns_at_t0")) / 1e3
            if !notOnTime && result.status == 1 && starved(trace, from: startSim - 2_000_000, to: startSim + 4_000_000) {
                print("AVR e2e \(name): exit 1 with every event on time, the simulation starved (machine load): \(result.standardError)")
            } else {
                XCTAssertEqual(result.status, notOnTime ? 1 : 0, "\(name): \(result.standardError)")
            }
        }
        let hostLog = try HostLog(contentsOf: simulator.hostLogURL)
        let t0 = try trace.number("monotonic_ns_at_t0")
        let clockStart = try trace.number("device_clock_start_us")
        XCTAssertEqual(plays.map(\.play.events.count), [8, 4])
        XCTAssertEqual(trace.facts["device_bytes_dropped"], "0")

        // Stack: the lowest SP the harness saw (every instruction) against the RAM the image
        // leaves free; the budget asks for 256 B to spare.
        let size = try AVRToolchain.run(["avr-size", "--format=berkeley", elf.path])
        let fields = size.output.split(separator: "\n").dropFirst().first?.split(whereSeparator: \.isWhitespace).compactMap { Int($0) } ?? []
        let highWater = try trace.number("stack_high_water_bytes")
        if fields.count >= 3 {
            let spare = 2048 - Double(fields[1] + fields[2]) - highWater
            print("AVR e2e stack: high-water \(Int(highWater)) B, static RAM \(fields[1] + fields[2]) B, \(Int(spare)) B never touched")
            // A collision would corrupt static data: never. The budget's 256 B margin is for the
            // static bound (make avr); the measured figure is reported beside it.
            XCTAssertGreaterThan(spare, 0, "the stack (high-water \(highWater) B) ran into static RAM")
            if spare < 256 { print("AVR e2e stack: \(Int(spare)) B spare is below the 256 B budget margin") }
        } else {
            XCTFail("avr-size printed \(size.output)")
        }

        // Firmware: every onset SEGMENT the host sent, against the write it caused, judged by
        // what the firmware reported. On time: the write completes within the latency bound.
        // Late (trimmed): the firmware reached it more than 50 µs after its start, so the write
        // must be that late too (a main-loop pass busy with a frame can hold a due segment back
        // by up to a millisecond on the AVR; the firmware must say so, never claim on time).
        // Each segment names its event (1, 2, ... within a play, so a play begins where the
        // number does not grow); an event the host never sent has none.
        let segments = hostLog.onsetSegments()
        var matched: [(segment: HostLog.OnsetSegment, name: String, event: PlayReport.Event)] = []
        var playIndex = 0, previous: UInt32 = 0
        for segment in segments {
            if segment.event <= previous { playIndex += 1 }
            previous = segment.event
            guard playIndex < plays.count, Int(segment.event) - 1 < plays[playIndex].play.events.count else {
                XCTFail("an onset segment for event \(segment.event) of play \(playIndex + 1), which has no such event")
                continue
            }
            matched.append((segment, plays[playIndex].name, plays[playIndex].play.events[Int(segment.event) - 1]))
        }
        for (name, play) in plays {
            for (k, event) in play.events.enumerated() where ["on_time", "late_trimmed", "dropped"].contains(event.status) {
                XCTAssertTrue(matched.contains { $0.name == name && $0.segment.event == UInt32(k + 1) },
                              "\(name) event \(k + 1) (\(event.status)) has no onset segment in the host's frames")
            }
        }
        var onsets: [(play: String, requested: Double, commanded: Double, truth: Double, status: String)] = []
        for (segment, name, event) in matched {
            let commanded = clockStart + Double(segment.due)
            // The host's own account of an event it could not keep (never reported, a hole in the
            // drive) is the machine's when the simulation starved around it: simavr fell more than
            // `starvationLag` behind the wall clock, or a stall moved the harness's crystal.
            let starved = starved(trace, from: commanded - 2_000_000, to: commanded + 500_000)
            guard let truth = trace.firstDriveWrite(notBefore: commanded) else {
                if starved && !["on_time", "late_trimmed"].contains(event.status) {
                    print("AVR e2e \(name) event \(segment.event) (\(event.status)): no drive write, the simulation starved (machine load)")
                } else {
                    XCTFail("\(name) event \(segment.event): no RTP_INPUT write after \(commanded) µs")
                }
                continue
            }
            let latency = truth.timeMicros - commanded
            let context = "\(name) event \(segment.event) (\(event.status)): write \(latency) µs after its drive was due; "
                + "the frame arrived \(commanded - segment.receivedMicros) µs ahead; RTP writes around it: "
                + trace.rtpWrites.filter { abs($0.timeMicros - commanded) < 3_000 }
                    .map { String(format: "%.1f:%d", $0.timeMicros - commanded, $0.value) }.joined(separator: " ")
            onsets.append((name, event.requested, commanded, truth.timeMicros, event.status))
            switch event.status {
            case "on_time":
                XCTAssertTrue(firmwareLatencyBound.contains(latency), context)
            case "late_trimmed":
                XCTAssertGreaterThan(latency, lateThreshold, context)
                print("AVR e2e late: " + context)
            case "dropped":
                print("AVR e2e dropped: " + context)
            default:
                if starved {
                    print("AVR e2e, the simulation starved (machine load): " + context)
                } else {
                    XCTFail("unexpected status: " + context)
                }
            }
        }
        for name in plays.map(\.name) {
            let timely = onsets.filter { $0.play == name && $0.status == "on_time" }
            guard let first = timely.first else { continue }
            for (k, onset) in timely.enumerated() {
                let error = (onset.truth - first.truth) - (onset.commanded - first.commanded)
                // Where simavr fell far behind a loaded machine's wall clock, the host's frames
                // reached the AVR bunched and kept its main loop busy at the onset: not asserted.
                if trace.maxLag(from: min(first.truth, onset.truth) - 100_000, to: onset.truth + 10_000) <= AVRSoakTests.bunchingLagBudget {
                    XCTAssertLessThanOrEqual(abs(error), interOnsetBound, "\(name) on-time onset \(k): inter-onset error \(error) µs")
                }
                print(String(format: "AVR e2e %@ on-time onset %d: inter-onset error %+.1f µs (write %.1f µs after due)",
                             name, k, error, onset.truth - onset.commanded))
            }
        }
        XCTAssertTrue(onsets.contains { $0.status == "on_time" }, "no onset on time at all")
        let latencies = onsets.filter { $0.status == "on_time" }.map { $0.truth - $0.commanded }
        if let low = latencies.min(), let high = latencies.max() {
            print(String(format: "AVR e2e firmware: %d of %d onsets on time; their write completes %.1f…%.1f µs after the commanded start",
                         latencies.count, onsets.count, low, high))
        }

        // Host: the requested time on CLOCK_MONOTONIC against the simulated truth, for the
        // on-time onsets (their segments matched by event above).
        for (name, play) in plays {
            let startSim = Double(play.startHostNanos) / 1e3 - t0 / 1e3
            let lag = trace.maxLag(from: startSim - 2_000_000, to: startSim + 2_000_000)
            let jumped = trace.crystalJumps.contains { $0.timeMicros >= startSim - 2_000_000 && $0.timeMicros <= startSim + 4_000_000 }
            for (k, event) in play.events.enumerated() where event.status == "on_time" {
                guard let planned = event.plannedDriveOnset, let reported = event.driveOnset,
                      let onset = onsets.first(where: { $0.play == name && $0.requested == event.requested })
                else {
                    XCTFail("\(name) event \(k) has no reported onset or no onset segment")
                    continue
                }
                let truthLag = trace.writes.first { $0.timeMicros == onset.truth }?.pacingLagMicros ?? 0
                let truthHost = t0 / 1e3 + onset.truth + truthLag
                let intendedHost = Double(play.startHostNanos) / 1e3 + planned * 1e6
                let reportedHost = Double(play.startHostNanos) / 1e3 + reported * 1e6
                print(String(format: "AVR e2e %@ event %d: host alignment %+.0f µs, reported vs truth %+.0f µs (lag %.0f µs)",
                             name, k, truthHost - intendedHost, reportedHost - truthHost, lag))
                // The harness holds the device's clock to a crystal: a lagging simulation is a slow
                // link, and the report must hold the truth within its bound (or say it may not)
                // whatever the lag, unless a stall moved the crystal during the play (a clock jump).
                if !jumped, let bound = event.onsetBound, !event.boundSuspect {
                    XCTAssertLessThanOrEqual(abs(truthHost - reportedHost), bound * 1e6 + 5, "\(name) event \(k): reported vs truth, beyond its bound")
                }
                guard lag <= pacingLagBudget else { continue }
                XCTAssertLessThanOrEqual(abs(truthHost - intendedHost), hostAlignmentBound, "\(name) event \(k): host alignment")
                XCTAssertLessThanOrEqual(abs(truthHost - reportedHost), hostAlignmentBound, "\(name) event \(k): reported vs truth")
            }
            if lag > pacingLagBudget {
                print("AVR e2e \(name): the simulation lagged the wall clock by up to \(lag) µs around this playback "
                      + "(machine load): host-side alignment not measurable, not asserted; the bound and firmware timing asserted")
            }
        }
    }

    /// The machine starved the simulation between simulated times `from` and `to` (µs): simavr
    /// fell more than `starvationLag` behind the wall clock, or a stall moved the harness's crystal.
    private func starved(_ trace: AVRTrace, from: Double, to: Double) -> Bool {
        trace.maxLag(from: from, to: to) > starvationLag || trace.crystalJumps.contains { $0.timeMicros >= from && $0.timeMicros <= to }
    }

    func testWithoutTheElfTheCommandSaysHowToBuildIt() throws {
        _ = try AVRToolchain.prepare()
        let result = try ThrumProcess.run(["sim", "--mcu", "atmega328p", "--elf", "/nonexistent/thrum.elf"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.standardError.contains("--elf /nonexistent/thrum.elf"), result.standardError)
        XCTAssertTrue(result.standardError.contains("make -C hardware/firmware avr"), result.standardError)
    }

    func testUnknownMCUIsAUsageError() throws {
        let result = try ThrumProcess.run(["sim", "--mcu", "attiny85"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.standardError.contains("atmega328p"), result.standardError)
        // (--actuator and --profile name the actuator wired to the AVR board: SimulatedBoardSetupTests)
        let drift = try ThrumProcess.run(["sim", "--mcu", "atmega328p", "--drift-ppm", "5"])
        XCTAssertEqual(drift.status, 2)
        XCTAssertTrue(drift.standardError.contains("--drift-ppm is for the virtual device"), drift.standardError)
        let unknown = try ThrumProcess.run(["sim", "--mcu", "atmega328p", "--actuator", "nope"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.standardError.contains("no actuator profile named 'nope'"), unknown.standardError)
        // the harness injects corruption only; the rest of the --fault grammar is the virtual device's
        let loss = try ThrumProcess.run(["sim", "--mcu", "atmega328p", "--fault", "corrupt=5%,loss=1%"])
        XCTAssertEqual(loss.status, 2)
        XCTAssertTrue(loss.standardError.contains("corrupt=P (and seed=N) only"), loss.standardError)
        let bad = try ThrumProcess.run(["sim", "--mcu", "atmega328p", "--fault", "corrupt=lots"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.standardError.contains("corrupt=lots"), bad.standardError)
    }
}

/// What `thrum play --json` reports, in the fields these tests use.
struct PlayReport {
    struct Event {
        var requested: Double
        var onset: Double?
        var driveOnset: Double?
        var status: String
        /// Half-width of the bracket the host guarantees around its reported onset (s).
        var onsetBound: Double? = nil
        /// The firmware's ONSET time (its clock, µs): read right after the onset write returned.
        var deviceOnset: Double? = nil
        /// The host marked the bound as one that may not hold (`bound_suspect`).
        var boundSuspect = false
        /// Where the host planned the drive to start (s after the start): the reported drive
        /// onset minus the reported error.
        var plannedDriveOnset: Double? {
            guard let onset, let driveOnset else { return nil }
            return driveOnset - (onset - requested)
        }
    }

    var events: [Event]
    var startHostNanos: Int64
    var startDeviceMicros: UInt64

    init(json: String) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let events = object["events"] as? [[String: Any]],
              let host = (object["start_host_monotonic_ns"] as? NSNumber)?.int64Value,
              let device = (object["start_device_time_us"] as? NSNumber)?.uint64Value
        else {
            throw AVRSimulationError(message: "thrum play --json: unexpected output: \(json.prefix(400))")
        }
        self.events = events.map {
            Event(
                requested: ($0["requested_s"] as? NSNumber)?.doubleValue ?? .nan,
                onset: ($0["onset_s"] as? NSNumber)?.doubleValue, driveOnset: ($0["drive_onset_s"] as? NSNumber)?.doubleValue,
                status: $0["status"] as? String ?? "", onsetBound: ($0["onset_bound_s"] as? NSNumber)?.doubleValue,
                deviceOnset: ($0["device_onset_us"] as? NSNumber)?.doubleValue,
                boundSuspect: ($0["bound_suspect"] as? Bool) ?? false)
        }
        startHostNanos = host
        startDeviceMicros = device
    }
}
