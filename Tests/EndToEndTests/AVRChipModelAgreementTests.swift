import Foundation
import ThrumBench
import ThrumCompiler
import ThrumHarness
import ThrumSim
import XCTest

/// The simavr harness carries its own small DRV2605L model (C, hardware/avrsim/drv_model.c)
/// because simavr is GPL-3.0 and runs in a separate program, where the Swift DRV2605LModel cannot
/// answer the bus cycle by cycle. These tests hold the two models to the same observable
/// behaviour: the same host bytes, fed to the AVR binary (C model) and to the Swift virtual device
/// (host-compiled core + Swift model), give the same DRV2605L register-write trace.
final class AVRChipModelAgreementTests: XCTestCase {
    /// The AVR port's board constants (hardware/firmware/ports/avr/board.c): the replayed device
    /// must be the same board, or its set-up writes differ for a reason that is not the chip.
    let avrBoard = VirtualDevice.BoardDefaults(
        deviceID: 0, ratedVoltage: 0x3E, overdriveClamp: 0x8C, driveTime: 19, openLoopPeriod: 50)
    /// How far apart the same write may land. The AVR's main loop reaches work some 20–100 µs
    /// after its deadline, where the virtual device runs exactly at it, and a CPU-less virtual
    /// device spends 73 µs per register write where the AVR spends 91: over the 35 GO polls of a
    /// calibration this adds up to ~1.4 ms (measured). A disagreement between the chip models
    /// (another calibration window, another ROM effect length, GO not clearing) moves writes by
    /// 10 ms or more.
    let timeTolerance = 3_000.0  // µs

    func testSameHostBytesGiveTheSameRegisterTraceOnBothModels() throws {
        let elf = try AVRToolchain.prepare()
        let simulator = try AVRSimulatorProcess(elf: elf)
        var statuses: [String] = []
        for arguments in [["heartbeat.ahap"], ["metronome.ahap", "--no-calibrate"]] {
            let result = try ThrumProcess.run(
                ["play", "--port", simulator.ptyPath, "--json", TestPaths.example(arguments[0]).path] + arguments.dropFirst())
            let play = try PlayReport(json: result.standardOutput)
            statuses += play.events.map(\.status)
            // Exit 1 when an event was not on time (the AVR's late onsets), said on stderr.
            XCTAssertEqual(result.status, play.events.contains { $0.status != "on_time" } ? 1 : 0, result.standardError)
        }
        let rom = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--json", "preset:rom.47"])
        let romPlay = try PlayReport(json: rom.standardOutput)
        statuses += romPlay.events.map(\.status)
        // A loaded machine slows the simulation against the wall clock; the firmware then reports
        // the effect late (exit 1). The GO write and its self-clear are still compared below.
        XCTAssertEqual(rom.status, romPlay.events.contains { $0.status != "on_time" } ? 1 : 0, rom.standardError)
        let trace = try simulator.stop()
        let clockStart = try trace.number("device_clock_start_us")
        let hostBytes = try HostLog(contentsOf: simulator.hostLogURL)
        XCTAssertGreaterThan(hostBytes.entries.count, 100)

        // The same bytes, at the same device times, into the Swift virtual device.
        let profile = ActuatorProfile.default
        var configuration = VirtualDeviceFactory.configuration(for: profile)
        configuration.board = avrBoard
        let device = VirtualDevice(configuration: configuration)
        for entry in hostBytes.entries {
            let t = UInt64(max(0, (entry.timeMicros - clockStart).rounded(.up)))
            device.advance(to: t)
            device.receive([entry.byte], arrivedAt: t)
            _ = device.takeOutput()
        }
        device.advance(to: UInt64(max(0, (trace.writes.last?.timeMicros ?? 0) - clockStart)) + 500_000)
        let swiftWrites = device.chip.trace.registerWrites

        // Calibration results reach the trace through BEMF_GAIN in later FEEDBACK_CONTROL writes:
        // the harness's fixed result must be the one the Swift model finds for this actuator.
        if case .success(let result)? = device.chip.lastCalibration {
            XCTAssertEqual(trace.facts["calibration"], "\(result.compensation),\(result.backEMF),\(result.backEMFGain)",
                           "the harness's --calibration default must match the Swift model's result for \(profile.id)")
        } else {
            XCTFail("the Swift model's calibration did not pass: \(String(describing: device.chip.lastCalibration))")
        }

        let avr = trace.writes.map { Write(time: $0.timeMicros - clockStart, register: $0.register, value: $0.value) }
        let swift = swiftWrites.map { Write(time: Double($0.time), register: $0.register, value: $0.value) }

        // Every write but RTP_INPUT: same registers, same values, same order, times within the
        // tolerance. This is where the chip models show: probe (STATUS), calibration (GO's
        // self-clear after the AUTO_CAL_TIME window, BEMF_GAIN in later FEEDBACK_CONTROL
        // writes), ROM effects (GO's self-clear after the effect).
        let avrControl = avr.filter { $0.register != 0x02 }
        let swiftControl = swift.filter { $0.register != 0x02 }
        XCTAssertEqual(avrControl.count, swiftControl.count, "control-register write counts")
        for (k, (a, s)) in zip(avrControl, swiftControl).enumerated() {
            guard a.register == s.register, a.value == s.value else {
                let around = max(0, k - 3)..<min(k + 5, min(avrControl.count, swiftControl.count))
                XCTFail("control writes diverge at \(k): AVR " + around.map { avrControl[$0].text }.joined(separator: " ")
                        + " | Swift " + around.map { swiftControl[$0].text }.joined(separator: " "))
                break
            }
            XCTAssertLessThanOrEqual(abs(a.time - s.time), timeTolerance, "control write \(k) \(a.text): Swift at \(s.time) µs")
        }

        // RTP_INPUT: both interpolate the same segments, but each writes the ramp value of the
        // moment it reaches a segment (the AVR's main loop is some 100 µs later than the virtual
        // device, which runs exactly at its deadlines), and only on change; so compare the drive
        // bursts: each run of non-zero values, its start and end times and its peak.
        // An onset the AVR reached late (its main loop busy with a frame; the firmware reports it
        // trimmed or dropped) starts its burst later there than on the virtual device, which runs
        // exactly at its deadlines: those bursts are the firmware's timing, not the chip model,
        // and are left out on both sides.
        let lateStarts = zip(hostBytes.onsetSegments(), statuses).filter { $0.1 != "on_time" }
            .map { Double($0.0.start) }
        let isLate = { (b: (start: Double, end: Double, peak: UInt8)) in
            lateStarts.contains { b.start >= $0 - 1_000 && b.start <= $0 + 20_000 }
        }
        let avrBursts = bursts(avr).filter { !isLate($0) }, swiftBursts = bursts(swift).filter { !isLate($0) }
        if !lateStarts.isEmpty { print("AVR agreement: \(lateStarts.count) late onset(s) left out of the burst comparison") }
        XCTAssertEqual(avrBursts.count, swiftBursts.count, "drive bursts")
        for (k, (a, s)) in zip(avrBursts, swiftBursts).enumerated() {
            XCTAssertLessThanOrEqual(abs(a.start - s.start), timeTolerance, "burst \(k) start: AVR \(a.start) µs, Swift \(s.start) µs")
            XCTAssertLessThanOrEqual(abs(a.end - s.end), timeTolerance, "burst \(k) end: AVR \(a.end) µs, Swift \(s.end) µs")
            XCTAssertEqual(a.peak, s.peak, "burst \(k) peak")
        }
        XCTAssertEqual(avr.filter { $0.register == 0x0C && $0.value == 1 }.count, 3, "two calibrations and a ROM effect ran")
        XCTAssertGreaterThanOrEqual(avrBursts.count + lateStarts.count, 12, "the heartbeat's and the metronome's drive")
    }

    struct Write {
        var time: Double
        var register: UInt8
        var value: UInt8
        var text: String { "\(Int(time)):0x\(String(register, radix: 16))=\(value)" }
    }

    /// Runs of non-zero RTP_INPUT values: first non-zero write, the zero write that ends it, the peak.
    private func bursts(_ writes: [Write]) -> [(start: Double, end: Double, peak: UInt8)] {
        var result: [(start: Double, end: Double, peak: UInt8)] = []
        var open: (start: Double, peak: UInt8)?
        for w in writes where w.register == 0x02 {
            if w.value != 0 {
                open = open.map { ($0.start, max($0.peak, w.value)) } ?? (w.time, w.value)
            } else if let o = open {
                result.append((o.start, w.time, o.peak))
                open = nil
            }
        }
        return result
    }

    func testRomEffectLengthsAgree() throws {
        _ = try AVRToolchain.prepare()
        let harness = TestPaths.packageRoot.appendingPathComponent("hardware/avrsim/build/avrsim")
        let result = try AVRToolchain.run([harness.path, "--rom-durations"])
        XCTAssertEqual(result.status, 0)
        let lines = result.output.split(separator: "\n")
        XCTAssertEqual(lines.count, 123)
        for line in lines {
            let fields = line.split(separator: ",").compactMap { UInt64($0) }
            XCTAssertEqual(fields.count, 2, String(line))
            guard fields.count == 2, let waveform = ROMWaveform.effect(UInt8(fields[0])) else { continue }
            XCTAssertEqual(fields[1] * 1000, waveform.durationMicros, "ROM effect \(fields[0])")
        }
    }
}
