import Foundation
import XCTest

import ThrumBench

/// The harness's host log (`avrsim --host-log`): each host byte with the simulated time it
/// arrived and, since the lag column was added, the wall clock's lag then.
final class HostLogTests: XCTestCase {
    private func parse(_ text: String) throws -> HostLog {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-hostlog-\(UUID().uuidString).csv")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try HostLog(contentsOf: url)
    }

    func testTheLagColumnIsReadSigned() throws {
        let log = try parse("time_us,byte,pacing_lag_us\n1000.0625,126,-251.5\n1093.8125,3,412.0\n")
        XCTAssertEqual(log.entries.map(\.timeMicros), [1000.0625, 1093.8125])
        XCTAssertEqual(log.entries.map(\.byte), [126, 3])
        XCTAssertEqual(log.entries.map(\.pacingLagMicros), [-251.5, 412.0])
    }

    func testALogWithoutTheLagColumnStillReads() throws {
        let log = try parse("time_us,byte\n1000.0625,126\n")
        XCTAssertEqual(log.entries.count, 1)
        XCTAssertNil(log.entries[0].pacingLagMicros)
    }

    func testABadRowNamesItsLineAndTheColumns() throws {
        XCTAssertThrowsError(try parse("time_us,byte,pacing_lag_us\n1000.0,126,-2.0\n1093.8,3,late\n")) { error in
            let message = String(describing: error)
            XCTAssertTrue(message.contains(":3: expected time_us,byte,pacing_lag_us, got '1093.8,3,late'"), message)
        }
    }
}
