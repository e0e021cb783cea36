import ThrumEngine
import ThrumHarness
import ThrumPattern
import ThrumSim
import ThrumTime
import XCTest

/// A dynamic parameter change on an FTDI bridge at 115 200 baud with a 16 ms latency timer: the
/// slow return leg makes round trips long, but the change reaches the chip one change lead
/// after the call, with no silent gap between the old level and the new (chip truth).
final class ParameterChangeOnSerialBridgeTests: XCTestCase {
    func testIntensityChangesReplaceTheDriveWithoutAGapAndWithinTheTarget() throws {
        let link = try XCTUnwrap(LinkCatalogue.profile(named: "ftdi-115200-16ms"))
        let rig = VirtualRig(link: link, seed: 3)
        let engine = try rig.engine()
        let pattern = HapticPattern(
            events: [
                HapticEvent(
                    eventType: .hapticContinuous, parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 1)],
                    relativeTime: 0, duration: 6)
            ], parameters: [], parameterCurves: [])
        let player = try engine.makeAdvancedPlayer(with: pattern)
        try player.start(atTime: engine.currentTime + engine.leadTime.seconds + 0.02)
        engine.run(for: 1.5)
        var level = 1.0
        var latencies: [Double] = []
        for _ in 0..<10 {
            engine.run(for: 0.2)
            level = level == 1 ? 0.5 : 1
            let call = rig.pump.trueTime
            try player.sendParameters(
                [HapticDynamicParameter(parameterID: .hapticIntensityControl, value: Float(level), relativeTime: 0)],
                atTime: HapticTimeImmediate)
            engine.run(for: 0.1)
            let writes = rig.device.chip.trace.registerWrites.filter {
                $0.register == DRV2605LRegister.rtpInput.rawValue && $0.time > call && $0.time < call + 80_000
            }
            let target = Int((255 * level).rounded())
            let first = try XCTUnwrap(writes.firstIndex { abs(Int($0.value) - target) <= 2 }, "the new level was written")
            XCTAssertFalse(writes[..<first].contains { $0.value == 0 }, "no silence between the old level and the new")
            latencies.append(Double(writes[first].time - call) / 1_000)
        }
        XCTAssertLessThanOrEqual(latencies.max()!, 30, "ms from the call to the new level at the chip: \(latencies)")
    }
}
