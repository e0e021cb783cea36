import ThrumEngine
import ThrumHarness
import ThrumSim
import XCTest

/// The device's messages are not retransmitted (PROTOCOL.md §2): a CALIBRATION_RESULT lost on
/// the link left the engine waiting 4 s and failing its start ("the driver's auto-calibration did
/// not report a result within 4.0 s" — seen on the 2 % loss + 2 % flips link of
/// RealLinkBoundTests). The session now asks once more.
final class CalibrationLossTests: XCTestCase {
    /// Loses every device frame that may carry the first calibration's result (any chunk holding
    /// its message type, 0x45) while the chip has run one auto-calibration, no other.
    final class LosesTheFirstCalibrationResult: LinkModel {
        var inner = FixedLatencyLink(latency: 1_000)
        var calibrationsRun: () -> Int = { 0 }
        var lost = 0
        func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
            if direction == .deviceToHost, calibrationsRun() == 1, bytes.contains(0x45) {
                lost += 1
                return nil
            }
            return inner.deliver(&bytes, writtenAt: time, direction: direction)
        }
    }

    func testALostCalibrationResultIsAskedForAgain() throws {
        let link = LosesTheFirstCalibrationResult()
        let rig = VirtualRig(profile: .default, link: link)
        // The chip's own log: MODE (0x01) set to auto-calibration (7) starts one.
        let calibrations = { rig.device.chip.trace.registerWrites.filter { $0.register == 0x01 && $0.value & 0x07 == 0x07 }.count }
        link.calibrationsRun = calibrations
        let engine = rig.makeEngine(configuration: .init())
        XCTAssertNoThrow(try engine.start())
        XCTAssertGreaterThan(link.lost, 0, "the first result was lost")
        XCTAssertEqual(calibrations(), 2, "the driver calibrated once more")
        XCTAssertEqual(engine.calibrationResult?.passed, true)
    }
}
