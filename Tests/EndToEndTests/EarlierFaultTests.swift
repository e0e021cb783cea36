import Foundation
import XCTest

/// A fault from before this run is told as such (issue 27, item 4): through ser2net, which reads
/// what the device writes while no host is connected and hands it to the next client, the
/// watchdog's FAULT 5 after a normal play reaches the next play first. That play lists it under
/// `earlier_faults`, not `faults`, and exits 0 when every event played on time.
final class EarlierFaultTests: XCTestCase {
    func testAWatchdogFaultAfterTheLastPlayIsAnEarlierFaultOfTheNextOne() throws {
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let server = try Ser2NetProcess(accepter: "tcp(nodelay)", device: simulator.ptyPath)
        defer { server.stop() }
        let url = "tcp://127.0.0.1:\(server.port)"
        let metronome = TestPaths.example("metronome.ahap").path
        let first = try ThrumProcess.run(["play", "--port", url, "--json", "--no-plot", metronome])
        XCTAssertEqual(first.status, 0, first.standardError)
        // The host is gone: the device's watchdog stops it and says so (FAULT 5) to no one; ser2net
        // keeps the bytes. (The watchdog fires a second after the host falls silent.)
        Thread.sleep(forTimeInterval: 3)
        let second = try ThrumProcess.run(["play", "--port", url, "--json", "--no-plot", metronome])
        let object = try XCTUnwrap(try CLITestSupport.json(second) as? [String: Any])
        let earlier = try XCTUnwrap(object["earlier_faults"] as? [[String: Any]])
        let faults = try XCTUnwrap(object["faults"] as? [[String: Any]])
        XCTAssertEqual(earlier.map { $0["code"] as? Int }, [5], "the watchdog stop from before: \(earlier)")
        XCTAssertEqual(faults.count, 0, "not this run's: \(faults)")
        let events = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 8)
        if events.allSatisfy({ $0["status"] as? String == "on_time" }) {
            XCTAssertEqual(second.status, 0, second.standardError)
        }
        XCTAssertTrue(second.standardError.contains("before this run"), second.standardError)
    }
}
