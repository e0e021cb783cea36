import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Thrum on a labgrid farm (issue 25; docs/hil.md, "A farm of rigs"): a coordinator and two
/// exporters on loopback (``LabgridFarm``), each exporting a `thrum sim` as a place. Every
/// onset is held against its simulator's trace; every place must end released.
final class LabgridFarmTests: XCTestCase {
    /// One farm for every step (starting one costs seconds of Python): on rig2 a second job
    /// refused while the first plays; on rig1 two consecutive jobs, the second the issue's CI job
    /// (`--expect-max-error-us 500 --junit`, LG_PLACE); the labgrid pytest example with
    /// ThrumDriver on both; then the faults — the coordinator unreachable, rig1's exporter and
    /// ser2net killed mid-play and its resource then offline, a job on rig2 killed with SIGKILL —
    /// and last, no process left.
    func testAFarmOfTwoRigs() throws {
        let scratch = try CLITestSupport.scratchDirectory(for: self)
        let began = Date()
        func phase(_ name: String) { print(String(format: "farm: %@ at %.1f s", name, Date().timeIntervalSince(began))) }
        let farm = try LabgridFarm(scratch: scratch)
        phase("up")
        defer { farm.stop() }
        let rig1 = farm.rigs[0]
        let rig2 = farm.rigs[1]
        let metronome = TestPaths.example("metronome.ahap").path

        // rig2 (labgrid's own export): a long job (two passes 4 s apart) and, once it drives the
        // chip, a second job that must be refused with the first one's name.
        let long = Background {
            try ThrumProcess.run(
                ["play", metronome, "--place", "rig2", "--loop", "2", "--loop-end", "4", "--json", "--no-plot"],
                environment: farm.environment(user: "job-b"))
        }
        let deadline = Date().addingTimeInterval(30)
        while OnsetTruth.risingEdges(rig2.trace).isEmpty && Date() < deadline { usleep(50_000) }
        // The second job would run on another machine: here it runs niced, so that its Python
        // start-up (labgrid-client) takes as little as can be from the playing job.
        let refused = try LabgridFarm.run(
            "/usr/bin/nice", ["-n", "19", try TestPaths.thrumBinary.path, "play", metronome, "--place", "rig2", "--json", "--no-plot"],
            environment: farm.environment(user: "job-c"))
        let longRun = try long.wait()
        phase("rig2's jobs done")
        XCTAssertEqual(refused.status, 1, refused.standardError)
        XCTAssertTrue(refused.standardError.contains("place rig2 is held by"), refused.standardError)
        XCTAssertTrue(refused.standardError.contains("/job-b since 20"), refused.standardError)
        // The long job shared the cores with the refused one's start-up: on a loaded machine an
        // event may be late or dropped, and is then said so. Every on-time onset holds the chip.
        // (Open, not this test's subject: on a loaded machine, through labgrid's own ser2net, 2 of
        // some 16 such runs ended in a `device_reset` the simulator never did — a clock sample
        // read as a reboot — and played only the first pass.)
        XCTAssertTrue([0, 1].contains(longRun.status), longRun.standardError)
        print("farm rig2's long job: exit \(longRun.status): \(longRun.standardError.split(separator: "\n").filter { $0.hasPrefix("thrum:") })")
        XCTAssertTrue(longRun.standardError.contains("note: place rig2 is served by labgrid's own ser2net"), longRun.standardError)
        let longReport = try XCTUnwrap(try CLITestSupport.json(longRun) as? [String: Any])
        let rig2Figures = try OnsetTruth.check(
            longReport, trace: rig2.trace, events: 16, label: "rig2", tolerance: 2.5e-3, onlyOnTime: true)
        print(String(format: "farm rig2 (labgrid's ser2net): %d of 16 on time; |true error| max %.0f µs, bound mean %.0f max %.0f µs",
                     rig2Figures.onTime, rig2Figures.maxTrueError * 1e6, rig2Figures.meanBound * 1e6, rig2Figures.maxBound * 1e6))
        // Nothing of the refused job reached the chip: every drive it began lies at one of the
        // long job's events (none of the refused job's, which would fall between them).
        let start = try XCTUnwrap((longReport["start_host_monotonic_ns"] as? NSNumber)?.int64Value)
        let times = try XCTUnwrap(longReport["events"] as? [[String: Any]]).compactMap { $0["requested_s"] as? Double }
            .map { start + Int64($0 * 1e9) }
        let strays = OnsetTruth.risingEdges(rig2.trace).filter { edge in !times.contains { edge > $0 - 30_000_000 && edge < $0 + 10_000_000 } }
        XCTAssertEqual(strays.count, 0, "only the holder's events drove rig2")

        // rig1 (the tuned export): two consecutive jobs, the second the issue's CI job, naming its
        // place the labgrid way (LG_PLACE): within 500 µs bound included, with a JUnit report.
        var rig1Runs: [ThrumProcess.Result] = []
        rig1Runs.append(
            try ThrumProcess.run(["play", metronome, "--place", "rig1", "--json", "--no-plot"], environment: farm.environment(user: "job-a")))
        var lgPlace = farm.environment(user: "job-a")
        lgPlace["LG_PLACE"] = "rig1"
        rig1Runs.append(
            try ThrumProcess.run(
                [
                    "play", metronome, "--json", "--no-plot", "--expect-max-error-us", "500", "--junit",
                    scratch.appendingPathComponent("rig1.xml").path,
                ], environment: lgPlace))
        for (index, run) in rig1Runs.enumerated() {
            XCTAssertEqual(run.status, 0, "rig1 run \(index + 1): \(run.standardError)")
            XCTAssertFalse(run.standardError.contains("note: place"), run.standardError)
            let report = try XCTUnwrap(try CLITestSupport.json(run) as? [String: Any])
            XCTAssertEqual((report["earlier_faults"] as? [Any])?.count, 0, "rig1 run \(index + 1) inherits no fault")
            let figures = try OnsetTruth.check(report, trace: rig1.trace, events: 8, label: "rig1 run \(index + 1)")
            print(String(format: "farm rig1 (tuned ser2net) run %d: |true error| max %.0f µs, bound mean %.0f max %.0f µs",
                         index + 1, figures.maxTrueError * 1e6, figures.meanBound * 1e6, figures.maxBound * 1e6))
        }
        let junit = try String(contentsOf: scratch.appendingPathComponent("rig1.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("tests=\"8\" failures=\"0\""), junit)
        // Every job released its place: the pytest job below acquires both.
        phase("rig1's jobs done")
        try runLabgridPytest(farm)
        phase("pytest done")

        // Faults. The coordinator unreachable (beside the kills below; `info`, as every command
        // that takes --port takes --place).
        let unreachable = Background {
            var environment = farm.environment(user: "job-d")
            environment["LG_COORDINATOR"] = "127.0.0.1:\(try Ser2NetProcess.freePort())"
            return try ThrumProcess.run(["info", "--place", "rig1"], environment: environment)
        }
        // rig1: its exporter and its ser2net killed while rig1 plays. rig2: the job itself killed
        // (SIGKILL: no handler runs), so only its watcher can release rig2.
        let edgesBefore = (OnsetTruth.risingEdges(rig1.trace).count, OnsetTruth.risingEdges(rig2.trace).count)
        let killed = Background {
            try ThrumProcess.run(
                ["play", metronome, "--place", "rig1", "--loop", "3", "--json", "--no-plot"], environment: farm.environment(user: "job-e"))
        }
        let doomed = Process()
        doomed.executableURL = try TestPaths.thrumBinary
        doomed.arguments = ["play", metronome, "--place", "rig2", "--loop", "3", "--no-plot"]
        doomed.environment = ProcessInfo.processInfo.environment.merging(farm.environment(user: "job-g")) { _, new in new }
        doomed.standardOutput = FileHandle.nullDevice
        doomed.standardError = FileHandle.nullDevice
        try doomed.run()
        let killDeadline = Date().addingTimeInterval(30)
        var killedAt: [Int64] = [0, 0]
        while killedAt.contains(0) && Date() < killDeadline {
            if killedAt[0] == 0 && OnsetTruth.risingEdges(rig1.trace).count >= edgesBefore.0 + 2 {
                farm.killExporterAndSer2net(of: rig1)
                killedAt[0] = Self.monotonicNanoseconds()
            }
            if killedAt[1] == 0 && OnsetTruth.risingEdges(rig2.trace).count >= edgesBefore.1 + 2 {
                kill(doomed.processIdentifier, SIGKILL)
                killedAt[1] = Self.monotonicNanoseconds()
            }
            usleep(20_000)
        }
        doomed.waitUntilExit()
        XCTAssertFalse(killedAt.contains(0), "both rigs played before the kills")
        let cut = try killed.wait()
        XCTAssertEqual(cut.status, 1, cut.standardError)
        print("exporter and ser2net killed mid-play: \(cut.standardError.split(separator: "\n").filter { $0.hasPrefix("thrum:") })")
        XCTAssertTrue(cut.standardError.contains("thrum: the device disconnected"), cut.standardError)
        let offUnreachable = try unreachable.wait()
        XCTAssertEqual(offUnreachable.status, 1, offUnreachable.standardError)
        XCTAssertTrue(offUnreachable.standardError.contains("coordinator at 127.0.0.1:"), offUnreachable.standardError)
        XCTAssertTrue(offUnreachable.standardError.contains("is unreachable"), offUnreachable.standardError)
        // The place is released, and its resource offline for the next job.
        XCTAssertNil(try farm.holder(of: "rig1"), "the killed job's place is released")
        let offline = try ThrumProcess.run(["calibrate", "--place", "rig1"], environment: farm.environment(user: "job-f"))
        XCTAssertEqual(offline.status, 1, offline.standardError)
        XCTAssertTrue(offline.standardError.contains("place rig1: its serial resource is offline"), offline.standardError)
        // The killed job's watcher released rig2 (after the job died: give labgrid-client its time).
        let releaseDeadline = Date().addingTimeInterval(20)
        while try farm.holder(of: "rig2") != nil && Date() < releaseDeadline { usleep(200_000) }
        XCTAssertNil(try farm.holder(of: "rig2"), "the SIGKILLed job's place is released")
        // Both devices fell silent within their watchdog's second of the last byte they got.
        for (rig, cutAt) in zip([rig1, rig2], killedAt) {
            let silentBy = cutAt + 1_500_000_000
            while Self.monotonicNanoseconds() < silentBy + 300_000_000 { usleep(50_000) }
            let late = SimulatorTrace.rtpWrites(rig.trace).filter { $0.ns > silentBy && $0.value > 0 }
            XCTAssertEqual(late.count, 0, "\(rig.place) still drove \(late.count) times 1.5 s after its link was cut")
            XCTAssertTrue(rig.simulator.process.isRunning, "the device itself stays up")
        }

        // No process left: the farm's and the ser2net its exporters started.
        phase("faults done")
        let pids = farm.processIdentifiers
        farm.stop()
        for pid in pids { XCTAssertNotEqual(kill(pid, 0), 0, "process \(pid) still runs") }
    }

    /// docs/hil.md shows the example environment and test as they are in the repository (and as
    /// `testAFarmOfTwoRigs` runs them).
    func testTheFarmDocsShowTheLabgridExampleAsItRuns() throws {
        let doc = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/hil.md"), encoding: .utf8)
        for file in ["env.yaml", "test_haptics.py"] {
            let text = try String(
                contentsOf: TestPaths.packageRoot.appendingPathComponent("integrations/labgrid/example/\(file)"), encoding: .utf8)
            XCTAssertTrue(doc.contains("\n" + text + "```\n"), "docs/hil.md shows integrations/labgrid/example/\(file) as it is")
        }
    }

    /// The pytest example of docs/hil.md (integrations/labgrid/example) on both rigs, with the
    /// places acquired for it as labgrid's RemotePlace wants, and released after.
    func runLabgridPytest(_ farm: LabgridFarm) throws {
        let acquired = try farm.parallel(["rig1", "rig2"].map { place in { try farm.client(["-p", place, "acquire"], user: "pytest") } })
        var released = false
        defer {
            if !released { _ = try? farm.parallel(["rig1", "rig2"].map { place in { try farm.client(["-p", place, "release"], user: "pytest") } }) }
        }
        for result in acquired { XCTAssertEqual(result.status, 0, "released by the jobs before: \(result.standardError)") }
        let integration = TestPaths.packageRoot.appendingPathComponent("integrations/labgrid")
        var environment = farm.environment(user: "pytest")
        environment["PYTHONPATH"] = integration.path
        environment["PATH"] = try TestPaths.thrumBinary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let pytest = try LabgridFarm.run(
            farm.venvTool("pytest"),
            ["-q", "-p", "no:cacheprovider", "--rootdir", integration.path, "--lg-env",
             integration.appendingPathComponent("example/env.yaml").path, integration.appendingPathComponent("example").path,
             integration.appendingPathComponent("tests").path],
            environment: environment, timeout: 120)
        XCTAssertEqual(pytest.status, 0, pytest.standardOutput + pytest.standardError)
        XCTAssertTrue(pytest.standardOutput.contains("3 passed"), pytest.standardOutput)
        // A place its user already holds: `thrum --place` uses it and leaves it acquired (the
        // release below finds it still held).
        let held = try ThrumProcess.run(["info", "--place", "rig2", "--json"], environment: farm.environment(user: "pytest"))
        XCTAssertEqual(held.status, 0, held.standardError)
        let info = try XCTUnwrap(try CLITestSupport.json(held) as? [String: Any])
        XCTAssertEqual((info["device"] as? [String: Any])?["firmware_version"] as? String, "0.1.0")
        released = true
        let releases = try farm.parallel(["rig1", "rig2"].map { place in { try farm.client(["-p", place, "release"], user: "pytest") } })
        for result in releases { XCTAssertEqual(result.status, 0, "still held by pytest: \(result.standardError)") }
    }

    static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

/// A job run on another thread, waited for later.
final class Background<T>: @unchecked Sendable {
    nonisolated(unsafe) private var result: Result<T, Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ job: @escaping () throws -> T) {
        nonisolated(unsafe) let job = job
        DispatchQueue.global().async {
            self.result = Result { try job() }
            self.done.signal()
        }
    }

    /// Whether it finished within `timeout` seconds.
    func wait(timeout: TimeInterval) -> Bool {
        guard done.wait(timeout: .now() + timeout) == .success else { return false }
        done.signal()
        return true
    }

    func wait() throws -> T {
        done.wait()
        done.signal()
        return try result!.get()
    }
}
