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

    func testACrystalJumpIsReadAndABadOneNamesItsLine() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-trace-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("""
            # f_cpu_hz=16000000 pacing=wall-clock lead_us=200
            time_us,register,value,pacing_lag_us
            1000.0000,2,80,-200.0
            # crystal_jump time_us=2000.0 behind_us=150000.5 lead_us=-149800.5
            3000.0000,2,0,149800.5

            """.utf8).write(to: url)
        let trace = try AVRTrace(contentsOf: url)
        XCTAssertEqual(trace.crystalJumps.map(\.timeMicros), [2000])
        XCTAssertEqual(trace.crystalJumps.map(\.behindMicros), [150000.5])
        XCTAssertEqual(trace.crystalJumps.map(\.leadMicros), [-149800.5])
        XCTAssertEqual(trace.writes.map(\.pacingLagMicros), [-200, 149800.5])
        XCTAssertEqual(try trace.number("lead_us"), 200)
        try Data("# crystal_jump time_us=2000.0\n".utf8).write(to: url)
        XCTAssertThrowsError(try AVRTrace(contentsOf: url)) { error in
            XCTAssertTrue(String(describing: error).contains(":1: expected '# crystal_jump time_us=T behind_us=B lead_us=L'"), String(describing: error))
        }
    }
}
