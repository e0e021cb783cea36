import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumLibrary
import ThrumTime
import ThrumWire

/// `thrum play id:N --port P`: play a preset of the library stored on the device (one short
/// PLAY_PRESET message; the device expands the stored program itself). The report lists each of
/// its events with the onset the device reported, its bound and, on a virtual device, the truth,
/// as for a pattern; `--expect-onsets`, `--expect-max-error-us` and `--junit` work the same.
enum StoredPresetPlay {
    /// The argument prefix.
    static let prefix = "id:"
    /// How far ahead of the call `thrum play id:N` asks the preset to start (s).
    static let storedPresetLead = 0.05

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let startedAt = Date()
        let expectations = try PlaybackExpectations.take(from: &arguments)
        let junitPath = try arguments.option("junit")
        if let junitPath { try OutputFile.checkWritable(junitPath, what: "JUnit report") }
        let noPlot = arguments.flag("no-plot")
        let options = try DeviceCommandOptions.take(from: &arguments, positional: true)
        guard let argument = options.positional, argument.hasPrefix(prefix), let id = UInt16(argument.dropFirst(prefix.count)), id > 0 else {
            throw UsageError(message: "id:N names a stored preset by its id, 1…65535 (see `thrum library list --port P`)")
        }
        let file = "id:\(id)"
        func fail(_ message: String) -> CommandFailure {
            if let junitPath { try? PlayCommand.writeFailedJUnit(to: junitPath, file: file, message: message, startedAt: startedAt) }
            return CommandFailure(message: message)
        }
        var settings = PlayOutput.Settings(rate: 1, intensity: nil, loop: .passes(1))
        settings.expectations = expectations
        settings.junitPath = junitPath
        settings.startedAt = startedAt
        // As `play` settles calibration: not redone while the driver holds the kept one, written
        // back (RESTORE_CALIBRATION) when a reset cleared it, run otherwise.
        var configuration = HapticEngine.Configuration()
        Interrupt.install()  // a stop signal from here on stops the preset and reports (UserStop)
        let target: PlaybackTarget
        do {
            target = try options.target()
        } catch let failure as CommandFailure {
            throw fail(failure.message)
        }
        let connection: DeviceConnection
        do {
            connection = try PlayCommand.connect(
                target: target, profile: options.profile, configuration: &configuration, settings: &settings, json: false)
        } catch let failure as CommandFailure {
            target.close()
            throw fail(failure.message)
        }
        defer { target.close() }
        let library: DeviceLibrary
        do {
            library = try DeviceLibrary.read(connection)
        } catch {
            throw fail((error as? CommandFailure)?.message ?? "\(error)")
        }
        guard case .active(let image, _) = library.state else {
            throw fail(library.text.replacingOccurrences(of: "library: ", with: "cannot play \(file): "))
        }
        guard let preset = image.preset(id: id) else {
            throw fail(LibraryClientError.noPreset(id: UInt32(id), available: image.presets.map(\.id)).description)
        }
        if image.profile.id != options.profile.id {
            printError("note: the library was built for \(image.profile.id); the device was set up for \(options.profile.id)")
        }
        let summary = image.summaries().first { $0.id == id }!
        let duration = Double(summary.durationMicroseconds) / 1e6
        let engine = connection.makeEngine(configuration: configuration)
        settings.storedPreset = StoredPresetInfo(id: id, name: preset.name, library: image.name)
        let report: PlaybackReport
        do {
            try engine.start()
            PlayCommand.recordCalibration(connection, settings: &settings)
            let before = engine.counters
            // Not at once: the device may still be busy with the storage reads of the library
            // just read (PLAY_PRESET waits in its buffer meanwhile); a preset whose own read takes
            // longer than this lead starts late, and is reported late.
            let started = try engine.playStoredPreset(preset, in: image, atTime: engine.currentTime + storedPresetLead)
            let start = started.driveStart.seconds
            // Asked every 10 ms whether the user stopped the run (Ctrl-C, SIGTERM, SIGQUIT).
            let end = start + duration + 0.05
            while engine.currentTime < end && engine.isRunning && !Interrupt.requested {
                engine.run(for: min(0.01, end - engine.currentTime))
            }
            let stop = UserStop.noted(now: engine.currentTime, start: start, settings: &settings)
            if stop != nil {
                // Silence first (any-lane STOP), then give its acknowledgement a moment; the wait
                // below then ends at once (the engine no longer runs).
                engine.stop()
                engine.exchange(for: .milliseconds(30))
            }
            // The last reports come as the last entries start, later when the preset began late.
            engine.waitForStoredPresetReports(of: started, duration: duration + 0.05)
            if engine.deviceStatus.faults.contains(where: { $0.code == ProtocolConstants.faultNoPreset }) {
                throw CommandFailure(message: "the device reported FAULT 10: no stored preset \(id)")
            }
            let events = started.marks.enumerated().map { index, mark -> PlaybackReport.Event in
                guard let record = engine.onset(ofStoredPresetMark: mark) else {
                    return PlaybackReport.Event(
                        id: UInt32(index + 1), patternIndex: index, type: .hapticTransient, requestedTime: 0, onsetTime: nil,
                        driveOnsetTime: nil, status: .notReported)
                }
                return PlaybackReport.Event(id: UInt32(index + 1), type: .hapticTransient, onset: record, relativeTo: start)
            }
            let now = engine.counters
            var measured = PlaybackReport(
                events: events, bytesSent: now.bytesSent - before.bytesSent, bytesReceived: now.bytesReceived - before.bytesReceived,
                segmentCount: 0, startDeviceTime: engine.deviceTime(at: started.driveStart), duration: duration)
            measured.startHostTime = started.driveStart
            stop?.mark(&measured)
            // A reset or a hole in the drive while it played (the engine runs on this thread).
            measured.faults = engine.device.runFaults.dropFirst(before.runFaults).map { $0.relative(to: start) }
            target.attachTruth(to: &measured)
            report = measured
            settings.takeStatus(of: engine)
            if let error = engine.lastError { throw error }
            engine.stop()
        } catch let error as CommandFailure {
            throw fail(error.message)
        } catch {
            throw fail((error as? HapticError)?.message ?? "\(error)")
        }
        guard let identity = engine.deviceStatus.identity else { throw fail("the device did not identify itself") }
        return PlayCommand.finish(
            file: file, profile: options.profile, identity: identity, report: report, target: target, settings: settings,
            json: options.json, noPlot: noPlot)
    }
}
