import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTime
import ThrumWire
import XCTest

/// A pump whose device can be swapped for a freshly booted one (same port, new firmware state).
final class SwitchingPump: LinkPump {
    var current: SimulatedPump
    var clock: any HostClock { current.clock }
    init(_ first: SimulatedPump) { current = first }
    func run(_ session: LinkSession, until deadline: HostTime) throws(TransportError) {
        try current.run(session, until: deadline)
    }
}

final class DeviceRebootTests: XCTestCase {
    func makeDevice(clockStart: UInt32) -> VirtualDevice {
        let profile = ActuatorProfile.default
        let registers = DriverRegisters.derive(from: profile)
        return VirtualDevice(
            configuration: VirtualDevice.Configuration(
                board: VirtualDevice.BoardDefaults(
                    ratedVoltage: registers.ratedVoltage, overdriveClamp: registers.overdriveClamp,
                    driveTime: registers.driveTime, openLoopPeriod: registers.openLoopPeriod),
                clockStart: clockStart))
    }

    func testARebootedDeviceCallsTheResetHandlerAndInvalidatesPlayers() throws {
        let clock = ManualClock()
        let first = makeDevice(clockStart: 5_000_000)
        let pump = SwitchingPump(SimulatedPump(device: first, clock: clock, link: FixedLatencyLink(latency: 1_000)))
        let session = DeviceSession(pump: pump, endpointName: "switching")
        let engine = HapticEngine(session: session)
        try engine.start()
        var resets = 0
        engine.resetHandler = { resets += 1 }
        var stopped: [HapticEngine.StoppedReason] = []
        engine.stoppedHandler = { stopped.append($0) }
        let old = try engine.makeAdvancedPlayer(with: HapticPattern(events: [continuous(0, duration: 3)], parameters: [], parameterCurves: []))
        var oldError: Error?
        old.completionHandler = { oldError = $0 }
        try old.start(atTime: 0)
        engine.run(for: 0.3)

        let calibrationsBefore = session.calibrationCount
        XCTAssertEqual(calibrationsBefore, 1, "start() calibrated the first device")

        // The device reboots: same port, its clock starts again from 0.
        let bootTime = UInt64(clock.now().nanoseconds / 1_000)
        let second = makeDevice(clockStart: UInt32(truncatingIfNeeded: -Int64(bootTime)))
        pump.current = SimulatedPump(device: second, clock: clock, link: FixedLatencyLink(latency: 1_000))
        engine.run(for: 1)

        XCTAssertEqual(resets, 1)
        XCTAssertEqual(stopped, [])
        // The rebooted driver lost the calibration engine.start() ran: the engine wrote it back.
        XCTAssertEqual(session.calibrationCount, calibrationsBefore, "no calibration ran on the rebooted device")
        XCTAssertEqual(session.programCapabilities?.calibration, .restored)
        XCTAssertEqual(second.chip.peek(0x19), first.chip.peek(0x19), "A_CAL_BEMF as the first calibration found it")
        XCTAssertEqual(second.chip.peek(0x1A), first.chip.peek(0x1A))
        XCTAssertTrue(engine.isRunning)
        XCTAssertEqual((oldError as? HapticError)?.code, .invalidPatternPlayer)
        XCTAssertThrowsError(try old.start(atTime: 0)) { XCTAssertEqual(($0 as? HapticError)?.code, .invalidPatternPlayer) }

        // New players play on the rebooted device, on time.
        let fresh = try engine.makePlayer(with: metronome(beats: 2, interval: 0.1))
        let t0 = engine.currentTime + 0.1
        try fresh.start(atTime: t0)
        XCTAssertTrue(engine.runUntilPlayersFinished(timeout: 1))
        let onsets = engine.onsets(for: fresh)
        XCTAssertEqual(onsets.count, 2)
        for (k, o) in onsets.enumerated() {
            let truth = try XCTUnwrap(VirtualRig.trueOnset(of: o, on: second), "the rebooted chip never started it")
            XCTAssertEqual(truth, t0 + 0.1 * Double(k), accuracy: 200e-6)
        }
    }
}
