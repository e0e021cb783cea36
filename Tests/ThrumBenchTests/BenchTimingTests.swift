import Foundation
import ThrumEngine
import ThrumBench
import ThrumHarness
import ThrumLink
import ThrumSim
import ThrumTime
import XCTest

/// Timing end to end in virtual time (no sleeps): the whole stack on a jittered, drifting,
/// lossy USB link, measured against the simulation's truth.
final class BenchTimingTests: XCTestCase {
    func testEveryOnsetHoldsUnderLinkJitter() throws {
        let result = try OnsetBench.scheduled(seed: 1, count: 12, link: BenchSetup.jitteredUSB(seed: 1))
        XCTAssertEqual(result.missing, 0)
        XCTAssertEqual(result.errors.count, 12)
        for error in result.errors { XCTAssertLessThan(abs(error), 60, "µs between host intent and the driver's start") }
    }

    func testNaiveHostIsMillisecondsLate() throws {
        let result = try OnsetBench.naive(seed: 1, count: 12, link: BenchSetup.jitteredUSB(seed: 1))
        XCTAssertEqual(result.errors.count, 12)
        // Its wake-up latency alone is 0.5–8 ms; it is never early.
        for error in result.errors { XCTAssertGreaterThan(error, 400) }
        XCTAssertGreaterThan(Percentiles(result.errors).max!, 3_000)
    }

    func testRetransmissionRecoversEveryLostFrame() throws {
        let result = try LossBench.run(seed: 401, count: 20)
        XCTAssertGreaterThan(result.chunksLost, 0)
        XCTAssertGreaterThan(result.chunksCorrupted, 0)
        XCTAssertGreaterThan(result.retransmissions, 0)
        XCTAssertEqual(result.lost, 0, "every event started on the device")
        XCTAssertEqual(result.errors.count, 20)
        for error in result.errors { XCTAssertLessThan(abs(error), 60) }
    }

    func testClockSyncConvergesOnTheJitteredDriftingLink() throws {
        for seed: UInt64 in [1, 2] {
            let result = try ClockBench.run(seed: seed, link: BenchSetup.jitteredUSB(seed: seed &+ 100), measure: 0.3)
            XCTAssertLessThan(Percentiles(result.errors).max!, 25, "µs off the true device clock, 2 s in, ±100 ppm")
            XCTAssertLessThan(result.driftErrors.max()!, 20)
            XCTAssertGreaterThan(Percentiles(result.symmetricErrors).p50!, 300, "without the link's floor the estimate sits mid-bracket")
        }
    }

    func testPreparedStartIsAGoWithinAFrameOrTwo() throws {
        let result = try StartLatencyBench.run(seed: 9, trials: 12)
        XCTAssertEqual(result.prepared.count, 12)
        XCTAssertEqual(result.preparedGoStarts, 12, "every prepared start is a GO")
        XCTAssertEqual(result.preparedLate, 0)
        for latency in result.prepared { XCTAssertLessThan(latency, 3) }
        XCTAssertFalse(result.lapsed.isEmpty, "a start after the lapse still plays")
        XCTAssertGreaterThan(Percentiles(result.unprepared).p50!, 10, "the adaptive lead is at least its 10 ms floor")
    }
}

/// The engine's lead-time policy and latency compensator.
final class BenchEngineUnitTests: XCTestCase {
    func testLeadFollowsRoundTripAndJitterWithinItsBounds() {
        let policy = LeadTimePolicy(floor: .milliseconds(10), ceiling: .milliseconds(120), factor: 1.5, margin: .milliseconds(3))
        var statistics = LinkStatistics()
        XCTAssertEqual(policy.lead(for: statistics), .milliseconds(120), "no round trip measured yet")
        statistics.roundTripSamples = 10
        statistics.smoothedRoundTrip = .milliseconds(6)
        statistics.roundTripVariation = .milliseconds(2)
        XCTAssertEqual(policy.lead(for: statistics), .milliseconds(24))  // 1.5 · (6 + 8) + 3
        statistics.smoothedRoundTrip = .microseconds(500)
        statistics.roundTripVariation = .microseconds(100)
        XCTAssertEqual(policy.lead(for: statistics), .milliseconds(10))
        statistics.smoothedRoundTrip = .milliseconds(90)
        XCTAssertEqual(policy.lead(for: statistics), .milliseconds(120))
    }

    func testCompensatorLearnsTheMedianLatency() {
        var compensator = LatencyCompensator(capacity: 5)
        XCTAssertEqual(compensator.correction, 0)
        for latency in [73, 98, 123, 80, 5_000, -10] as [Int64] { compensator.observe(onset: 1_000 + latency, scheduled: 1_000) }
        XCTAssertEqual(compensator.sampleCount, 4, "negative and absurd latencies are ignored")
        XCTAssertEqual(compensator.correction, 89)  // median of 73, 80, 98, 123
        for _ in 0..<5 { compensator.observe(onset: 200, scheduled: 100) }
        XCTAssertEqual(compensator.correction, 100, "only the newest samples count")
    }

    func testReportJSONHasEveryFigure() throws {
        var report = BenchReport()
        report.figures.append(BenchFigure(key: "a_us", label: "a", value: 1.5, unit: "µs", baseline: 100, baselineLabel: "b", target: "≤ 2", met: true))
        report.figures.append(BenchFigure(key: "b_ms", label: "b", value: nil, unit: "ms", note: "skipped \"x\""))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        XCTAssertEqual(object["a_us"] as? Double, 1.5)
        XCTAssertEqual(object["a_us_baseline"] as? Double, 100)
        XCTAssertEqual(object["a_us_met"] as? Bool, true)
        XCTAssertTrue(object["b_ms"] is NSNull)
        XCTAssertEqual((object["notes"] as? [String])?.count, 1)
        XCTAssertTrue(report.table.contains("yes"))
    }
}
