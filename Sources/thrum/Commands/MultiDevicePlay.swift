import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumPattern

/// `thrum play FILE --port A --port B …`: the pattern on several devices against one host
/// timeline (``HapticEngineGroup``), each device's onsets reported as for one device, and the skew
/// of every device's onsets against the first one's, with the bound the two reports guarantee.
enum MultiDevicePlay {
    static func run(
        file: String, pattern: HapticPattern, routes: DeviceRoutes?, address: DeviceAddressOptions, profile: ActuatorProfile,
        configuration: HapticEngine.Configuration, rate: Double, intensity: Double?, recalibrate: Bool = false,
        json: Bool
    ) throws -> Int32 {
        let ports = address.ports
        Interrupt.install()  // a stop signal from here on stops every device and reports (UserStop)
        var targets: [PlaybackTarget] = []
        defer { for target in targets { target.close() } }
        var engines: [HapticEngine] = []
        var settings: [PlayOutput.Settings] = []
        for port in ports {
            let target = try address.open(port)
            targets.append(target)
            var engineConfiguration = configuration
            var deviceSettings = PlayOutput.Settings(rate: rate, intensity: intensity, loop: .passes(1))
            deviceSettings.recalibrate = recalibrate
            let connection = try PlayCommand.connect(
                target: target, profile: profile, configuration: &engineConfiguration, settings: &deviceSettings, json: json)
            engines.append(connection.makeEngine(configuration: engineConfiguration))
            settings.append(deviceSettings)
        }
        let group = HapticEngineGroup(engines)
        let reports: [PlaybackReport]
        let skews: [OnsetSkew]
        do {
            try group.start()
            let before = engines.map(\.counters)
            let patterns = routes.map { r in ports.indices.map { r.pattern(for: $0, of: pattern) } } ?? [pattern]
            let playback = try GroupPlayback.begin(group, patterns: patterns, rate: rate, intensity: intensity)
            let duration = engines[0].driveDuration(of: pattern, rate: rate)
            // Asked every 10 ms whether the user stopped the run (Ctrl-C, SIGTERM, SIGQUIT).
            playback.run(timeout: duration + 5) { !Interrupt.requested }
            let stop = UserStop.noted(now: group.currentTime, start: playback.start, settings: &settings)
            if stop != nil {
                // Silence every device first (any-lane STOP), then give the acknowledgements a moment.
                group.stop()
                for engine in engines { engine.exchange(for: .milliseconds(30)) }
            }
            reports = engines.indices.map { k in
                var report = engines[k].playbackReport(
                    for: playback.players[k], pattern: playback.pattern(of: k), startTime: playback.start, duration: duration, since: before[k])
                // Routed: each device's events carry their index in the whole pattern.
                if let routes {
                    for i in report.events.indices where report.events[i].patternIndex < routes.events[k].count {
                        report.events[i].patternIndex = routes.events[k][report.events[i].patternIndex]
                    }
                }
                stop?.mark(&report)
                return report
            }
            skews = playback.skews(eventIndices: routes?.events)
            if let error = engines.compactMap(\.lastError).first { throw error }
            for k in engines.indices { settings[k].takeStatus(of: engines[k]) }
            group.stop()
        } catch {
            let message = (error as? HapticError)?.message ?? "\(error)"
            if json { JSONOutput.print(CommandRouter.jsonError(command: "play", kind: "failure", message: message, exitCode: 1)) }
            throw CommandFailure(message: message, reportedAsJSON: json)
        }
        let identities = engines.map { $0.deviceStatus.identity! }
        let summary = SkewSummary(skews)
        if json {
            let object: [String: Any] = [
                "file": file,
                "devices": engines.indices.map { k in
                    PlayOutput.json(
                        file: file, profile: profile, identity: identities[k], report: reports[k], target: targets[k], settings: settings[k])
                        .merging(["port": ports[k]]) { a, _ in a }
                },
                "skews": skews.map(SkewSummary.json),
            ]
            JSONOutput.print(object.merging(summary.p99JSON) { a, _ in a })
        } else {
            for k in engines.indices {
                print("== device \(k): \(ports[k])")
                print(PlayOutput.text(file: file, profile: profile, identity: identities[k], report: reports[k], target: targets[k], settings: settings[k]))
                print()
            }
            for line in summary.lines(reference: "device 0") { print(line) }
        }
        // Events the user stopped fail nothing: said once per device, with the signal's exit status.
        let notOnTime = reports.contains { $0.events.contains { $0.type.isHaptic && ![.onTime, .stopped].contains($0.status) } }
        let faulted = settings.contains { !$0.faults.isEmpty } || reports.contains { $0.faults.contains(where: \.failsRun) }
        for (k, report) in reports.enumerated() {
            for fault in report.faults {
                printError(fault.failsRun ? "device \(k): \(fault.message)" : "note: device \(k): \(fault.message); \(PlayOutput.harmlessGapNote)")
            }
        }
        for (k, report) in reports.enumerated() {
            if let line = UserStop.line(report: report, settings: settings[k]) { printError("device \(k): \(line)") }
        }
        if let signal = settings.first?.interruptedBy {
            printError("interrupted (signal \(signal)): the actuators were stopped")
            return 128 + signal
        }
        return notOnTime || faulted ? 1 : 0
    }
}
