import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumPattern
import ThrumTime
import ThrumWire

/// The text and JSON reports of `thrum play`.
enum PlayOutput {
    /// How the pattern was played (`--rate`, `--intensity`, `--loop`).
    struct Settings {
        var rate: Double
        var intensity: Double?
        var loop: LoopChoice
        /// The ROM effect played instead of a pattern.
        var romEffect: ROMEffect? = nil
        /// Faults the device reported during the session.
        var faults: [FaultReport] = []
        /// Faults the device reported from before this run (read before it answered IDENTIFY):
        /// said, but they do not fail the run.
        var earlierFaults: [FaultReport] = []
        /// The signal that interrupted playback, if one did.
        var interruptedBy: Int32? = nil
        /// `--expect-max-error-us`, `--expect-onsets`.
        var expectations = PlaybackExpectations()
        /// `--junit FILE`.
        var junitPath: String? = nil
        /// When the command started (the JUnit report's timestamp).
        var startedAt = Date()
        /// How calibration was settled at connect (nil before it was).
        var calibration: CalibrationSummary? = nil
        /// `--recalibrate`: run the auto-calibration at connect even when a kept one is valid.
        var recalibrate = false
        /// The audio events played (nil: no audio path: `--no-audio`, or none in the pattern).
        var audioEvents: [[String: Any]]? = nil
        /// The audio report's text lines.
        var audioText: [String] = []
        /// The stored preset played instead of a pattern (`thrum play id:N`).
        var storedPreset: StoredPresetInfo? = nil
        /// The AHAP reader's warnings about the file (said on standard error as it was read).
        var patternWarnings: [PatternWarning] = []
        /// The long round trips said during the run, at connect and as the link grew slower
        /// (``RoundTripWarning``; said on standard error as they were found).
        var roundTripWarnings: [RoundTripWarning] = []

        /// What the device reported and the link found during the run: faults, earlier faults,
        /// long round trips. A FAULT 12 is left out of `faults`: it is told as the hole in the
        /// drive it opened (a `drive_gap` run fault, ``RunFault/byDevice``), by that one's rule.
        mutating func takeStatus(of engine: HapticEngine) {
            let status = engine.deviceStatus
            faults = status.faults.filter { $0.knownCode != .driveDropped }
            earlierFaults = status.earlierFaults
            roundTripWarnings = engine.linkHealth.roundTripWarnings
        }

        /// The type a report shows for `event`.
        func typeName(_ event: PlaybackReport.Event) -> String {
            if romEffect != nil { return "ROMEffect" }
            if storedPreset != nil { return "StoredPreset" }
            return event.type.rawValue
        }

        var summary: String? {
            var parts: [String] = []
            if rate != 1 { parts.append("rate \(rate)×") }
            if let romEffect { parts.append("DRV2605L ROM effect \(romEffect.id) (\(romEffect.name)) through the driver's sequencer") }
            if let storedPreset {
                parts.append("stored preset \(storedPreset.id) '\(storedPreset.name)' of library '\(storedPreset.library)', played by the device from its storage (PLAY_PRESET)")
            }
            if let intensity { parts.append("intensity control \(intensity)") }
            switch loop {
            case .passes(1): break
            case .passes(let n): parts.append("\(n) passes")
            case .forever: parts.append("looped until interrupted")
            }
            return parts.isEmpty ? nil : parts.joined(separator: ", ")
        }
    }

    static func text(
        file: String, profile: ActuatorProfile, identity: DeviceIdentity, report: PlaybackReport, target: PlaybackTarget,
        settings: Settings
    ) -> String {
        var lines: [String] = []
        lines.append("\(file) on \(target.name)")
        if let summary = settings.summary { lines.append("playback: \(summary)") }
        lines.append(
            "device: \(DeviceDescription.driverName(Int(identity.driverId))), firmware \(DeviceDescription.firmware(identity)), "
                + "protocol \(identity.protocolVersion), id \(DeviceDescription.hex(identity.deviceId))")
        lines.append("actuator profile: \(profile.name) (\(profile.id))")
        if let calibration = settings.calibration { lines.append(calibration.text) }
        let haptic = report.events.filter(\.type.isHaptic).count
        if settings.storedPreset != nil {
            lines.append(
                "one PLAY_PRESET for \(counted(haptic, "haptic event")) stored on the device, \(report.bytesSent) bytes on the wire "
                    + "(\(report.bytesReceived) bytes back, the library read included)")
        } else {
            lines.append(
                "sent \(haptic) haptic events as \(report.segmentCount) segments, \(report.bytesSent) bytes on the wire "
                    + "(\(report.bytesReceived) bytes back)")
        }
        lines.append("")
        let truth = target.isVirtual
        lines.append(
            "  #  type               requested     onset        error ± bound           status" + (truth ? "    true error" : ""))
        // Played audio events are listed in their own table below.
        for event in report.events where settings.audioEvents == nil || event.type.isHaptic {
            let type = settings.typeName(event).padding(toLength: 17, withPad: " ", startingAt: 0)
            let requested = milliseconds(event.requestedTime)
            let onset = event.onsetTime.map(milliseconds) ?? "—".padding(toLength: 10, withPad: " ", startingAt: 0)
            var error = event.onsetTime.map { String(format: "%+7.0f µs", ($0 - event.requestedTime) * 1e6) } ?? "          "
            error += event.onsetBound.map { String(format: " ± %5.0f µs", $0 * 1e6) } ?? "           "
            let status = event.status.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
            let trueError = truth ? (event.trueOnsetTime.map { String(format: "%+7.0f µs", ($0 - event.requestedTime) * 1e6) } ?? "      —") : ""
            let pass = event.pass > 0 ? "  (pass \(event.pass + 1))" : ""
            lines.append(
                String(format: "%3d", event.patternIndex) + "  \(type)  \(requested)  \(onset)  \(error)\(event.boundSuspect ? "? " : "  ")\(status)\(trueError)" + pass)
        }
        if !settings.audioText.isEmpty {
            lines.append("")
            lines.append(contentsOf: settings.audioText)
        }
        if settings.expectations != PlaybackExpectations() {
            let outcome = settings.expectations.check(report)
            var rules: [String] = []
            if let n = settings.expectations.maxError { rules.append(String(format: "|error| + bound ≤ %.0f µs", n * 1e6)) }
            if let k = settings.expectations.onsets { rules.append("\(k) onsets") }
            let worst = outcome.worstErrorPlusBound.map { String(format: "; worst |error| + bound %.0f µs", $0 * 1e6) } ?? ""
            lines.append("")
            lines.append(
                "expectations (\(rules.joined(separator: ", "))): " + (outcome.passed ? "passed" : "MISSED")
                    + " — \(outcome.reportedOnsets) onsets reported\(worst)")
        }
        if report.events.contains(where: \.boundSuspect) {
            lines.append("")
            lines.append(
                "? = bound suspect: the device's clock samples contradicted each other near this onset (a stamp later than its "
                    + "acknowledgement left, or a device clock that stalled or stepped, and until it showed itself steady again); "
                    + "the bracket was widened, but it is not a guarantee")
        }
        lines.append("")
        lines.append(
            "error = reported onset − requested; ± = the clock model's guaranteed bracket from the link's acknowledgements"
                + (truth ? "; true error = the simulated chip's first non-zero drive − requested" : ""))
        return lines.joined(separator: "\n")
    }

    static func json(
        file: String, profile: ActuatorProfile, identity: DeviceIdentity, report: PlaybackReport, target: PlaybackTarget,
        settings: Settings
    ) -> [String: Any] {
        func entry(_ event: PlaybackReport.Event) -> [String: Any] {
            [
                "index": event.patternIndex,
                "type": settings.typeName(event),
                "requested_s": JSONOutput.seconds(event.requestedTime),
                "onset_s": JSONOutput.orNull(event.onsetTime.map(JSONOutput.seconds)),
                "drive_onset_s": JSONOutput.orNull(event.driveOnsetTime.map(JSONOutput.seconds)),
                "onset_bound_s": JSONOutput.orNull(event.onsetBound.map(JSONOutput.seconds)),
                "bound_suspect": event.boundSuspect,
                "true_onset_s": JSONOutput.orNull(event.trueOnsetTime.map(JSONOutput.seconds)),
                "true_drive_onset_s": JSONOutput.orNull(event.trueDriveOnsetTime.map(JSONOutput.seconds)),
                "device_onset_us": JSONOutput.orNull(event.deviceOnset.map { Double($0.microseconds) }),
                "error_us": JSONOutput.orNull(event.onsetTime.map { (($0 - event.requestedTime) * 1e6).rounded() }),
                "status": event.status.rawValue,
                "schedule_restart_s": JSONOutput.orNull(event.scheduleRestart.map(JSONOutput.seconds)),
                "pass": event.pass,
            ]
        }
        // `events` lists the haptic events the actuator plays and the audio events the sound device
        // played (type, requested_s, onset_s); audio events not played (--no-audio) are kept apart.
        let events = report.events.filter(\.type.isHaptic).map(entry) + (settings.audioEvents ?? [])
        let audio = settings.audioEvents == nil ? report.events.filter { !$0.type.isHaptic }.map(entry) : []
        var rom: Any = NSNull()
        if let effect = settings.romEffect { rom = ["id": Int(effect.id), "name": effect.name] as [String: Any] }
        var stored: Any = NSNull()
        if let preset = settings.storedPreset {
            stored = ["id": Int(preset.id), "name": preset.name, "library": preset.library] as [String: Any]
        }
        return [
            "rom_effect": rom,
            "stored_preset": stored,
            "audio_events_not_played": audio,
            "file": file,
            "target": target.isVirtual ? "virtual" : target.name,
            "profile": profile.id,
            "device": DeviceDescription.json(identity),
            "events": events,
            "bytes_on_wire": report.bytesSent,
            "bytes_from_device": report.bytesReceived,
            "segments": report.segmentCount,
            "duration_s": JSONOutput.seconds(report.duration),
            "start_host_s": report.startHostTime.seconds,
            // Where `requested_s` 0 lies: on the host's CLOCK_MONOTONIC and on the device clock, so a
            // test can hold onsets against an independent truth (the AVR simulation's trace).
            "start_host_monotonic_ns": report.startHostTime.nanoseconds,
            "start_device_time_us": report.startDeviceTime.microseconds,
            "rate": settings.rate,
            "intensity": JSONOutput.orNull(settings.intensity),
            "passes": settings.loop == .forever ? "forever" as Any : passesCount(settings.loop),
            "faults": settings.faults.map(faultJSON) + report.faults.map(runFaultJSON),
            "earlier_faults": settings.earlierFaults.map(faultJSON),
            "warnings": settings.patternWarnings.map(ValidateCommand.json)
                + settings.roundTripWarnings.map { roundTripJSON($0, start: report.startHostTime) },
            "interrupted_by_signal": JSONOutput.orNull(settings.interruptedBy.map { Int($0) }),
            "expectations": expectationsJSON(settings.expectations, report: report),
            "calibration": JSONOutput.orNull(settings.calibration?.json),
        ]
    }

    /// A device's FAULT report in `faults` / `earlier_faults`.
    static func faultJSON(_ fault: FaultReport) -> [String: Any] {
        ["kind": "device_fault", "code": Int(fault.code), "detail": Int(fault.detail), "meaning": fault.meaning]
    }

    /// A long round trip in `warnings` (`code` `longRoundTrip`), `at_s` in pattern seconds from
    /// the play's start (negative: before it, as at connect).
    static func roundTripJSON(_ warning: RoundTripWarning, start: HostTime) -> [String: Any] {
        [
            "code": "longRoundTrip",
            "message": warning.message,
            "at_s": JSONOutput.seconds((warning.hostTime - start).seconds),
            "at_connect": warning.atConnect,
            "round_trip_ms": RoundTripWarning.milliseconds(warning.roundTrip),
            "queue_slots": warning.queueSlots,
            "segments_per_s": warning.segmentsPerSecond,
            "chunk_ms": RoundTripWarning.milliseconds(warning.chunk),
            "transients_closer_than_ms": RoundTripWarning.milliseconds(warning.densestSpacing),
        ]
    }

    /// What is said after a hole in the drive that hit no event (``RunFault/failsRun`` false).
    static let harmlessGapNote =
        "it hit no event (each began on time; the hole cut only the end of a drive already under way, which the device ends with 0, the driver braking), so the run does not fail"

    /// A fault the host noticed (device reset, drive gap) in `faults`, times in pattern seconds.
    static func runFaultJSON(_ fault: RunFault) -> [String: Any] {
        var entry: [String: Any] = ["kind": fault.name, "meaning": fault.message]
        switch fault.kind {
        case .deviceReset(let after, let before):
            entry["after_s"] = JSONOutput.seconds(after)
            entry["before_s"] = JSONOutput.seconds(before)
            entry["played_after"] = fault.playedAfter
        case .driveGap(let start, let length):
            entry["start_s"] = JSONOutput.seconds(start)
            entry["length_s"] = JSONOutput.seconds(length)
            entry["events_hit"] = JSONOutput.orNull(fault.eventsHit)
            entry["opened_by"] = fault.byDevice ? "device" : "host"
        }
        return entry
    }

    /// `expectations`: null without --expect-*; else the rules, `passed`, the one-line `reason`
    /// (null when passed), `reported_onsets` and `worst_error_plus_bound_us`.
    static func expectationsJSON(_ expectations: PlaybackExpectations, report: PlaybackReport) -> Any {
        guard expectations != PlaybackExpectations() else { return NSNull() }
        let outcome = expectations.check(report)
        return [
            "max_error_us": JSONOutput.orNull(expectations.maxError.map { ($0 * 1e6).rounded() }),
            "onsets": JSONOutput.orNull(expectations.onsets),
            "passed": outcome.passed,
            "reason": JSONOutput.orNull(outcome.summary),
            "reported_onsets": outcome.reportedOnsets,
            "worst_error_plus_bound_us": JSONOutput.orNull(outcome.worstErrorPlusBound.map { ($0 * 1e6).rounded() }),
            "failed_events": outcome.eventFailures.map { report.events[$0.reportIndex].patternIndex },
        ] as [String: Any]
    }

    private static func passesCount(_ loop: LoopChoice) -> Any {
        if case .passes(let n) = loop { return n }
        return "forever"
    }

    private static func milliseconds(_ seconds: Double) -> String {
        // Whole microseconds, and never "-0.00" for a time that is zero up to rounding.
        String(format: "%8.2f ms", JSONOutput.seconds(seconds) * 1000 + 0.0)
    }
}

/// How `thrum play` settled calibration at connect.
struct CalibrationSummary {
    var source: DeviceConnection.CalibrationSource
    /// The kept calibration it relied on (source `stored`).
    var record: StoredCalibration?
    /// The result of the calibration it ran (source `ran`).
    var report: CalibrationReport?

    var text: String {
        switch source {
        case .stored:
            let hz = record?.resonanceHz.map { String(format: ", %.1f Hz", $0) } ?? ""
            return "calibration: kept from \(record?.calibratedAt ?? "before")\(hz) (the driver still holds it; not redone)"
        case .restored:
            let hz = record?.resonanceHz.map { String(format: ", %.1f Hz", $0) } ?? ""
            return "calibration: kept from \(record?.calibratedAt ?? "before")\(hz), "
                + "restored into the driver after its reset (RESTORE_CALIBRATION; not redone)"
        case .ran:
            guard let report else { return "calibration: ran" }
            let hz = report.resonanceHz.map { String(format: ", resonance %.1f Hz", $0) } ?? ""
            return "calibration: ran, " + (report.passed ? "passed" : "FAILED (playing on the driver's default words)") + hz
        case .none:
            return "calibration: none"
        }
    }

    var json: [String: Any] {
        [
            "source": source.rawValue,
            "passed": JSONOutput.orNull(
                report.map(\.passed) ?? (source == .stored || source == .restored ? true : nil)),
            "resonance_hz": JSONOutput.orNull((report?.resonanceHz ?? record?.resonanceHz).map { ($0 * 10).rounded() / 10 }),
            "calibrated_at": JSONOutput.orNull(record?.calibratedAt),
        ]
    }
}

/// How a device's identity is shown.
enum DeviceDescription {
    static func driverName(_ id: Int) -> String {
        switch id {
        case 7: return "DRV2605L"
        case 3: return "DRV2605"
        case 4: return "DRV2604"
        case 6: return "DRV2604L"
        case 0: return "no driver"
        default: return "driver id \(id)"
        }
    }

    static func firmware(_ identity: DeviceIdentity) -> String {
        "\(identity.fwMajor).\(identity.fwMinor).\(identity.fwPatch)"
    }

    static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16, uppercase: true) }

    static func json(_ identity: DeviceIdentity) -> [String: Any] {
        [
            "protocol_version": Int(identity.protocolVersion),
            "firmware_version": firmware(identity),
            "device_id": hex(identity.deviceId),
            "clock_hz": Int(identity.clockHz),
            "queue_slots": Int(identity.queueSlots),
            "rx_buffer": Int(identity.rxBuffer),
            "max_payload": Int(identity.maxPayload),
            "driver_id": Int(identity.driverId),
            "driver": driverName(Int(identity.driverId)),
        ]
    }
}

/// The stored preset `thrum play id:N` played.
struct StoredPresetInfo {
    var id: UInt16
    var name: String
    var library: String
}
