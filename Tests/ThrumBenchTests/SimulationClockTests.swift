import Foundation
import ThrumBench
import ThrumSim
import ThrumTime
import XCTest

/// The AVR simulation's clock file (hardware/avrsim/sim_clock.h) read as a host clock: the
/// mapping (origin and drift), that it follows the file as the harness rewrites it, and a clear
/// error for a file that is not one. The harness's side is in EndToEndTests/AVRHarnessTests.
final class SimulationClockTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-simclock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The 32-byte layout the harness writes.
    private func page(magic: String = "THRMCLK1", version: UInt32 = 1, frequency: UInt32 = 16_000_000,
                      cycles: UInt64 = 0, state: UInt32 = 0) -> Data {
        var data = Data(magic.utf8.prefix(8))
        withUnsafeBytes(of: version.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: frequency.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: cycles.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: state.littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: [0, 0, 0, 0])
        return data
    }

    private func write(_ data: Data, to name: String = "clock") throws -> URL {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// Rewrites the file in place from `offset`, as the harness's stores do (the mapping sees it).
    private func overwrite(_ url: URL, with data: Data, at offset: UInt64 = 0) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: data)
    }

    private func setCycles(_ cycles: UInt64, in url: URL) throws {
        try overwrite(url, with: withUnsafeBytes(of: cycles.littleEndian) { Data($0) }, at: 16)
    }

    func testHostTimeIsTheOriginPlusSimulatedTimeRunningAtTheDrift() throws {
        let url = try write(page(cycles: 16_000_000))  // 1 s at 16 MHz
        let origin = HostTime(nanoseconds: 5_000_000_000)
        let clock = try SimulationClock(path: url.path, origin: origin, driftPPM: 80)
        XCTAssertEqual(clock.frequencyHz, 16_000_000)
        XCTAssertEqual(clock.cycles, 16_000_000)
        XCTAssertEqual(clock.simulatedMicros, 1_000_000)
        // 1 s of the AVR's crystal is 1 s + 80 µs of the host's clock.
        XCTAssertEqual(clock.now(), HostTime(nanoseconds: 5_000_000_000 + 1_000_080_000))
        XCTAssertFalse(clock.isStopped)

        // The harness moves the count: the clock follows, never backwards, 62.5 ns a cycle.
        try setCycles(16_000_001, in: url)
        XCTAssertEqual(clock.now().nanoseconds, 5_000_000_000 + 1_000_080_063)  // 62.505 ns, rounded
        try setCycles(32_000_000, in: url)
        XCTAssertEqual(clock.now(), HostTime(nanoseconds: 5_000_000_000 + 2_000_160_000))
    }

    func testTraceTimesMapOntoTheHostTimelineAndBack() throws {
        let url = try write(page(cycles: 0))
        let clock = try SimulationClock(path: url.path, origin: HostTime(nanoseconds: 86_400_250_000_000), driftPPM: -35)
        XCTAssertEqual(clock.now(), HostTime(nanoseconds: 86_400_250_000_000))
        // A register write at 2.5 s of simulated time, in host µs: origin + 2.5 s × (1 − 35 ppm).
        let host = clock.hostMicros(simulatedMicros: 2_500_000)
        XCTAssertEqual(host, 86_400_250_000 + 2_500_000 - 87.5, accuracy: 1e-6)
        XCTAssertEqual(clock.simulatedMicros(host: HostTime(nanoseconds: Int64((host * 1e3).rounded()))), 2_500_000, accuracy: 1e-3)
        // now() and hostMicros agree where the simulation is.
        try setCycles(40_000_000, in: url)
        XCTAssertEqual(Double(clock.now().nanoseconds) / 1e3, clock.hostMicros(simulatedMicros: 2_500_000), accuracy: 0.001)
    }

    /// After the harness exits, time runs on from its end at the fallback clock's rate: a host's
    /// timeout on this clock still expires.
    func testAfterTheHarnessStopsTimeRunsOnFromWhereItEnded() throws {
        let url = try write(page(cycles: 800))
        let wall = ManualClock(start: HostTime(nanoseconds: 123_000_000))
        let clock = try SimulationClock(path: url.path, origin: .zero, driftPPM: 0, afterStop: wall)
        XCTAssertFalse(clock.isStopped)
        wall.advance(by: .milliseconds(5))
        XCTAssertEqual(clock.now(), HostTime(nanoseconds: 50_000), "running: the simulation's time only")
        try overwrite(url, with: page(cycles: 1_600, state: 1))
        XCTAssertTrue(clock.isStopped)
        XCTAssertEqual(clock.now(), HostTime(nanoseconds: 100_000))
        wall.advance(by: .milliseconds(3))
        XCTAssertEqual(clock.now(), HostTime(nanoseconds: 3_100_000))
    }

    func testAFileThatIsNotAClockFileIsAClearError() throws {
        func reason(_ url: URL) -> String? {
            do {
                _ = try SimulationClock(path: url.path, origin: .zero, driftPPM: 0)
                return nil
            } catch {
                XCTAssertEqual(error.path, url.path)
                XCTAssertTrue(error.description.hasPrefix(url.path + ": "), error.description)
                return error.reason
            }
        }
        let missing = directory.appendingPathComponent("none")
        XCTAssertTrue(reason(missing)?.contains("cannot open the clock file") == true)
        XCTAssertTrue(reason(try write(page().prefix(20), to: "short"))?.contains("expected a 32-byte clock file") == true)
        XCTAssertTrue(reason(try write(page(magic: "THRMCLK2"), to: "magic"))?.contains("'THRMCLK1' at offset 0") == true)
        XCTAssertTrue(reason(try write(page(version: 2), to: "version"))?.contains("layout version 2 at offset 8") == true)
        XCTAssertTrue(reason(try write(page(frequency: 0), to: "frequency"))?.contains("frequency 0 Hz at offset 12") == true)
    }

    /// The virtual device's link beside the AVR's pty holds its bound on every seed, like the
    /// matrix's links (BenchTimingTests), so the comparison's virtual column is sound.
    func testTheBoundHoldsOnThePtyLikeLinkInVirtualTime() throws {
        for seed: UInt64 in [1, 2, 3] {
            var row = LinkMatrixBench.Row(link: AVRBench.ptyLink.name)
            try LinkMatrixBench.rhythm(link: AVRBench.ptyLink, seed: seed, count: 20, into: &row)
            XCTAssertEqual(row.missing, 0, "seed \(seed)")
            XCTAssertEqual(row.bounded, 20, "seed \(seed)")
            XCTAssertEqual(row.contained, row.bounded, "seed \(seed)")
        }
    }
}
