import Foundation
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
    /// How far apart the same write may land: the AVR main loop pass and the I²C byte timing of the
    /// two devices differ by tens of µs; anything the chip models disagree on (a GO that clears
    /// at another time, a calibration of another length) moves writes by milliseconds.
    let timeTolerance = 1_000.0  // µs

    func testSameHostBytesGiveTheSameRegisterTraceOnBothModels() throws {
        let elf = try AVRToolchain.prepare()
        let simulator = try AVRSimulatorProcess(elf: elf)
        for arguments in [["heartbeat.ahap"], ["metronome.ahap", "--no-calibrate"]] {
            let result = try ThrumProcess.run(
                ["play", "--port", simulator.ptyPath, "--json", TestPaths.example(arguments[0]).path] + arguments.dropFirst())
            XCTAssertEqual(result.status, 0, result.standardError)
        }
        let rom = try ThrumProcess.run(["play", "--port", simulator.ptyPath, "--json", "preset:rom.47"])
        XCTAssertEqual(rom.status, 0, rom.standardError)
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

        let avr = trace.writes.map { (time: $0.timeMicros - clockStart, register: $0.register, value: $0.value) }
        XCTAssertEqual(avr.count, swiftWrites.count, "write counts differ")
        for (k, (a, s)) in zip(avr, swiftWrites).enumerated() {
            XCTAssertEqual(a.register, s.register, "write \(k): register")
            XCTAssertEqual(a.value, s.value, "write \(k) (register 0x\(String(s.register, radix: 16))): value")
            XCTAssertLessThanOrEqual(abs(a.time - Double(s.time)), timeTolerance, "write \(k): AVR \(a.time) µs, Swift \(s.time) µs")
            if a.register != s.register || a.value != s.value { break }
        }
        XCTAssertTrue(avr.contains { $0.register == 0x0C && $0.value == 1 }, "the scenario starts calibration and a ROM effect")
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
