import Foundation
import ThrumCompiler
import ThrumBench
import ThrumHarness
import XCTest

/// The felt-onset grid (docs/semantics.md §7) on the whole virtual stack: every built-in
/// profile × sharpness {0, ¼, ½, ¾, 1} × intensity {0.3, 0.6, 1} × transient and continuous.
/// With the pre-shift, the felt onset (acceleration envelope at 50 % of the event's peak, LRA
/// model, true time) lands within ±2 ms of the requested time, and docs/semantics.md's table of
/// the grid is what these runs give (DocTablesTests checks the docs' other tables).
final class FeltOnsetGridTests: XCTestCase {
    /// The driver is calibrated first (CALIBRATE), as a board is once before use. A profile whose
    /// calibration fails in the DRV2605L model (vybronics-vg0840001d: back-EMF at rated drive
    /// 0.50 V, above the 0.325 V that A_CAL_BEMF can hold at the lowest BEMF_GAIN) runs its loop
    /// on the reset full scale, which limit-cycles; it is checked to still fail that way, so the
    /// test asserts its grid as soon as the model or the profile calibrates.
    func testEveryGridPointLandsWithinTwoMillisecondsAndTheDocsTableIsTheGrids() throws {
        let grids = try ActuatorProfile.builtIn.map(FeltOnsetGridTable.ProfileGrid.init)
        for grid in grids {
            let profile = grid.profile, points = grid.points
            XCTAssertEqual(points.count, 2 * FeltOnsetGrid.sharpnesses.count * FeltOnsetGrid.intensities.count, profile.id)
            if points.first?.calibrated == false {
                XCTAssertEqual(profile.id, "vybronics-vg0840001d", "calibration failed")
                continue
            }
            for p in points {
                XCTAssertEqual(p.error, 0, accuracy: 2, "\(p.profile) \(p.continuous ? "continuous" : "transient") s=\(p.sharpness) i=\(p.intensity)")
            }
        }
        let table = DocTable.feltGrid
        let docs = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(table.docsFile), encoding: .utf8)
        let block = try XCTUnwrap(table.block(in: docs), "\(table.docsFile) has no \(table.startMarker) block")
        XCTAssertEqual(block, FeltOnsetGridTable.lines(grids), "\(table.docsFile): run tools/docs-tables.sh")
    }
}
