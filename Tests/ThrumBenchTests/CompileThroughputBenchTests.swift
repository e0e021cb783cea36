import Foundation
import ThrumBench
import ThrumTime
import XCTest

/// Compile throughput is the median run with its spread, never the best run.
final class CompileThroughputBenchTests: XCTestCase {
    func testSummaryIsTheMedianRunWithQuartilesAndExtremes() {
        // 1 000 events in 1…9 ms: 1.0, 0.5, 0.333…, 0.25, 0.2, 0.1666…, 0.1428…, 0.125, 0.111… M/s.
        let r = CompileThroughputBench.summarize(
            events: 1_000, durations: [0.005, 0.001, 0.009, 0.003, 0.007, 0.002, 0.008, 0.004, 0.006])
        XCTAssertEqual(r.runs, 9)
        XCTAssertEqual(r.median, 200_000, accuracy: 1e-6, "the 5 ms run, not the 1 ms one")
        XCTAssertEqual(r.p25, 1_000 / 0.007, accuracy: 1e-6)
        XCTAssertEqual(r.p75, 1_000 / 0.003, accuracy: 1e-6)
        XCTAssertEqual(r.min, 1_000 / 0.009, accuracy: 1e-6)
        XCTAssertEqual(r.max, 1_000_000, accuracy: 1e-6)
    }

    func testOneDisturbedRunDoesNotMoveTheMedian() {
        let steady = Array(repeating: 0.002, count: 10)
        let a = CompileThroughputBench.summarize(events: 500, durations: steady + [0.002])
        let b = CompileThroughputBench.summarize(events: 500, durations: steady + [0.050])
        let c = CompileThroughputBench.summarize(events: 500, durations: steady + [0.0001])
        XCTAssertEqual(a.median, b.median)
        XCTAssertEqual(a.median, c.median)
        XCTAssertEqual(b.min, 10_000)
        XCTAssertEqual(c.max, 5_000_000, accuracy: 1e-3)
    }

    func testEmptyAndUntimeableRuns() {
        XCTAssertEqual(CompileThroughputBench.summarize(events: 10, durations: []).runs, 0)
        XCTAssertEqual(CompileThroughputBench.summarize(events: 10, durations: [0]).median, .infinity)
    }

    /// A real (small) run: at least the minimum number of runs, ordered statistics.
    func testRunTimesEveryCompileAndOrdersItsStatistics() throws {
        let results = CompileThroughputBench.run(sizes: [200, 400], minimumRuns: 7, minimumSeconds: 0)
        XCTAssertEqual(results.map(\.events), [200, 400])
        for r in results {
            XCTAssertEqual(r.runs, 7)
            XCTAssertLessThanOrEqual(r.min, r.p25)
            XCTAssertLessThanOrEqual(r.p25, r.median)
            XCTAssertLessThanOrEqual(r.median, r.p75)
            XCTAssertLessThanOrEqual(r.p75, r.max)
            XCTAssertGreaterThan(r.min, 0)
            XCTAssertLessThanOrEqual(r.cpuP25, r.cpuMedian)
            XCTAssertLessThanOrEqual(r.cpuMedian, r.cpuP75)
            XCTAssertGreaterThan(r.cpuP25, 0)
        }
    }

    /// The CPU-time clock advances while the thread works and not while it sleeps (the wall
    /// clock does both): what lets the CPU figure ignore other processes' turns on the core.
    func testTheThreadCPUClockCountsWorkNotSleep() {
        let cpu = ThreadCPUClock(), wall = MonotonicClock()
        let c0 = cpu.now(), w0 = wall.now()
        usleep(60_000)
        XCTAssertGreaterThanOrEqual((wall.now() - w0).seconds, 0.06)
        XCTAssertLessThan((cpu.now() - c0).seconds, 0.03, "60 ms asleep")
        let c1 = cpu.now()
        var x = 0.0
        while (cpu.now() - c1).seconds < 0.002 { x += 1 }  // ends only if the clock advances with work
        XCTAssertGreaterThan(x, 0)
    }

    /// `thrum bench --only compile` runs the compile figures and nothing else (no link matrix);
    /// an unknown group is refused with the known ones named.
    func testOnlyCompileRunsTheCompileFiguresAlone() throws {
        let report = try Bench.run(BenchOptions(quick: true, only: "compile"))
        XCTAssertTrue(report.links.isEmpty)
        XCTAssertEqual(
            report.figures.map(\.key),
            [
                "compile_events_per_second_1000", "compile_events_per_second_10000", "compile_cpu_events_per_second_1000",
                "compile_cpu_events_per_second_10000", "compile_throughput_ratio_largest_to_smallest",
            ])
        XCTAssertTrue(report.figures.allSatisfy { ($0.value ?? 0) > 0 })
        XCTAssertThrowsError(try Bench.run(BenchOptions(quick: true, only: "links"))) { error in
            XCTAssertEqual("\(error)", "no figure group named 'links' (known: compile, envelope)")
        }
    }
}
