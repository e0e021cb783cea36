import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumLibrary
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumWire
import XCTest

/// The preset library on the virtual device (the real firmware core): flash → list → play by id,
/// with the chip's drive equal to streaming the same pattern; bad images refused with nothing
/// written; an unknown id refused.
final class LibraryEndToEndTests: XCTestCase {
    static let exampleDirectory = PackageRoot.file("examples/library").path

    private func exampleLibrary() throws -> LibraryBuilder.Output { try LibraryBuilder().build(directory: Self.exampleDirectory) }

    /// A rig for `profile` with `storage` (none if nil), on `link` (the rig's default if nil), its
    /// I²C bus clocked at `i2cClockHz` (the virtual device's 400 kHz if nil).
    private func rig(
        profile: ActuatorProfile, storage: LibraryStorage? = LibraryStorage(), link: (any LinkModel)? = nil, i2cClockHz: Double? = nil
    ) -> VirtualRig {
        var configuration = VirtualDeviceFactory.configuration(for: profile)
        configuration.storage = storage
        if let i2cClockHz { configuration.i2cClockHz = i2cClockHz }
        return link.map { VirtualRig(profile: profile, link: $0, deviceConfiguration: configuration) }
            ?? VirtualRig(profile: profile, deviceConfiguration: configuration)
    }

    /// The example library written to a connected rig's storage (on `link`, the rig's default if
    /// nil; its bus at `i2cClockHz`), the rig's engine started, and the image as the engine reads
    /// it back from the device.
    private func engineWithExampleLibrary(
        link: (any LinkModel)? = nil, i2cClockHz: Double? = nil
    ) throws -> (rig: VirtualRig, engine: HapticEngine, image: LibraryImage) {
        let built = try exampleLibrary()
        let rig = rig(profile: built.profile, link: link, i2cClockHz: i2cClockHz)
        try rig.connect(calibrate: false)
        try rig.session.writeLibrary(try built.image.encode())
        let engine = try rig.engine()
        return (rig, engine, try engine.storedLibrary().image)
    }

    /// The drive the chip got: RTP_INPUT changes (a write of the value already there changes
    /// nothing: the stream may cut a long hold into pieces, each written at its start) from the
    /// first non-zero one on, times relative to it.
    private func drive(_ writes: ArraySlice<RegisterWrite>) -> [(time: Int64, value: UInt8)] {
        let rtp = writes.filter { $0.register == 0x02 }
        guard let first = rtp.firstIndex(where: { $0.value != 0 }) else { return [] }
        let t0 = Int64(rtp[first].time)
        var out: [(time: Int64, value: UInt8)] = []
        for w in rtp[first...] where out.last?.value != w.value { out.append((Int64(w.time) - t0, w.value)) }
        return out
    }

    func testFlashListAndPlayByIdDrivesTheChipAsStreamingDoes() throws {
        let built = try exampleLibrary()
        let bytes = try built.image.encode()
        let rig = rig(profile: built.profile)
        try rig.connect(calibrate: false)

        var progress: [LibraryWriteProgress] = []
        let status = try rig.session.writeLibrary(bytes, expectedProfile: built.image.profile) { progress.append($0) }
        XCTAssertEqual(status.status, ProtocolConstants.libraryStatusSwitched)
        XCTAssertEqual(status.size, UInt32(bytes.count))
        XCTAssertEqual(status.crc, LibraryImage.storedCRC(bytes))
        XCTAssertEqual(progress.last?.phase, .done)
        XCTAssertEqual(progress.map(\.bytesWritten), progress.map(\.bytesWritten).sorted(), "progress never goes back")
        XCTAssertTrue(progress.contains { $0.phase == .writing && $0.bytesWritten > 0 && $0.bytesWritten < bytes.count })

        let read = try rig.session.readLibrary()
        XCTAssertEqual(read.bytes, bytes, "the device serves back exactly the image written")
        XCTAssertEqual(read.image.presets.map(\.id), built.image.presets.map(\.id))

        // Play the heartbeat (id 1) stored, then streamed, and compare the chip's RTP writes.
        let engine = try rig.engine()
        engine.run(for: 0.2)
        let before = rig.device.chip.trace.registerWrites.count
        try engine.playStoredPreset(id: 1, atTime: engine.currentTime + 0.02)
        engine.run(for: 1.5)
        let stored = drive(rig.device.chip.trace.registerWrites[before...])
        let heartbeat = try AHAPReader().read(contentsOf: PackageRoot.file("examples/heartbeat.ahap").path).pattern
        let middle = rig.device.chip.trace.registerWrites.count
        _ = try rig.play(heartbeat)
        engine.run(for: 0.5)
        let streamed = drive(rig.device.chip.trace.registerWrites[middle...])
        XCTAssertGreaterThan(stored.count, 20)
        // Onsets (drive leaving 0) at the same instants, within 10 µs.
        func onsets(_ d: [(time: Int64, value: UInt8)]) -> [Int64] {
            var out: [Int64] = []
            var level: UInt8 = 0
            for w in d {
                if level == 0 && w.value != 0 { out.append(w.time) }
                level = w.value
            }
            return out
        }
        let a = onsets(stored), b = onsets(streamed)
        XCTAssertEqual(a.count, 4, "the heartbeat's four beats")
        XCTAssertEqual(a.count, b.count)
        for (x, y) in zip(a, b) { XCTAssertLessThanOrEqual(abs(x - y), 10, "onset \(x) vs \(y) µs") }
        // The drive itself, sampled every 10 µs: the same envelope. The stream cuts long ramps at
        // its chunk edges (each piece restarts the device's 500 µs update grid), so single updates
        // may differ by a step; on average they agree to a fraction of a code.
        let end = max(stored.last?.time ?? 0, streamed.last?.time ?? 0)
        var total = 0, samples = 0, worst = 0
        var i = 0, j = 0
        for t in stride(from: Int64(0), through: end, by: 10) {
            while i + 1 < stored.count && stored[i + 1].time <= t { i += 1 }
            while j + 1 < streamed.count && streamed[j + 1].time <= t { j += 1 }
            let d = abs(Int(stored[i].value) - Int(streamed[j].value))
            total += d
            worst = max(worst, d)
            samples += 1
        }
        XCTAssertLessThanOrEqual(Double(total) / Double(samples), 1.0, "mean drive difference (codes)")
        XCTAssertLessThanOrEqual(worst, 16, "at most one 500 µs update step of the steepest ramp")
    }

    /// Every event of a stored preset is reported, and its first drive is whole: a preset read
    /// from storage after its start begins when read (shifted, not trimmed), and reading the next
    /// entries from storage never delays an onset (PROTOCOL.md §4.9). Truth from the chip.
    func testStoredPresetsReportEveryOnsetAndStartWhole() throws {
        let (rig, engine, image) = try engineWithExampleLibrary()
        engine.run(for: 0.5)
        // The heartbeat twice (the second from the copy the device keeps decoded), presets far
        // down the index (read from storage after the start), and one again.
        for id: UInt16 in [1, 1, 12, 30, 3, 30] {
            let preset = try XCTUnwrap(image.preset(id: id))
            let started = try engine.playStoredPreset(preset, in: image)
            engine.run(for: Double(image.summaries().first { $0.id == id }!.durationMicroseconds) / 1e6 + 0.3)
            XCTAssertFalse(started.marks.isEmpty)
            var shifts: [Double] = []
            for mark in started.marks {
                let record = try XCTUnwrap(engine.onset(ofStoredPresetMark: mark))
                XCTAssertTrue([.onTime, .lateTrimmed].contains(record.status), "id \(id): every entry starts whole, none dropped")
                let truth = try XCTUnwrap(rig.trueOnset(of: record), "id \(id): the chip drove it")
                // Late by the chip's clock is reported late (against the time asked for), on time is on time.
                if truth - record.requestedTime > 1e-3 { XCTAssertEqual(record.status, .lateTrimmed, "id \(id): started late") }
                if truth - record.requestedTime < 20e-6 { XCTAssertEqual(record.status, .onTime, "id \(id): started on time") }
                let reported = try XCTUnwrap(record.onsetTime)
                XCTAssertLessThanOrEqual(abs(reported - truth), record.onsetBound ?? 0, "id \(id): the bound holds the truth")
                shifts.append(truth - record.requestedTime)
                XCTAssertTrue(engine.onsets.contains { $0.requestedTime == record.requestedTime }, "the engine lists its stored onsets")
            }
            // Late or not, the preset keeps its own rhythm: every event is shifted alike.
            let spread = (shifts.max()! - shifts.min()!) * 1e6
            XCTAssertLessThanOrEqual(spread, 10, "id \(id): events keep their spacing (\(shifts.map { Int($0 * 1e6) }) µs)")
            XCTAssertGreaterThanOrEqual(shifts.min()!, -100e-6, "id \(id): never early")
        }
    }

    /// `thrum play id:N` stopped by the user (Ctrl-C): what it does on the signal — note when,
    /// any-lane STOP, the report's events due from then on marked `stopped`
    /// (``PlaybackReport/markStopped(at:)``, as for a pattern). The metronome (eight beats over
    /// 3.5 s) stopped after its second beat: the beats before it keep their onsets, the six after
    /// it are `stopped` (they were `not_reported`), and the chip's truth: none of them drove it.
    /// Virtual time.
    func testAStoredPresetStoppedByTheUserMarksTheRestStopped() throws {
        let (rig, engine, image) = try engineWithExampleLibrary()
        engine.run(for: 0.5)
        let preset = try XCTUnwrap(image.presets.first { $0.name == "metronome" })
        let started = try engine.playStoredPreset(preset, in: image, atTime: engine.currentTime + 0.05)
        let start = started.driveStart.seconds
        XCTAssertEqual(started.marks.count, 8)
        let second = try XCTUnwrap(engine.onset(ofStoredPresetMark: started.marks[1])).requestedTime
        engine.run(until: second + 0.1)
        let stop = engine.currentTime - start
        engine.stop()
        engine.exchange(for: .milliseconds(30))
        engine.waitForStoredPresetReports(of: started, duration: 3.6)
        var report = PlaybackReport(
            events: try started.marks.enumerated().map { index, mark in
                PlaybackReport.Event(id: UInt32(index + 1), type: .hapticTransient, onset: try XCTUnwrap(engine.onset(ofStoredPresetMark: mark)), relativeTo: start)
            }, bytesSent: 0, bytesReceived: 0, segmentCount: 0, startDeviceTime: engine.deviceTime(at: started.driveStart), duration: 3.6)
        XCTAssertEqual(report.events.suffix(6).map(\.status), Array(repeating: .notReported, count: 6), "before: told as if lost")
        XCTAssertEqual(report.markStopped(at: stop), 6)
        XCTAssertEqual(report.events.map(\.status), [.onTime, .onTime] + Array(repeating: .stopped, count: 6))
        // The chip's truth: nothing drove it after the stop (STOP's latency aside).
        let after = (start + stop + 0.01) * 1e6
        let drive = rig.device.chip.trace.registerWrites.filter {
            $0.register == DRV2605LRegister.rtpInput.rawValue && Double($0.time) > after && $0.value != 0
        }
        XCTAssertEqual(drive.map(\.time), [], "drive after the stop")
        for mark in started.marks.prefix(2) {
            XCTAssertNotNil(rig.trueOnset(of: try XCTUnwrap(engine.onset(ofStoredPresetMark: mark))), "the beats before the stop drove the chip")
        }
    }

    /// Stored presets started back to back all play whole and on time: the metronome (eight beats
    /// over 3.5 s), the heartbeat right behind it, and impact.light behind that. The heartbeat's
    /// PLAY_PRESET reaches the device while the metronome still feeds its entries; it waits until
    /// the metronome has queued its last entry, then starts (it replaced the metronome's play
    /// before: 1 of 8 beats played, 7 `refused_by_device`). The device keeps one waiting, so the
    /// host holds impact.light's until the heartbeat has begun. Truth from the chip: every one of
    /// the 8 + 4 + 1 events drove it on its time, and the device cut nothing (no FAULT 11).
    /// Virtual time.
    func testStoredPresetsBackToBackAllPlayOnTime() throws {
        try checkBackToBack(link: nil, name: "1 ms each way", then: [(1, 4), (10, 1)])
    }

    /// The metronome and swell right behind it over an 80 ms round trip (40 ms each way): swell is
    /// not decoded ahead (the heartbeat is, for its trigger input), so the device reads it from
    /// storage once the metronome has queued its last entry, when no onset is due within 10 ms.
    /// The device, not the host, decides when it starts, so the link does not matter. Virtual time.
    func testAPresetReadFromStorageBehindAnotherPlaysOnTimeOverALongRoundTrip() throws {
        try checkBackToBack(link: FixedLatencyLink(latency: 40_000), name: "80 ms round trip", then: [(3, 2)])
    }

    /// The metronome, then `then` (preset id, its event count) each started at once behind it.
    private func checkBackToBack(link: (any LinkModel)?, name: String, then: [(id: UInt16, events: Int)]) throws {
        let (rig, engine, image) = try engineWithExampleLibrary(link: link)
        engine.run(for: 0.5)
        let faultsBefore = rig.session.faults.count
        let length = { (id: UInt16) in Double(image.summaries().first { $0.id == id }!.durationMicroseconds) / 1e6 }
        let metronome = try XCTUnwrap(image.preset(id: 2))
        var plays = [(id: UInt16(2), events: 8, started: try engine.playStoredPreset(metronome, in: image, atTime: engine.currentTime + 0.05))]
        for next in then {
            plays.append((next.id, next.events, try engine.playStoredPreset(try XCTUnwrap(image.preset(id: next.id)), in: image)))
        }
        var total = 0.0
        for play in plays { total += length(play.id) }
        engine.run(for: total + 0.2)
        var planned = 0.0
        var errors: [Int] = []
        var lastEnd = -Double.infinity
        for play in plays {
            planned += length(play.id)
            engine.waitForStoredPresetReports(of: play.started, duration: planned)
            XCTAssertEqual(play.started.marks.count, play.events, "preset \(play.id)'s events")
            var truths: [Double] = []
            for mark in play.started.marks {
                let record = try XCTUnwrap(engine.onset(ofStoredPresetMark: mark))
                XCTAssertEqual(record.status, .onTime, "preset \(play.id) event \(mark)")
                let truth = try XCTUnwrap(rig.trueOnset(of: record), "the chip drove preset \(play.id) event \(mark)")
                truths.append(truth)
                errors.append(Int(((truth - record.requestedTime) * 1e6).rounded()))
                XCTAssertLessThanOrEqual(abs(truth - record.requestedTime), 100e-6, "event \(mark) on its time by the chip's trace")
                let reported = try XCTUnwrap(record.onsetTime)
                XCTAssertLessThanOrEqual(abs(reported - truth), record.onsetBound ?? 0, "event \(mark): the bound holds the truth")
            }
            XCTAssertGreaterThan(truths.min() ?? 0, lastEnd, "preset \(play.id) after the one before")
            lastEnd = truths.max() ?? lastEnd
        }
        let cut = rig.session.faults[faultsBefore...].filter { $0.code == ProtocolConstants.faultPresetCut || $0.code == ProtocolConstants.faultGoRejected }
        XCTAssertTrue(cut.isEmpty, "the device cut nothing: \(cut)")
        print("presets \(plays.map(\.id)) back to back (\(name)): \(errors.count) events on_time, first drives \(errors.min()!)…\(errors.max()!) µs from their time (chip trace)")
    }

    /// A preset read from storage after its start (late), then another asked for at once behind
    /// it, placed at the first's planned end: the engine holds the second's PLAY_PRESET until the
    /// first's onset report says it began, and moves the second's start only when it would lie
    /// before the first's shifted last entry (the device refuses a waiting play that starts
    /// before it, FAULT 11). Here it does not: both play whole, the second on its time, nothing
    /// cut, by the chip's trace. Virtual time.
    func testAPresetBehindALateOneWaitsForItsActualStart() throws {
        let (rig, engine, image) = try engineWithExampleLibrary()
        engine.run(for: 0.5)
        let faultsBefore = rig.session.faults.count
        let length = { (id: UInt16) in Double(image.summaries().first { $0.id == id }!.durationMicroseconds) / 1e6 }
        let ids: [UInt16] = [24, 12]
        let plays = try ids.map { try engine.playStoredPreset(try XCTUnwrap(image.preset(id: $0)), in: image) }
        var lastEnd = -Double.infinity
        var shifts: [[Int]] = []
        for (id, play) in zip(ids, plays) {
            engine.waitForStoredPresetReports(of: play, duration: length(ids[0]) + length(ids[1]))
            XCTAssertFalse(play.marks.isEmpty)
            var truths: [Double] = [], shift: [Int] = []
            for mark in play.marks {
                let record = try XCTUnwrap(engine.onset(ofStoredPresetMark: mark))
                XCTAssertTrue([.onTime, .lateTrimmed].contains(record.status), "preset \(id) event \(mark): \(record.status)")
                let truth = try XCTUnwrap(rig.trueOnset(of: record), "the chip drove preset \(id) event \(mark)")
                truths.append(truth)
                shift.append(Int(((truth - record.requestedTime) * 1e6).rounded()))
                let reported = try XCTUnwrap(record.onsetTime)
                XCTAssertLessThanOrEqual(abs(reported - truth), record.onsetBound ?? 0, "event \(mark): the bound holds the truth")
            }
            shifts.append(shift)
            XCTAssertGreaterThan(truths.min() ?? 0, lastEnd, "preset \(id) after the one before")
            lastEnd = truths.max() ?? lastEnd
        }
        // The scenario holds: the first began late (read from storage after its start); the
        // second, decoded ahead, was not moved needlessly.
        XCTAssertGreaterThan(shifts[0].min() ?? 0, 1_000, "the first preset started late: \(shifts) µs")
        for s in shifts[1] { XCTAssertLessThanOrEqual(abs(s), 100, "the second on its time: \(shifts) µs") }
        let cut = rig.session.faults[faultsBefore...].filter { $0.code == ProtocolConstants.faultPresetCut || $0.code == ProtocolConstants.faultGoRejected }
        XCTAssertTrue(cut.isEmpty, "the device cut nothing: \(cut)")
        print("late preset then another: first drives \(shifts) µs from their times (chip trace)")
    }

    /// A preset behind a late one where the hold decides: on a 50 kHz I²C bus (slow storage reads)
    /// sensory.selection, read from storage, begins later than the gap the engine leaves after its
    /// planned end (≈ 23 ms against 20 ms), and impact.heavy is asked for at once behind it. The
    /// engine holds impact.heavy's PLAY_PRESET until sensory.selection's first onset report and
    /// moves its start past the shifted last entry: both play whole, in order, nothing cut, by the
    /// chip's trace (two bursts). Sent at the first's planned start instead (the hold removed), or
    /// held but not moved, the device refused it (FAULT 11) and the chip drove one burst: both
    /// tried. (``testAPresetBehindALateOneWaitsForItsActualStart`` passed either way: there the
    /// first is later by less than the gap.) Virtual time.
    func testAPresetBehindOneStartedLaterThanTheGapIsHeldAndMoved() throws {
        let (rig, engine, image) = try engineWithExampleLibrary(i2cClockHz: 50_000)
        engine.run(for: 0.5)
        let faultsBefore = rig.session.faults.count
        let writesBefore = rig.device.chip.trace.registerWrites.count
        let length = { (id: UInt16) in Double(image.summaries().first { $0.id == id }!.durationMicroseconds) / 1e6 }
        let first = try engine.playStoredPreset(try XCTUnwrap(image.preset(id: 24)), in: image)
        let second = try engine.playStoredPreset(try XCTUnwrap(image.preset(id: 12)), in: image)
        let gap = second.driveStart.seconds - first.driveStart.seconds - length(24)
        engine.waitForStoredPresetReports(of: first, duration: length(24))
        engine.waitForStoredPresetReports(of: second, duration: length(24) + gap + length(12))
        var truths: [[Double]] = []
        var lateness: [Double] = []
        for (id, play) in [(UInt16(24), first), (12, second)] {
            XCTAssertFalse(play.marks.isEmpty)
            var drives: [Double] = []
            for mark in play.marks {
                let record = try XCTUnwrap(engine.onset(ofStoredPresetMark: mark))
                XCTAssertTrue([.onTime, .lateTrimmed].contains(record.status), "preset \(id) event \(mark): \(record.status)")
                let truth = try XCTUnwrap(rig.trueOnset(of: record), "the chip drove preset \(id) event \(mark)")
                drives.append(truth)
                lateness.append(truth - record.requestedTime)
            }
            truths.append(drives)
        }
        // The scenario holds: the first began later than the gap left after its planned end.
        XCTAssertGreaterThan(lateness[0], gap + 1e-3, "the first started \(Int(lateness[0] * 1e6)) µs late, the gap is \(Int(gap * 1e6)) µs")
        XCTAssertGreaterThan(truths[1].min() ?? 0, truths[0].max() ?? .infinity, "the second after the first")
        // Each event is one burst: the chip's drive left 0 once for each, no more, no fewer.
        var bursts = 0, level: UInt8 = 0
        for w in rig.device.chip.trace.registerWrites[writesBefore...] where w.register == 0x02 {
            if level == 0 && w.value != 0 { bursts += 1 }
            level = w.value
        }
        XCTAssertEqual(bursts, first.marks.count + second.marks.count, "bursts on the chip")
        let cut = rig.session.faults[faultsBefore...].filter { $0.code == ProtocolConstants.faultPresetCut || $0.code == ProtocolConstants.faultGoRejected }
        XCTAssertTrue(cut.isEmpty, "the device cut nothing: \(cut)")
        print("a preset behind one \(Int(lateness[0] * 1e6)) µs late (gap \(Int(gap * 1e6)) µs): \(bursts) bursts, drives \(lateness.map { Int($0 * 1e6) }) µs from their times (chip trace)")
    }

    /// A stored preset the device refuses is accounted for: the metronome played by id (the host
    /// does not know its length, so it orders only its start) and impact.light asked for 0.3 s on,
    /// during it. impact.light's PLAY_PRESET waits on the device until the metronome has queued its
    /// last entry; its start has passed by then and lies before that entry's, so the device
    /// refuses it whole with FAULT 11 naming its play (its event base) — stored presets are one
    /// play at a time — and its event is `refused_by_device` (before: `not_reported`, FAULT 8
    /// detail 255 naming no play), and by the chip's trace nothing drove at its time, while the
    /// metronome played to its last beat. Every event is announced to the onset observers once.
    /// Virtual time.
    func testAStoredPresetTheDeviceCutIsRefusedNotUnreported() throws {
        let (rig, engine, image) = try engineWithExampleLibrary()
        var announced: [UInt32: [PlaybackReport.OnsetStatus]] = [:]
        let subscription = engine.observeOnsets { u in
            if u.kind == .reported { announced[u.id, default: []].append(u.status) }
        }
        defer { subscription.cancel() }
        engine.run(for: 0.5)
        let impact = try XCTUnwrap(image.preset(id: 10))
        let metronomeStart = try engine.playStoredPreset(id: 2, atTime: engine.currentTime + 0.05)
        let refusedPlay = try engine.playStoredPreset(impact, in: image, atTime: metronomeStart.seconds + 0.3)
        let length = { (id: UInt16) in Double(image.summaries().first { $0.id == id }!.durationMicroseconds) / 1e6 }
        engine.run(for: length(2) + 0.2)
        engine.waitForStoredPresetReports(of: refusedPlay, duration: length(2))
        let cut = engine.deviceStatus.faults.filter { $0.code == ProtocolConstants.faultPresetCut }
        XCTAssertEqual(cut.map(\.detail), [refusedPlay.marks[0] - 1], "one FAULT 11, naming impact.light's play")
        XCTAssertEqual(refusedPlay.marks.count, 1)
        for mark in refusedPlay.marks {
            let record = try XCTUnwrap(engine.onset(ofStoredPresetMark: mark))
            XCTAssertEqual(record.status, .refusedByDevice, "impact.light event \(mark)")
            XCTAssertNil(rig.firstDrive(near: record.intendedDriveTime * 1e6, before: 1_000, window: 5_000), "the chip drove no refused event")
            XCTAssertEqual(announced[mark], [record.status], "announced once, with its status")
        }
        // The metronome's beats are 0.5 s apart: its last one drove, 3.5 s after its first.
        let firstBeat = try XCTUnwrap(rig.firstDrive(near: metronomeStart.seconds * 1e6, before: 1_000, window: 50_000))
        XCTAssertNotNil(rig.firstDrive(near: firstBeat + 3_500_000, before: 5_000, window: 10_000), "the metronome's last beat drove")
        print("impact.light asked during the metronome (played by id): \(refusedPlay.marks.count) refused_by_device, FAULT 11 \(cut.map(\.detail))")
    }

    /// A stored preset played right after the library was read back, on a 115 200 baud line
    /// (docs/timing.md, "A clock sampled behind bulk replies"): the read's ACKs come back behind
    /// its data replies, so its samples bracket the device clock widely; the read pings the clock
    /// narrow again before it returns, and the preset's first drive lands on the time asked for by
    /// the chip's own trace, not off by up to half that bracket. Virtual time.
    func testAStoredPresetPlayedAfterTheReadBackStartsOnItsTime() throws {
        let built = try exampleLibrary()
        var configuration = VirtualDeviceFactory.configuration(for: built.profile, crystalErrorPPM: 60, clockStart: 123_456)
        configuration.storage = LibraryStorage()
        let rig = VirtualRig(profile: built.profile, link: UartLink(baud: 115_200), deviceConfiguration: configuration)
        try rig.connect(calibrate: false)
        try rig.session.writeLibrary(try built.image.encode())
        let image = try rig.session.readLibrary().image
        let clock = rig.session.link.clock
        let bracket = clock.bounds(at: rig.clock.now())
        let width = Double(bracket.upperBound.microseconds - bracket.lowerBound.microseconds)
        XCTAssertLessThanOrEqual(width, DeviceSession.clockWidthForStarts.seconds * 1e6, "the clock's bracket after the read")
        let engine = try rig.engine()
        let preset = try XCTUnwrap(image.preset(id: 1))
        let started = try engine.playStoredPreset(preset, in: image, atTime: engine.currentTime + 0.05)
        engine.run(for: 1.3)
        var errors: [Int] = []
        for mark in started.marks {
            let record = try XCTUnwrap(engine.onset(ofStoredPresetMark: mark))
            let truth = try XCTUnwrap(rig.trueOnset(of: record), "the chip drove event \(mark)")
            errors.append(Int(((truth - record.requestedTime) * 1e6).rounded()))
            XCTAssertEqual(record.status, .onTime)
            XCTAssertLessThanOrEqual(abs(truth - record.requestedTime), 0.5e-3, "event \(mark) on its time by the chip's trace")
        }
        print("stored preset after the read-back: clock bracket \(Int(width)) µs, first drives \(errors) µs from their time (chip trace)")
    }

    /// Streamed drive started while a stored preset plays is queued behind the preset, never in
    /// front of it or among its entries (the device refuses entries out of order: a streamed
    /// segment before the preset's queued entries is dropped as a bad frame, and a preset entry
    /// behind streamed drive ends the preset with FAULT 8). Truth from the chip: every event of
    /// both drove it, in order, and the device refused nothing.
    func testStreamedDriveStartedDuringAStoredPresetIsQueuedBehindIt() throws {
        let (rig, engine, image) = try engineWithExampleLibrary()
        engine.run(for: 0.5)
        let faultsBefore = rig.session.faults.count
        let preset = try XCTUnwrap(image.preset(id: 1), "the heartbeat")
        // The preset asked for 100 ms from now; the streamed transient at once, in front of it.
        let started = try engine.playStoredPreset(preset, in: image, atTime: engine.currentTime + 0.1)
        let transient = try HapticPattern(
            events: [HapticEvent(eventType: .hapticTransient, parameters: [.init(parameterID: .hapticIntensity, value: 1)], relativeTime: 0)],
            parameters: [])
        let player = try engine.makePlayer(with: transient)
        try player.start(atTime: HapticTimeImmediate)
        engine.run(for: 2.5)
        var presetTruths: [Double] = []
        for mark in started.marks {
            let record = try XCTUnwrap(engine.onset(ofStoredPresetMark: mark))
            XCTAssertTrue([.onTime, .lateTrimmed].contains(record.status), "preset event \(record.patternIndex): \(record.status)")
            presetTruths.append(try XCTUnwrap(rig.trueOnset(of: record), "preset event \(record.patternIndex): the chip drove it"))
        }
        XCTAssertEqual(started.marks.count, 4, "the heartbeat's four beats")
        let streamed = engine.onsets.filter { $0.playerID == player.playerID }
        XCTAssertEqual(streamed.count, 1)
        let record = try XCTUnwrap(streamed.first)
        XCTAssertTrue([.onTime, .lateTrimmed].contains(record.status), "the transient: \(record.status)")
        let truth = try XCTUnwrap(rig.trueOnset(of: record), "the chip drove the transient")
        XCTAssertGreaterThan(truth, try XCTUnwrap(presetTruths.max()), "the streamed drive plays after the preset's last event")
        let refused = rig.session.faults[faultsBefore...].filter { $0.code == ProtocolConstants.faultGoRejected }
        XCTAssertTrue(refused.isEmpty, "the device refused nothing: \(refused)")
    }

    func testBadImagesAreRefusedBeforeAnythingIsWritten() throws {
        let built = try exampleLibrary()
        let good = try built.image.encode()
        let storage = LibraryStorage(size: 8_192, pageSize: 64)  // two slots of 4 032 bytes
        let rig = rig(profile: built.profile, storage: storage)
        try rig.connect(calibrate: false)
        let pristine = storage.bytes

        func refused(_ image: [UInt8], profile: LibraryImage.Profile? = nil, _ expected: String) {
            XCTAssertThrowsError(try rig.session.writeLibrary(image, expectedProfile: profile)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
                XCTAssertTrue("\(error)".hasPrefix("refused before writing anything"), "\(error)")
            }
            XCTAssertEqual(storage.pageWrites, 0, "nothing written for: \(expected)")
            XCTAssertTrue(storage.bytes == pristine, "storage unchanged for: \(expected)")
        }
        refused(Array(good.prefix(good.count - 10)), "truncated")
        var damaged = good
        damaged[100] ^= 1
        refused(damaged, "CRC-32 mismatch")
        var newer = good
        newer[4] = 2
        refused(newer, "newer")
        var other = built.image.profile
        other.id = "lra0825"
        other.ratedVoltage &+= 1
        refused(good, profile: other, "actuator profile")
        let big = try LibraryImage(
            name: "big", version: 1, profile: built.image.profile,
            shapes: (0..<5).map { k in .init(ramps: (0..<255).map { j in .init(duration: 999_999 - UInt32(j), from: UInt8(k), to: 200) }) },
            presets: (1...5).map { .init(id: UInt16($0), name: "p\($0)", items: [.shape(after: 0, shape: $0 - 1, event: 1)]) }
        ).encode()
        XCTAssertGreaterThan(big.count, 4_032)
        refused(big, "does not fit")

        // And the good one still goes in.
        XCTAssertEqual(try rig.session.writeLibrary(good).status, ProtocolConstants.libraryStatusSwitched)
    }

    func testUnknownIdAndNoStorageAreClearErrors() throws {
        let built = try exampleLibrary()
        let rig = rig(profile: built.profile, storage: nil)
        try rig.connect(calibrate: false)
        XCTAssertThrowsError(try rig.session.writeLibrary(try built.image.encode())) { error in
            XCTAssertTrue("\(error)".contains("no library storage"), "\(error)")
        }
        XCTAssertThrowsError(try rig.session.readLibrary()) { XCTAssertTrue("\($0)".contains("no library storage"), "\($0)") }

        let withStorage = self.rig(profile: built.profile)
        try withStorage.connect(calibrate: false)
        XCTAssertThrowsError(try withStorage.session.readLibrary()) { XCTAssertTrue("\($0)".contains("holds no library"), "\($0)") }
        try withStorage.session.writeLibrary(try built.image.encode())
        let engine = try withStorage.engine()
        try engine.playStoredPreset(id: 999)
        engine.run(for: 0.05)
        XCTAssertTrue(
            withStorage.session.faults.contains { $0.code == ProtocolConstants.faultNoPreset && $0.detail == 999 },
            "the device reports FAULT 10 with the id: \(withStorage.session.faults)")
    }
}
