import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumTime
import XCTest

/// The virtual device passes idle stretches at once (``ThrumSim/SimulatedPump/skipsIdle``): the
/// same run as stepping through every poll interval, judged on the chip's own record (every
/// register write with its time, the trace windows, the drive onsets) and on the bytes each side
/// wrote; and its cost no longer follows the time waited.
final class IdleSkipTests: XCTestCase {
    private func pattern(_ times: [Double]) -> HapticPattern {
        HapticPattern(events: times.map { TestPatterns.transient(at: $0) }, parameters: [], parameterCurves: [])
    }

    private struct Run {
        var trace: SimulationTrace
        var hostBytes: Int
        var deviceBytes: Int
        var report: PlaybackReport
        var skips: Int
        var passesRun: Int
        var passesSkipped: Int
        var integrationSteps: Int
        var mismatches: Int
        var hostWakes: Int
    }

    /// Plays `pattern` on a rig as ``VirtualRig/init(profile:link:seed:crystalErrorPPM:)`` builds
    /// it (a crystal ±100 ppm, a clock starting anywhere). Without `calibrate` nothing buzzes at
    /// connect or start, so the actuator is at rest from the first microsecond; `mechanicalQ`
    /// replaces the actuator's (a lower Q rings down to rest sooner).
    private func play(
        _ pattern: HapticPattern, skipping: Bool, calibrate: Bool, link: LinkProfile = LinkCatalogue.usbFullSpeed, seed: UInt64 = 1,
        coalescing: Bool = false, pingInterval: Double? = nil, mechanicalQ: Double? = nil, clockStart: UInt32? = nil
    ) throws -> Run {
        var session = DeviceSessionConfiguration()
        if let pingInterval { session.link.pingInterval = .seconds(pingInterval) }
        var rng = SplitMix64(seed: seed ^ 0xC10C)
        var device = VirtualDeviceFactory.configuration(
            for: .default, crystalErrorPPM: seed % 2 == 0 ? 100 : -100, clockStart: clockStart ?? UInt32(truncatingIfNeeded: rng.next()))
        if let mechanicalQ { device.actuator.mechanicalQ = mechanicalQ }
        let rig = VirtualRig(profile: .default, link: link.make(seed), sessionConfiguration: session, deviceConfiguration: device)
        rig.pump.skipsIdle = skipping
        rig.device.chip.coalescesQuietWindows = coalescing
        try rig.connect(calibrate: calibrate)
        var engine = HapticEngine.Configuration()
        engine.calibrateOnStart = calibrate
        _ = try rig.engine(configuration: engine)
        let runsBefore = rig.pump.runs
        let report = try rig.play(pattern)
        return Run(
            trace: rig.device.chip.trace, hostBytes: rig.pump.hostBytesWritten, deviceBytes: rig.pump.deviceBytesWritten,
            report: report, skips: rig.pump.idleSkips, passesRun: rig.device.passesRun, passesSkipped: rig.device.passesSkipped,
            integrationSteps: rig.device.chip.integrationSteps, mismatches: rig.device.idleSkipMismatches,
            hostWakes: rig.pump.runs - runsBefore)
    }

    private func assertSameRun(_ skipped: Run, _ stepped: Run, _ label: String) {
        XCTAssertGreaterThan(skipped.skips, 0, "\(label): nothing was skipped, so nothing was proved")
        XCTAssertEqual(stepped.skips, 0, label)
        XCTAssertEqual(skipped.mismatches, 0, label)
        XCTAssertEqual(skipped.trace.registerWrites, stepped.trace.registerWrites, "\(label): the chip's writes")
        XCTAssertEqual(skipped.trace.samples, stepped.trace.samples, "\(label): the trace windows")
        XCTAssertEqual(skipped.trace.driveOnsets, stepped.trace.driveOnsets, "\(label): the drive onsets")
        XCTAssertEqual(skipped.hostBytes, stepped.hostBytes, label)
        XCTAssertEqual(skipped.deviceBytes, stepped.deviceBytes, label)
        XCTAssertEqual(skipped.report.events.map(\.deviceOnset), stepped.report.events.map(\.deviceOnset), label)
        XCTAssertEqual(skipped.report.events.map(\.onsetTime), stepped.report.events.map(\.onsetTime), label)
        XCTAssertEqual(skipped.report.events.map(\.onsetBound), stepped.report.events.map(\.onsetBound), label)
        XCTAssertEqual(skipped.report.events.map(\.status), stepped.report.events.map(\.status), label)
        XCTAssertLessThan(skipped.passesRun, stepped.passesRun, label)
    }

    /// From rest (no calibration buzz at connect or start), on the USB link with its
    /// start-of-frame times and a crystal 100 ppm slow, and on a jittered FTDI bridge with a crystal
    /// 100 ppm fast whose 32-bit clock wraps 0.4 s in, during the wait: transients after 0.6 s of
    /// wait and 30 ms apart, stepped and skipped, are the same run.
    func testSkippingIdleTimeChangesNothingTheChipOrTheWireSees() throws {
        let p = pattern([0.6, 0.63])
        let wrapping = UInt32.max - 400_000
        for (link, seed, start) in [
            (LinkCatalogue.usbFullSpeed, UInt64(1), UInt32?.none), (LinkCatalogue.profile(named: "ftdi-115200-1ms")!, 2, wrapping),
        ] {
            let skipped = try play(p, skipping: true, calibrate: false, link: link, seed: seed, clockStart: start)
            let stepped = try play(p, skipping: false, calibrate: false, link: link, seed: seed, clockStart: start)
            assertSameRun(skipped, stepped, link.name)
            XCTAssertEqual(skipped.report.events.map(\.status), [.onTime, .onTime], link.name)
        }
    }

    /// After a drive the actuator rings down until it is at rest to the last bit (subnormal
    /// numbers; an actuator of Q 1 gets there in about 1.4 s): only then is time skipped. The quiet windows, coalesced as `thrum play` keeps them,
    /// and the next transient are the same.
    func testAfterARingDownTheSameRunWithCoalescedWindows() throws {
        let p = pattern([0.05, 1.8])
        let skipped = try play(p, skipping: true, calibrate: false, coalescing: true, mechanicalQ: 1)
        let stepped = try play(p, skipping: false, calibrate: false, coalescing: true, mechanicalQ: 1)
        assertSameRun(skipped, stepped, "ring-down")
    }

    /// The cost of a wait, counted in the simulation's own work (LRA integration steps, firmware
    /// passes), not timed: a transient at 8 s costs the integration steps of one at 0.5 s, and
    /// firmware passes that follow the host's wake-ups (the pings' round trips), not the device's
    /// 1 kHz main loop.
    func testTheCostOfAWaitFollowsTheHostsWakeUpsNotTheTime() throws {
        var runs: [Run] = []
        for t in [0.5, 8.0] {
            runs.append(try play(pattern([t]), skipping: true, calibrate: false, coalescing: true))
        }
        let (short, long) = (runs[0], runs[1])
        XCTAssertEqual(long.report.events.first?.status, .onTime)
        XCTAssertEqual(long.mismatches, 0)
        // The same drive, integrated step by step (within 20 ms of steps: the run's end after the
        // ring-down falls elsewhere in it); the wait itself costs no step.
        XCTAssertLessThan(abs(long.integrationSteps - short.integrationSteps), 1_000, "\(short.integrationSteps) → \(long.integrationSteps)")
        // 7.5 s more at 1 kHz would be 7 500 passes more; the host wakes for its pings (and,
        // 2 render chunks before the drive, for the top-ups: HostIdleTests), each wake-up's round
        // trip a few passes.
        let wakes = long.hostWakes - short.hostWakes
        XCTAssertLessThan(Double(wakes), 7.5 * 110, "host wake-ups")
        XCTAssertLessThan(long.passesRun - short.passesRun, min(10 * wakes, 2_250), "\(short.passesRun) → \(long.passesRun), \(wakes) wake-ups")
        XCTAssertGreaterThan(long.passesSkipped - short.passesSkipped, 4_500)
        XCTAssertLessThan(long.trace.samples.count, short.trace.samples.count + 100)
    }
}
