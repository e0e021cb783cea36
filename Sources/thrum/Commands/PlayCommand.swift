import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTime
import ThrumWire

/// `thrum play`: compile a pattern and play it on a device (the virtual one by default).
enum PlayCommand: Subcommand {
    static let name = "play"
    static let summary = "play an AHAP file on a device (the built-in virtual device by default)"
    static let usage = """
        Usage: thrum play <file.ahap | preset:NAME> [options]
               thrum play id:N --port PATH [--json] [--expect-onsets K] [--expect-max-error-us N] [--junit FILE]
                                                       (a preset of the library stored on the device)

        Plays the pattern on the streaming engine (HapticEngine, docs/engine.md). Without --port it
        plays on the built-in virtual device (in virtual time) and plots the acceleration the
        actuator produced.

        Options:
          --port PATH       serial port or pseudo-terminal of a Thrum device; give it again to play
                            on several devices against one host timeline (their onset skew is
                            reported with its bound; docs/cli.md)
          --route FILE.json with several --port: which events each device plays
                            ({"devices": [{"events": [0, 2]}, {"events": [1, 3]}]}, one entry per --port)
          --link SPEC       without --port: the link between host and virtual device: a model by
                            name (default usb-fs; see thrum bench --help for the list), or items
                            as thrum sim --link takes them (out=40ms,back=40ms,step=60ms@2s: a
                            round trip of 80 ms that grows to 200 ms 2 s after the device began)
          --baud N          baud rate of a real serial port (default 115200)
          --actuator NAME   actuator profile: a built-in id (default: \(ActuatorProfile.default.id); thrum actuator list)
                            or a profile FILE.json; --profile NAME is the same
          --lenient         accept trailing commas in the AHAP file
          --rate X          playback rate, 0.01…100 (2 plays twice as fast; transients keep their length)
          --intensity X     HapticIntensityControl for the whole pattern, 0…1 (0.5 halves the drive)
          --loop N          play N passes back to back (loop end = the end of the last event), N ≤ 10⁹;
                            on the virtual device at most 3600 s of passes in all (--port for more);
                            --loop forever repeats until Ctrl-C (with --port only)
          --loop-end S      loop length in pattern seconds, up to 86400 (default: the end of the last event);
                            a pass, S / --rate, lasts at least 0.01 s of real time
          --no-calibrate    leave the driver's calibration as it is at connect (no auto-calibration,
                            which buzzes 0.25–0.45 s, and no restore of the kept one)
          --recalibrate     run the auto-calibration at connect even when a kept one is valid
          --json            print one JSON object instead of the text report
          --expect-max-error-us N
                            CI assertion: every haptic event on time with |onset error| + bound ≤ N µs
                            (on the bound the clock model guarantees, not the estimate; on the
                            virtual device the true error must be ≤ N too); exit 3 with a one-line
                            reason when missed
          --expect-onsets K CI assertion: the device reports exactly K onsets (haptic events); exit 3
          --junit FILE      write a JUnit XML report: one test case per haptic event (and one for
                            --expect-onsets), or one in error saying why the run failed (a pattern
                            that does not read, no device; not for a usage error, exit 2); schema
                            in tools/junit.xsd
          --no-plot         leave out the acceleration plot
          --no-audio        leave the pattern's audio events unplayed (listed only)
          --audio-device NAME
                            ALSA device for the audio events (default "default"; "null" plays
                            nowhere). With --port, when no sound device opens, thrum says so once
                            and plays them on the null sink. On the virtual device the audio runs
                            on a modelled sound device in virtual time; with --audio-device its
                            recording is then played on that device (docs/audio.md)

        preset:rom.N (1…123) plays DRV2605L ROM effect N through the driver's own sequencer
        (ROM_EFFECT); the report gives its onset.

        id:N plays stored preset N of the device's library (one PLAY_PRESET; the device reads and
        plays it, docs/library.md); the report lists each of its events, the requested time being
        when the stored drive for it begins. Calibration is settled as for a pattern.

        Ctrl-C (SIGINT), SIGTERM or SIGQUIT stops the actuator at once (STOP), reports what played
        and exits 130, 143 or 131 (--loop forever ends this way with 0); the events due after it are
        `stopped` (on one device, on several --port, and for id:N). One during the connection or the
        calibration reports that nothing played. A device fault (watchdog stop, driver
        fault), a device reset or disconnect, a hole in the drive that hit an event (the host
        stalled past its queued lead), or an event not started on time is said on standard error
        (and in --json `faults` and each event's status) and makes the exit status 1; a hole that
        cut only the end of a drive already under way is said as a note. A fault the device wrote
        before this run (kept by a network bridge) is said as such (`earlier_faults`) and does
        not fail it (docs/robustness.md).
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        if arguments.hasPositional(prefix: StoredPresetPlay.prefix) { return try StoredPresetPlay.run(&arguments) }
        // Every failure after the arguments parse, but a usage error (exit 2: the command line is
        // wrong), is the run's: with --junit the report says why (a pattern that does not read, no
        // device, a link failure), so a CI job finds one (CLIOutsideCheckTests).
        var failureReport: FailedRunReport?
        do {
            return try playFile(&arguments, failureReport: &failureReport)
        } catch let usage as UsageError {
            throw usage
        } catch {
            failureReport?.write(message: (error as? CommandFailure)?.message ?? "\(error)")
            throw error
        }
    }

    /// Where `run` writes the JUnit report of a run that failed, once the arguments parsed and
    /// the report's path was checked.
    struct FailedRunReport {
        var path: String
        var file: String
        var startedAt: Date

        func write(message: String) {
            try? PlayCommand.writeFailedJUnit(to: path, file: file, message: message, startedAt: startedAt)
        }
    }

    static func playFile(_ arguments: inout ArgumentList, failureReport: inout FailedRunReport?) throws -> Int32 {
        let address = try DeviceAddressOptions.take(from: &arguments)
        let ports = address.ports, port = address.port
        let linkName = try arguments.option("link")
        var link = LinkCatalogue.usbFullSpeed
        if let linkName {
            do {
                link = try LinkSpec.profile(parsing: linkName)
            } catch {
                throw UsageError(message: "--link: \(error.description)")
            }
        }
        if linkName != nil && port != nil { throw UsageError(message: "--link models the virtual device's link; a real port has its own") }
        let actuatorFile = InputFiles.actuator(in: arguments)
        let chosenProfile = try ActuatorChoice.take(from: &arguments)
        let rate = try arguments.number("rate", in: 0.01...100, expected: "a number from 0.01 to 100") ?? 1
        let intensity = try arguments.number("intensity", in: 0...1, expected: "a number from 0 to 1")
        let loop = try arguments.option(
            "loop", as: { LoopChoice(text: $0) }, expected: "a whole number from 1 to \(LoopChoice.mostPasses) or 'forever'") ?? .passes(1)
        let loopEnd = try arguments.number(
            "loop-end", in: 0...HapticPattern.maximumTime,
            expected: "a loop length in pattern seconds up to \(Int(HapticPattern.maximumTime)) s (24 h)")
        if let loopEnd { try LoopChoice.checkLoopEnd(loopEnd, rate: rate) }
        let lenient = arguments.flag("lenient")
        var engineConfiguration = HapticEngine.Configuration()
        engineConfiguration.calibrateOnStart = !arguments.flag("no-calibrate")
        let recalibrate = arguments.flag("recalibrate")
        if recalibrate && !engineConfiguration.calibrateOnStart {
            throw UsageError(message: "--recalibrate and --no-calibrate contradict each other: give one")
        }
        let json = arguments.flag("json")
        let noPlot = arguments.flag("no-plot")
        let expectations = try PlaybackExpectations.take(from: &arguments)
        let junitPath = try arguments.option("junit")
        let routePath = try arguments.option("route")
        let noAudio = arguments.flag("no-audio")
        let audioDevice = try arguments.option("audio-device")
        let startedAt = Date()
        let files = try arguments.positionals()
        try arguments.finish()
        guard files.count == 1, let file = files.first else {
            throw UsageError(message: files.isEmpty ? "give the AHAP file (or preset:NAME) to play" : "give exactly one file or preset to play")
        }
        if loop == .forever && port == nil {
            throw UsageError(message: "--loop forever needs --port (the virtual device runs in virtual time and would never stop)")
        }

        let profile = chosenProfile ?? ActuatorProfile.default
        if let junitPath {
            // Where it cannot be written, said before the pattern plays (it was said after).
            try OutputFile.checkWritable(junitPath, what: "JUnit report")
            // Not the pattern file or the profile file, also when the pattern does not read.
            let given = FileManager.default.fileExists(atPath: file) ? [(path: file, what: "pattern")] : []
            try OutputFile.refuseOverwriting(junitPath, option: "junit", inputs: given + actuatorFile)
            failureReport = FailedRunReport(path: junitPath, file: file, startedAt: startedAt)
        }
        let source = try PatternSource.load(argument: file, lenient: lenient)
        for warning in source.warnings { printError("\(warning)") }
        if let junitPath {
            // No input may be replaced: the pattern, the profile file, a sound the pattern plays.
            try OutputFile.refuseOverwriting(
                junitPath, option: "junit", inputs: InputFiles.pattern(source, argument: file) + actuatorFile)
        }
        if loop == .passes(1), port == nil, let pattern = source.pattern {
            try LoopChoice.checkVirtualPlay(of: pattern, rate: rate, source: source)
        }
        if case .passes(let n) = loop, n > 1, let pattern = source.pattern {
            // A pass lasts at least its events (a transient's burst counts too: ≥ the shortest loop).
            let passLength = max(loopEnd ?? pattern.duration, LoopChoice.shortestLoop) / rate
            try LoopChoice.checkLength(passes: n, passLength: passLength, onPort: port != nil)
        }
        if routePath != nil && ports.count < 2 { throw UsageError(message: "--route needs two or more --port") }
        if ports.count > 1 {
            if loop != .passes(1) || loopEnd != nil || junitPath != nil || expectations.maxError != nil || expectations.onsets != nil {
                throw UsageError(
                    message: "with several --port, play takes --rate, --intensity, --actuator, --baud, --no-calibrate, "
                        + "--recalibrate and --json only")
            }
            guard let pattern = source.pattern else {
                throw UsageError(message: "\(source.displayName) is a DRV2605L ROM effect: several devices play patterns only")
            }
            let routes = try routePath.map {
                try DeviceRoutes.read($0, deviceCount: ports.count, eventCount: pattern.events.count)
            }
            return try MultiDevicePlay.run(
                file: file, pattern: pattern, routes: routes, address: address, profile: profile,
                configuration: engineConfiguration, rate: rate, intensity: intensity, recalibrate: recalibrate,
                json: json)
        }
        let target: PlaybackTarget
        let engine: HapticEngine
        let report: PlaybackReport
        let identity: DeviceIdentity
        var settings = PlayOutput.Settings(rate: rate, intensity: intensity, loop: loop)
        settings.patternWarnings = source.warnings
        settings.expectations = expectations
        settings.junitPath = junitPath
        settings.startedAt = startedAt
        settings.recalibrate = recalibrate
        if case .romEffect(let effect) = source.content {
            if rate != 1 || intensity != nil || loop != .passes(1) || loopEnd != nil {
                throw UsageError(message: "\(source.displayName) is a DRV2605L ROM effect: the driver plays it as stored (no --rate, --intensity or --loop)")
            }
            target = try address.target(orVirtual: { .virtual(profile: profile, link: link) })
            let connection = try connect(target: target, profile: profile, configuration: &engineConfiguration, settings: &settings, json: json)
            engine = connection.makeEngine(configuration: engineConfiguration)
            (report, identity) = try playROMEffect(effect, engine: engine, target: target, connection: connection, settings: &settings)
            settings.romEffect = effect
            return finish(
                file: file, profile: profile, identity: identity, report: report, target: target, settings: settings, json: json,
                noPlot: noPlot)
        }
        guard let pattern = source.pattern else { throw CommandFailure(message: "\(source.displayName) has nothing to play") }

        let connection: DeviceConnection
        // From here a signal is reported, also one during the connection or the calibration.
        Interrupt.install()
        target = try address.target(orVirtual: { .virtual(profile: profile, link: link) })
        connection = try connect(target: target, profile: profile, configuration: &engineConfiguration, settings: &settings, json: json)
        engine = connection.makeEngine(configuration: engineConfiguration)
        let audio = PlayAudio.attach(
            to: engine, pattern: pattern, file: file, virtual: target.isVirtual, device: audioDevice, disabled: noAudio)
        // What the run observed before the engine failed (the device disconnected, another host
        // took it): printed with the error, so the events that played are not lost with it.
        var observed: (report: PlaybackReport, identity: DeviceIdentity)?
        do {
            try engine.start()
            recordCalibration(connection, settings: &settings)
            identity = engine.deviceStatus.identity!
            PlayAudio.warmUp(engine)
            let player = try engine.makeAdvancedPlayer(with: pattern)
            player.playbackRate = rate
            if let intensity {
                try player.sendParameters(
                    [HapticDynamicParameter(parameterID: .hapticIntensityControl, value: Float(intensity), relativeTime: 0)],
                    atTime: HapticTimeImmediate)
            }
            if let loopEnd { player.loopEnd = loopEnd }
            let (pass, drive) = engine.passTiming(of: pattern, rate: rate, loopEnd: loopEnd ?? 0)
            let passes: Int
            switch loop {
            case .passes(let n): passes = n
            case .forever: passes = 0
            }
            player.loopEnabled = passes != 1
            // Exactly the passes asked for are scheduled: the stop below may lie past the next
            // pass's start (a last pass's release, a period rounded to the µs schedule).
            player.loopPasses = passes
            let before = engine.counters
            // With sound, far enough ahead for the sound device's latency too.
            let start = engine.currentTime + max(engine.leadTime.seconds + 0.02, (engine.audio?.startLead ?? 0) + 0.005)
            // A signal during the connection or the calibration (`--recalibrate` buzzes for up to
            // 1.2 s): nothing starts, and the report says so.
            let interruptedBeforeStart = Interrupt.requested
            // When a signal stopped the run, in pattern seconds: the events due from then on were
            // stopped by the user, not lost (``PlaybackReport/markStopped(at:)``).
            var stop: UserStop?
            if !interruptedBeforeStart {
                try player.start(atTime: start)
                // The last pass plays out its whole drive (a final transient's burst runs past the period).
                let lastPass = loopEnd == nil ? max(pass, drive) : pass
                if passes > 1 { try player.stop(atTime: start + pass * Double(passes - 1) + lastPass) }
            }
            if interruptedBeforeStart {
                engine.stop()
                engine.exchange(for: .milliseconds(30))
                stop = UserStop.noted(now: -.infinity, start: 0, settings: &settings)
            } else if passes == 0 {
                while !Interrupt.requested && engine.isRunning { engine.run(for: 0.005) }
                stop = UserStop.noted(now: engine.currentTime, start: start, settings: &settings)
                try? player.stop(atTime: HapticTimeImmediate)
                engine.run(for: 0.05)
            } else {
                // One run, asked between its wake-ups whether to stop: no 5 ms slices of its own,
                // which on the virtual device were 200 host wake-ups a second of any wait.
                let timeout = pass * Double(passes) + 5
                let progress = VirtualWaitProgress(
                    enabled: target.isVirtual && isatty(STDERR_FILENO) != 0, start: start, length: pass * Double(passes))
                let finished = engine.runUntilPlayersFinished(timeout: timeout, ringDown: 0) {
                    progress.update { engine.currentTime }
                    return Interrupt.requested || !engine.isRunning
                }
                progress.finish()
                if finished { engine.run(for: 0.04) }
                stop = UserStop.noted(now: engine.currentTime, start: start, settings: &settings)
                if stop != nil {
                    // Silence first (any-lane STOP), then give its acknowledgement a moment.
                    engine.stop()
                    engine.exchange(for: .milliseconds(30))
                }
            }
            // Wait for the last onset reports (the device sends them as segments start).
            engine.waitForOnsetReports(of: player)
            let played = interruptedBeforeStart ? 0 : passes == 0 ? engine.currentTime - start : pass * Double(passes)
            var measured = engine.playbackReport(for: player, pattern: pattern, startTime: start, duration: played, since: before)
            stop?.mark(&measured)
            target.attachTruth(to: &measured)
            report = measured
            settings.takeStatus(of: engine)
            observed = (measured, identity)
            if let audio {
                settings.audioEvents = audio.events(of: engine, playerID: player.playerID, start: start)
                settings.audioText = audio.text(of: engine, playerID: player.playerID, start: start)
            }
            if let error = engine.lastError { throw error }
            engine.stop()
            audio?.replayRecording()
            engine.audio?.close()
        } catch {
            target.close()
            var message = (error as? HapticError)?.message ?? "\(error)"
            // A sound that cannot play: name the file and Core Haptics' code.
            if let h = error as? HapticError, [.badEventEntry, .invalidAudioResource, .fileNotFound].contains(h.code) {
                message = "\(file): \(h.description) (--no-audio plays the haptic events alone)"
            }
            let failure = CommandRouter.jsonError(command: name, kind: "failure", message: message, exitCode: 1)
            if let observed {
                if json {
                    JSONOutput.print(
                        PlayOutput.json(
                            file: file, profile: profile, identity: observed.identity, report: observed.report, target: target,
                            settings: settings
                        ).merging(failure) { _, error in error })
                } else {
                    print(
                        PlayOutput.text(
                            file: file, profile: profile, identity: observed.identity, report: observed.report, target: target,
                            settings: settings))
                }
            } else if json {
                JSONOutput.print(failure)
            }
            throw CommandFailure(message: message, reportedAsJSON: json)
        }
        target.close()
        return finish(
            file: file, profile: profile, identity: identity, report: report, target: target, settings: settings, json: json,
            noPlot: noPlot)
    }

    /// Plays one ROM effect through the driver's sequencer (ROM_EFFECT) and reports its onset.
    static func playROMEffect(
        _ effect: ROMEffect, engine: HapticEngine, target: PlaybackTarget, connection: DeviceConnection, settings: inout PlayOutput.Settings
    ) throws -> (PlaybackReport, DeviceIdentity) {
        do {
            try engine.start()
            recordCalibration(connection, settings: &settings)
            let identity = engine.deviceStatus.identity!
            let before = engine.counters
            let start = engine.currentTime + engine.leadTime.seconds + 0.02
            let mark = try engine.playROMEffect(Int(effect.id), atTime: start)
            engine.run(for: start - engine.currentTime + effect.envelope.duration + 0.05)
            let grace = engine.currentTime + 0.3
            while engine.currentTime < grace && engine.onset(ofROMEffect: mark)?.status == .notReported { engine.run(for: 0.01) }
            let record = engine.onset(ofROMEffect: mark)
            let event = record.map { PlaybackReport.Event(id: 1, type: .hapticTransient, onset: $0, relativeTo: start) }
                ?? PlaybackReport.Event(
                    id: 1, patternIndex: 0, type: .hapticTransient, requestedTime: 0, onsetTime: nil, driveOnsetTime: nil,
                    status: .notReported)
            let now = engine.counters
            var report = PlaybackReport(
                events: [event], bytesSent: now.bytesSent - before.bytesSent, bytesReceived: now.bytesReceived - before.bytesReceived,
                segmentCount: 0,
                startDeviceTime: engine.deviceTime(at: HostTime(seconds: start)),
                duration: effect.envelope.duration)
            report.startHostTime = HostTime(seconds: start)
            target.attachTruth(to: &report)
            settings.roundTripWarnings = engine.linkHealth.roundTripWarnings
            if let error = engine.lastError { throw error }
            engine.stop()
            target.close()
            return (report, identity)
        } catch {
            target.close()
            throw CommandFailure(message: (error as? HapticError)?.message ?? "\(error)")
        }
    }

    /// Connects (identify, CONFIGURE_DRIVER) and settles calibration: when the device says its
    /// driver is calibrated since reset and the user's store holds a calibration made for the same
    /// inputs, the engine does not calibrate again; when the driver lost it (a reset) and the kept
    /// one is restorable, it is written back (RESTORE_CALIBRATION) instead of calibrating
    /// (`--no-calibrate` does neither, `--recalibrate` calibrates regardless).
    static func connect(
        target: PlaybackTarget, profile: ActuatorProfile, configuration: inout HapticEngine.Configuration,
        settings: inout PlayOutput.Settings, json: Bool
    ) throws -> DeviceConnection {
        let connection: DeviceConnection
        do {
            connection = try DeviceConnection.open(target: target, profile: profile)
        } catch let failure as CommandFailure {
            if json { JSONOutput.print(CommandRouter.jsonError(command: name, kind: "failure", message: failure.message, exitCode: 1)) }
            var reported = failure
            reported.reportedAsJSON = json
            throw reported
        }
        if settings.recalibrate {
            return connection  // the engine calibrates in start()
        }
        if configuration.calibrateOnStart, let record = connection.stillValid {
            configuration.calibrateOnStart = false
            settings.calibration = .init(source: .stored, record: record, report: nil)
        } else if configuration.calibrateOnStart, let record = connection.restoreIfLost() {
            configuration.calibrateOnStart = false
            settings.calibration = .init(source: .restored, record: record, report: nil)
        } else if !configuration.calibrateOnStart {
            settings.calibration = .init(source: .none, record: nil, report: nil)
        }
        return connection
    }

    /// After `start()`: a calibration that ran is kept (passed) or forgotten (failed).
    static func recordCalibration(_ connection: DeviceConnection, settings: inout PlayOutput.Settings) {
        guard settings.calibration == nil else { return }
        guard let report = connection.status.calibrationResult else {
            settings.calibration = .init(source: .none, record: nil, report: nil)
            return
        }
        _ = connection.remember(report)
        settings.calibration = .init(source: .ran, record: nil, report: report)
    }

    /// The JUnit report of a playback that never produced a report (no device, link failure):
    /// one test case in error, so the CI job shows why.
    static func writeFailedJUnit(to path: String, file: String, message: String, startedAt: Date) throws {
        let writer = JUnitReport(
            suiteName: "thrum play \(file)", className: junitClassName(file), report: PlaybackReport(
                events: [], bytesSent: 0, bytesReceived: 0, segmentCount: 0, startDeviceTime: .zero, duration: 0),
            expectations: PlaybackExpectations(), outcome: PlaybackExpectations().check(
                PlaybackReport(events: [], bytesSent: 0, bytesReceived: 0, segmentCount: 0, startDeviceTime: .zero, duration: 0)),
            properties: [], timestamp: startedAt, elapsed: Date().timeIntervalSince(startedAt), hasTruth: false)
        try OutputFile.write(writer.errorXML(message: message), to: path, what: "JUnit report")
    }

    /// `thrum.play.<file name without extension>`: CI systems group test cases by class name.
    static func junitClassName(_ file: String) -> String {
        let base = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        let cleaned = String(base.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        return "thrum.play." + (cleaned.isEmpty ? "pattern" : cleaned)
    }

    static func finish(
        file: String, profile: ActuatorProfile, identity: DeviceIdentity, report: PlaybackReport, target: PlaybackTarget,
        settings: PlayOutput.Settings, json: Bool, noPlot: Bool
    ) -> Int32 {
        let trace = target.accelerationTrace(report: report)
        if json {
            JSONOutput.print(
                PlayOutput.json(file: file, profile: profile, identity: identity, report: report, target: target, settings: settings))
        } else {
            print(PlayOutput.text(file: file, profile: profile, identity: identity, report: report, target: target, settings: settings))
            if !noPlot, let trace {
                print()
                print(
                    TerminalPlot(title: "actuator acceleration", unit: "G").render(
                        samples: trace.samples, start: trace.start, end: trace.end,
                        markers: report.events.filter(\.type.isHaptic).map(\.requestedTime)))
            }
        }
        let outcome = settings.expectations.check(report)
        if let path = settings.junitPath {
            var properties: [(String, String)] = [
                ("target", target.isVirtual ? "virtual" : target.name), ("profile", profile.id),
                ("device_id", DeviceDescription.hex(identity.deviceId)), ("firmware", DeviceDescription.firmware(identity)),
            ]
            if let n = settings.expectations.maxError { properties.append(("expect_max_error_us", String(format: "%.0f", n * 1e6))) }
            if let k = settings.expectations.onsets { properties.append(("expect_onsets", "\(k)")) }
            let writer = JUnitReport(
                suiteName: "thrum play \(file)", className: junitClassName(file), report: report, expectations: settings.expectations,
                outcome: outcome, properties: properties, timestamp: settings.startedAt,
                elapsed: Date().timeIntervalSince(settings.startedAt), hasTruth: target.isVirtual)
            do {
                try OutputFile.write(writer.xml(), to: path, what: "JUnit report")
            } catch {
                printError(error.message)
                return 1
            }
        }
        // Anything short of every event on time is said plainly, and fails the exit status.
        var problems = 0
        for fault in settings.earlierFaults {
            printError("note: before this run, the device reported fault \(fault.code): \(fault.meaning) (not this run's; not counted)")
        }
        for fault in settings.faults {
            printError("the device reported fault \(fault.code): \(fault.meaning)")
            problems += 1
        }
        for fault in report.faults {
            guard fault.failsRun else {
                printError("note: \(fault.message); \(PlayOutput.harmlessGapNote)")
                continue
            }
            printError(fault.message)
            problems += 1
        }
        for event in report.events where event.type.isHaptic && event.status != .onTime {
            let at = String(format: "%.3f s", event.requestedTime)
            let reason: String
            switch event.status {
            case .lateTrimmed: reason = "the device reached it late and trimmed its start"
            case .dropped: reason = "the device dropped it (reached after its time window, or taken over before it drove)"
            case .notReported: reason = "no onset report came back (lost on the link, or the device never started it)"
            case .lostInReset: reason = "the device reset before it played (its drive was lost with the reset)"
            case .cutByReset: reason = "it started, but the device reset while it played and cut it short"
            case .driveGap:
                reason = "its drive had a hole: the host fell behind and its drive reached the device late or not at all, or the device dropped drive it reached late"
            case .notPlayed: reason = "it was never sent to the device"
            case .cutByClockMove:
                let restart = event.scheduleRestart.map { String(format: " at %.3f s", $0) } ?? ""
                reason = "the device clock moved under its queued drive and the host restarted the schedule on the clock as it now is\(restart): "
                    + "the cut removed this event's start before it played (what of its drive lay after the restart played, without it)"
            case .refusedByDevice:
                reason = "the device dropped the rest of its stored preset before queuing it (FAULT 11) and it never played"
            case .mistimed:
                let off = event.onsetTime.map { String(format: " %+.1f ms", ($0 - event.requestedTime) * 1e3) } ?? ""
                reason = "it played\(off) from its time on this host's clock, beyond its bound (on time by the device's own clock: that clock moved, or the time it was given was off)"
            case .stopped: continue  // asked for by the user: said once below, no problem of the run's
            case .onTime: continue
            }
            printError("event \(event.patternIndex) at \(at): \(event.status.rawValue): \(reason)")
            problems += 1
        }
        if let line = UserStop.line(report: report, settings: settings) { printError(line) }
        if let signal = settings.interruptedBy {
            printError("interrupted (signal \(signal)): the actuator was stopped")
            if settings.loop != .forever { return 128 + signal }
        }
        if let reason = outcome.summary {
            printError("expectation missed: \(reason)")
            return 3
        }
        return problems == 0 ? 0 : 1
    }
}

/// `--loop`: a number of passes, or until interrupted.
enum LoopChoice: Equatable {
    case passes(Int)
    case forever

    /// The shortest `--loop-end` (s): one transient's burst (two or three LRA cycles with
    /// overdrive and braking, ≈ 10 ms). A shorter loop would cut every pass's drive before its
    /// brake, and send passes faster than a serial link carries them.
    /// It bounds a pass's real length, `--loop-end` over `--rate`: at `--rate 100` a loop end of
    /// 0.01 pattern seconds would be a pass of 0.1 ms.
    static let shortestLoop = 0.01

    /// Refuses a `--loop-end` whose pass, `loopEnd / rate` s of real time, is shorter than
    /// ``shortestLoop``: a usage error naming the option, the rate and the least loop end it takes.
    static func checkLoopEnd(_ loopEnd: Double, rate: Double) throws(UsageError) {
        // A relative slack, so that 0.03 at --rate 3 (0.009999… s in floating point) is 10 ms.
        guard loopEnd / rate < shortestLoop * (1 - 1e-9) else { return }
        let pass = String(format: "%.6g ms", loopEnd / rate * 1e3)
        let least = String(format: "%g", shortestLoop * rate)
        let atRate = rate == 1 ? "" : " at --rate \(String(format: "%g", rate))"
        throw UsageError(
            message: "--loop-end \(String(format: "%g", loopEnd))\(atRate) makes each pass \(pass) of real time (loop end / rate); "
                + "a pass lasts at least \(Int(shortestLoop * 1e3)) ms (one transient's burst): give --loop-end \(least) or more\(atRate)")
    }

    /// The most passes `--loop N` takes (more is `--loop forever`).
    static let mostPasses = 1_000_000_000
    /// The longest looped play on the virtual device (s of pattern time): it runs in virtual
    /// time, as fast as it can, so a play must end; longer loops need a real device (`--port`),
    /// as `--loop forever` does. A loop's cost follows its passes' drive, which the simulated
    /// chip integrates step by step.
    static let longestVirtualPlay = 3_600.0
    /// The latest start of one pass's last event on the virtual device (s of pattern time, over
    /// `--rate`): a day, the latest `Time` an AHAP event may have at rate 1. A wait costs the
    /// host's relaxed pings and the virtual device's passes for them (≈ 0.15 ms of CPU a second
    /// waited, release build: a transient at 86 400 s takes ≈ 12 s, in constant memory;
    /// docs/robustness.md), so only a slower rate that puts it later is refused.
    static let latestVirtualStart = 86_400.0
    /// The longest looped play on a device (s): ≈ 3 years, far inside the engine's 64-bit µs
    /// schedule (longer is `--loop forever`, stopped with Ctrl-C).
    static let longestPlay = 1e8

    /// Refuses `passes` passes of `passLength` s that last longer than a play may (a usage error
    /// naming the limit).
    static func checkLength(passes: Int, passLength: Double, onPort: Bool) throws(UsageError) {
        let total = Double(passes) * passLength
        let seconds = String(format: "%.6g s", total)
        if !onPort && total > longestVirtualPlay {
            throw UsageError(
                message: "--loop \(passes) plays \(seconds) of pattern; the virtual device (virtual time) plays loops of at most "
                    + "\(Int(longestVirtualPlay)) s: give --port to play longer (as --loop forever needs)")
        }
        if total > longestPlay {
            throw UsageError(
                message: "--loop \(passes) plays \(seconds) of pattern, beyond \(String(format: "%.0e", longestPlay)) s: "
                    + "use --loop forever (Ctrl-C stops it)")
        }
    }

    /// Refuses one pass on the virtual device whose last event starts, or whose continuous
    /// haptic event ends, more than ``latestVirtualStart`` s in (over `rate`): the virtual device
    /// passes its idle stretches at once and the host wakes for its relaxed pings only, yet each
    /// ping is a round trip in virtual time (≈ 0.15 ms of CPU a second waited), so a wait longer
    /// than a day, which only a slowed rate can give, is not started. A `HapticContinuous`
    /// driving longer than ``longestVirtualPlay`` s is refused too: its drive, unlike a wait, is
    /// integrated by the simulated chip step by step (30 s of it took 64 s of CPU, debug build),
    /// the cost the same limit bounds for loops. A usage error naming the event's field path and
    /// the limit, where the file has it (`file:line:column: Pattern[i].Event.EventDuration`);
    /// `render` draws such a pattern without playing it.
    static func checkVirtualPlay(of pattern: HapticPattern, rate: Double, source: PatternSource) throws(UsageError) {
        let time = "relativeTime", timeKeys: [HapticPattern.Key] = [.time, .eventTime]
        if let last = pattern.events.indices.max(by: { pattern.events[$0].relativeTime < pattern.events[$1].relativeTime }),
            case let lastStart = pattern.events[last].relativeTime / rate, lastStart > latestVirtualStart
        {
            throw UsageError(
                message: "\(source.place(ofEvent: last, field: time, keys: timeKeys)): the pattern plays its last event "
                    + "\(String(format: "%.6g s", lastStart)) in; the virtual device (virtual time) plays "
                    + "at most \(Int(latestVirtualStart)) s: give --port to play it on a device (thrum render draws it)")
        }
        for (k, event) in pattern.events.enumerated() where event.type == .hapticContinuous {
            let drive = event.duration / rate, end = (event.relativeTime + event.duration) / rate
            // Named by the duration the file gives, or by its time when it gives none.
            let place = { source.place(ofEvent: k, field: "duration", keys: [.eventDuration] + timeKeys) }
            if end > latestVirtualStart {
                throw UsageError(
                    message: "\(place()): a HapticContinuous ending \(String(format: "%.6g s", end)) in; the virtual "
                        + "device (virtual time) plays at most \(Int(latestVirtualStart)) s: give --port to play it on a device (thrum render draws it)")
            }
            if drive > longestVirtualPlay {
                throw UsageError(
                    message: "\(place()): a HapticContinuous driving \(String(format: "%.6g s", drive)); the virtual "
                        + "device (virtual time) drives at most \(Int(longestVirtualPlay)) s, which its simulated chip integrates step by "
                        + "step: give --port to play it on a device (thrum render draws it)")
            }
        }
    }

    init?(text: String) {
        if text == "forever" {
            self = .forever
        } else if let n = Int(text), n >= 1, n <= Self.mostPasses {
            self = .passes(n)
        } else {
            return nil
        }
    }
}
