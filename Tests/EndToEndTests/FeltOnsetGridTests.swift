import Foundation
import ThrumCompiler
import ThrumBench
import ThrumHarness
import XCTest

/// The felt-onset grid (docs/semantics.md §7) on the whole virtual stack: every built-in
/// profile × sharpness {0, ¼, ½, ¾, 1} × intensity {0.3, 0.6, 1} × transient and continuous.
/// With the pre-shift, the felt onset (acceleration envelope at 50 % of the event's peak, LRA
/// model, true time) lands within ±2 ms of the requested time.
final class FeltOnsetGridTests: XCTestCase {
    /// The driver is calibrated first (CALIBRATE), as a board is once before use. A profile whose
    /// calibration fails in the DRV2605L model (vybronics-vg0840001d: back-EMF at rated drive
    /// 0.50 V, above the 0.325 V that A_CAL_BEMF can hold at the lowest BEMF_GAIN) runs its loop
    /// on the reset full scale, which limit-cycles; it is checked to still fail that way, so the
    /// test asserts its grid as soon as the model or the profile calibrates.
    func testEveryGridPointLandsWithinTwoMilliseconds() throws {
        for profile in ActuatorProfile.builtIn {
            let points = try FeltOnsetGrid.run(profile: profile)
            XCTAssertEqual(points.count, 2 * FeltOnsetGrid.sharpnesses.count * FeltOnsetGrid.intensities.count, profile.id)
            if points.first?.calibrated == false {
                XCTAssertEqual(profile.id, "vybronics-vg0840001d", "calibration failed")
                continue
            }
            for p in points {
                XCTAssertEqual(p.error, 0, accuracy: 2, "\(p.profile) \(p.continuous ? "continuous" : "transient") s=\(p.sharpness) i=\(p.intensity)")
            }
        }
    }

    /// Prints the measured delays (felt onset − drive onset) and the errors, for the docs.
    func testPrintGrid() throws {
        guard ProcessInfo.processInfo.environment["THRUM_PRINT_GRID"] != nil else { return }
        let cal = ProcessInfo.processInfo.environment["THRUM_PRINT_GRID"] == "cal"
        for compensate in ProcessInfo.processInfo.environment["THRUM_ON_ONLY"] != nil ? [true] : [false, true] {
            for profile in ActuatorProfile.builtIn {
                var response = ActuatorResponse(profile: profile)  // THRUM_LEAD overrides updateLead
                if let lead = ProcessInfo.processInfo.environment["THRUM_LEAD"].flatMap(Double.init) { response.updateLead = lead }
                for p in try FeltOnsetGrid.run(profile: profile, options: CompileOptions(feltOnsetCompensation: compensate, response: response), calibrate: cal) {
                    print(String(format: "GRID %d %@ %@ s=%.2f i=%.1f shift=%6.2f delay=%6.2f error=%6.2f",
                                 compensate ? 1 : 0, p.profile, p.continuous ? "C" : "T", p.sharpness, p.intensity, p.preShift, p.delay, p.error))
                }
            }
        }
    }
}
