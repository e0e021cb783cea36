import Foundation
import ThrumCompiler
import ThrumPattern
import ThrumStudio

/// What `thrum studio` tells the page about a pattern and how it plays it: the events and
/// diagnostics from the AHAP reader `thrum validate` uses, the requested envelopes, the compiled
/// drive and the acceleration from ``PatternPreview`` (the code path of `thrum render`), and
/// plays on the chosen ``StudioDevice``s, one play at a time: two or more ports on one host
/// timeline (as `thrum play --port A --port B`), the virtual device or a single port each on a
/// thread of its own.
final class StudioBackend: ThrumStudio.StudioBackend, @unchecked Sendable {
    /// The most points per curve sent to the page (each the peak of its stretch of rows).
    static let curvePoints = 1_500

    /// The devices a play may go to: the virtual device first, then each `--port`.
    private let devices: [StudioDevice]
    /// Where a play goes when the page names no device: the ports, or the virtual device without one.
    private let defaultDevices: [String]
    private let baseDirectory: String
    private let lock = NSLock()
    private var playing: (id: Int, stop: Bool, running: Int)?
    private var plays = 0
    /// The last play's end message (`play-ended`), for `/api/status`.
    private var lastPlay: [String: Any]?

    /// The studio's profile (of the drive and acceleration drawn) is the first device's.
    private var device: StudioDevice { devices[0] }

    init(devices: [StudioDevice], baseDirectory: String) {
        precondition(!devices.isEmpty, "the studio has a device")
        self.devices = devices
        let ports = devices.filter { !$0.isVirtual }.map(\.id)
        defaultDevices = ports.isEmpty ? [devices[0].id] : ports
        self.baseDirectory = baseDirectory
    }

    /// Each device as the page lists it.
    private var deviceList: [[String: Any]] {
        devices.map { ["id": $0.id, "name": $0.name, "virtual": $0.isVirtual, "default": defaultDevices.contains($0.id)] }
    }

    private func read(_ data: Data, name: String) -> (pattern: HapticPattern?, diagnostics: [[String: Any]]) {
        let reader = AHAPReader(options: AHAPReader.Options(lenient: false, baseDirectory: baseDirectory, checksAudioFiles: false))
        // The text's structure, to name each diagnostic's event: parsed only when there is one.
        var parsed: AHAPTextEdit??
        func diagnostic(line: Int, column: Int, path: String, message: String, severity: String) -> [String: Any] {
            var d: [String: Any] = ["line": line, "column": column, "path": path, "message": message, "severity": severity]
            if parsed == nil { parsed = .some(try? AHAPTextEdit(text: data)) }
            if let k = parsed??.eventIndex(atPath: path) { d["event"] = k }
            return d
        }
        do {
            let document = try reader.read(data: data, sourceName: name)
            return (
                document.pattern,
                document.warnings.map { diagnostic(line: $0.line, column: $0.column, path: $0.path, message: $0.message, severity: "warning") }
            )
        } catch {
            return (nil, [diagnostic(line: error.line, column: error.column, path: error.path, message: error.message, severity: "error")])
        }
    }

    func describe(name: String, data: Data) -> [String: Any] {
        let (pattern, diagnostics) = read(data, name: name)
        guard let pattern else { return ["valid": false, "diagnostics": diagnostics, "events": [String: Any]()] }
        // The events as columns, event k at index k of each (an object per event costs the JSON
        // writer several times as much: a 10 000-event pattern is sent in a tenth of the time).
        let e = pattern.events
        let events: [String: Any] = [
            "type": e.map(\.type.rawValue), "haptic": e.map(\.type.isHaptic), "time": e.map(\.relativeTime), "duration": e.map(\.duration),
            "intensity": e.map { JSONNumberFormat.double(fromFloat: $0.value(of: .hapticIntensity) ?? 1) },
            "sharpness": e.map { JSONNumberFormat.double(fromFloat: $0.value(of: .hapticSharpness) ?? 0.5) },
        ]
        let curves: [[String: Any]] = pattern.parameterCurves.enumerated().map { k, c in
            [
                "index": k, "parameter": c.parameterID.rawValue, "time": c.relativeTime,
                "points": c.controlPoints.map { ["time": $0.relativeTime, "value": JSONNumberFormat.double(fromFloat: $0.value)] },
            ]
        }
        return [
            "valid": true, "diagnostics": diagnostics, "events": events, "curves": curves, "profile": device.profile.id,
            "actuators": ActuatorProfile.builtIn.map { ["id": $0.id, "name": $0.name] }, "virtual": device.isVirtual,
        ]
    }

    func render(name: String, data: Data, actuator: String?) -> [String: Any] {
        let profile = actuator.flatMap { ActuatorProfile.builtIn(id: $0) } ?? device.profile
        let key = RenderKey(data: data, profile: profile.id)
        if let kept = lock.withLock({ renders.first { $0.key == key }?.value }) { return kept }
        guard let pattern = read(data, name: name).pattern else { return ["valid": false] }
        let value = Self.render(
            pattern, profile: profile, file: (baseDirectory as NSString).appendingPathComponent(name), root: baseDirectory)
        lock.withLock {
            renders.insert((key, value), at: 0)
            if renders.count > 8 { renders.removeLast() }
        }
        return value
    }

    /// The last renders, by the file's bytes and the profile (a page reload or a play's save
    /// asks for the same one again).
    private struct RenderKey: Equatable {
        var data: Data
        var profile: String
    }
    private var renders: [(key: RenderKey, value: [String: Any])] = []

    /// The preview of `thrum render` folded to at most ``curvePoints`` points per curve: each
    /// point the peak of its stretch of rows (sharpness: its first row).
    static func render(_ pattern: HapticPattern, profile: ActuatorProfile, file: String, root: String) -> [String: Any] {
        var preview = PatternPreview.make(pattern: pattern, profile: profile, sampleRate: 1000)
        // Audio events: the sound's waveform (each stretch's lowest and highest sample); only
        // sounds inside the served directory are read (a path out of it is left silent, and said).
        var heard = pattern
        var outside: [String] = []
        let directory = FilePathText.directory(of: file)
        heard.events = pattern.events.filter { e in
            guard let path = e.waveform?.path else { return true }
            let full = path.hasPrefix("/") ? path : (directory as NSString).appendingPathComponent(path)
            let real = realpath(full, nil).map { p in defer { free(p) }; return String(cString: p) }
            guard let real, real.hasPrefix(root + "/") else {
                outside.append(real == nil ? "\(path): not found" : "\(path): not under the served directory; not read")
                return false
            }
            return true
        }
        let audio = AudioPreview.make(pattern: heard, file: file, sampleRate: preview.sampleRate)
        let first = preview.firstTime, last = preview.lastTime
        let step = max((last - first) / Double(curvePoints - 1), 1 / preview.sampleRate)
        let n = Int(((last - first) / step).rounded(.down)) + 1
        var intensity = [Double](repeating: 0, count: n), sharpness = [Double](repeating: -1, count: n)
        var drive = [Double](repeating: 0, count: n), acceleration = [Double](repeating: 0, count: n)
        var low = [Double](repeating: 0, count: audio == nil ? 0 : n), high = low
        var peak = 0.0
        while let chunk = preview.next() {
            let extremes = audio?.extremes(at: chunk.time)
            for (i, t) in chunk.time.enumerated() {
                let k = min(n - 1, max(0, Int(((t - first) / step).rounded())))
                intensity[k] = max(intensity[k], chunk.intensity[i])
                if sharpness[k] < 0 { sharpness[k] = chunk.sharpness[i] }
                drive[k] = max(drive[k], abs(chunk.drive[i]))
                acceleration[k] = max(acceleration[k], chunk.acceleration[i])
                peak = max(peak, chunk.acceleration[i])
                if let extremes {
                    low[k] = min(low[k], extremes.low[i])
                    high[k] = max(high[k], extremes.high[i])
                }
            }
        }
        for k in sharpness.indices where sharpness[k] < 0 { sharpness[k] = k > 0 ? sharpness[k - 1] : 0 }
        let round = { (v: [Double]) in v.map { ($0 * 1e4).rounded() / 1e4 } }
        return [
            "start": first, "step": step, "end": last, "intensity": round(intensity), "sharpness": round(sharpness), "drive": round(drive),
            "acceleration": round(acceleration), "peak_acceleration": peak, "acceleration_unit": preview.accelerationSource.unit,
            "acceleration_source": preview.accelerationSource == .simulator ? "virtual device simulation" : "compiler prediction",
            "profile": profile.id, "program_duration": preview.programDuration, "audio_low": round(low), "audio_high": round(high),
            "audio_notes": (audio?.notes ?? []) + outside,
        ]
    }

    func play(
        name: String, data: Data, rate: Double, loop: Bool, actuator: String?, devices chosen: [String]?,
        push: @escaping @Sendable ([String: Any]) -> Void
    ) throws -> [String: Any] {
        let (pattern, diagnostics) = read(data, name: name)
        guard let pattern else {
            throw StudioServerError("\(name) does not read as AHAP: \(diagnostics.first?["message"] as? String ?? "")")
        }
        let ids = chosen ?? defaultDevices
        guard !ids.isEmpty else { throw StudioServerError("choose a device to play on") }
        let targets = try ids.map { id in
            guard let d = devices.first(where: { $0.id == id }) else {
                throw StudioServerError("no device '\(id)' here (\(devices.map(\.id).joined(separator: ", ")))")
            }
            return d
        }
        let id: Int = try lock.withLock {
            if playing != nil { throw StudioServerError("already playing (stop first)") }
            plays += 1
            playing = (plays, false, Self.timelines(targets).count)
            return plays
        }
        let profile = actuator.flatMap { ActuatorProfile.builtIn(id: $0) }
        let timelines = Self.timelines(targets)
        let note = Self.timelineNote(timelines)
        let outcomes = Outcomes()
        let now: @Sendable () -> Double = { Date().timeIntervalSince1970 * 1000 }
        let stop: @Sendable () -> Bool = { [weak self] in self?.lock.withLock { self?.playing?.stop ?? true } ?? true }
        @Sendable func onset(_ device: StudioDevice, _ o: StudioDevice.Onset) {
            push([
                "type": "onset", "play": id, "device": device.id, "index": o.index, "pass": o.pass, "requested": o.requested,
                "onset": o.onset ?? NSNull(), "bound": o.bound ?? NSNull(), "true_onset": o.trueOnset ?? NSNull(), "status": o.status,
                "suspect": o.suspect, "sent_at": now(),
            ])
        }
        @Sendable func link(_ device: StudioDevice, _ line: String) { push(["type": "link", "device": device.id, "text": line]) }
        @Sendable func position(_ device: StudioDevice, _ p: Double) {
            push(["type": "position", "play": id, "device": device.id, "position": p, "rate": rate])
        }
        @Sendable func end(_ device: StudioDevice, _ outcome: StudioDevice.Outcome?, error: String?) -> [String: Any] {
            var end: [String: Any] = ["type": "device-ended", "play": id, "file": name, "device": device.id]
            if let outcome {
                end["haptic_events"] = outcome.hapticEvents
                end["reported"] = outcome.reported
                end["on_time"] = outcome.onTime
                end["stopped"] = outcome.stopped
                end["passes"] = outcome.passes
                end["summary"] = "\(device.name): \(outcome.reported) of \(outcome.hapticEvents) onsets reported"
                    + (outcome.passes > 1 ? " over \(outcome.passes) passes" : "") + ", \(outcome.onTime) on time"
                    + (outcome.stopped ? " (stopped)" : "")
            }
            if let error { end["error"] = error }
            end["sent_at"] = now()
            return end
        }
        @Sendable func failure(_ error: Error) -> String { (error as? CommandFailure)?.message ?? "\(error)" }
        // One thread per timeline: the ports played together on one, each other device on its own.
        for lane in timelines {
            let thread = Thread { [weak self] in
                for device in lane {
                    push([
                        "type": "play-started", "play": id, "file": name, "device": device.id, "device_name": device.name,
                        "virtual": device.isVirtual, "devices": targets.map(\.id), "timelines": timelines.map { $0.map(\.id) },
                        "timeline_note": note ?? NSNull(), "sent_at": now(),
                    ])
                }
                var ends: [[String: Any]] = []
                var skew: [String: Any]?
                if lane.count == 1, let device = lane.first {
                    do {
                        let outcome = try device.play(
                            pattern, rate: rate, loop: loop, profile: profile, stop: stop, onset: { onset(device, $0) },
                            link: { link(device, $0) }, position: { position(device, $0) })
                        ends.append(end(device, outcome, error: nil))
                    } catch {
                        ends.append(end(device, nil, error: "\(device.name): " + failure(error)))
                    }
                } else {
                    do {
                        let together = try StudioDevice.playTogether(
                            lane, pattern: pattern, rate: rate, loop: loop, stop: stop, onset: onset,
                            skew: { s in
                                push([
                                    "type": "skew", "play": id, "device": s.device, "reference": lane[0].id, "index": s.index, "pass": s.pass,
                                    "skew": s.skew, "bound": s.bound, "on_frame_grid": s.onFrameGrid, "sent_at": now(),
                                ])
                            }, link: link, position: position)
                        ends = zip(lane, together.outcomes).map { end($0, $1, error: nil) }
                        skew = Self.skewReport(together.skews, devices: lane)
                    } catch {
                        let names = lane.map(\.name).joined(separator: " and ")
                        ends = lane.map { end($0, nil, error: "\(names): " + failure(error)) }
                    }
                }
                for end in ends { push(end) }
                let all = outcomes.add(ends, skew: skew)
                var ended = Self.ended(id, name, all.ends, skews: all.skews)
                ended["timelines"] = timelines.map { $0.map(\.id) }
                ended["timeline_note"] = note ?? NSNull()
                let last = self?.lock.withLock { () -> Bool in
                    self?.playing?.running -= 1
                    if self?.playing?.running == 0 {
                        self?.playing = nil
                        self?.lastPlay = ended
                        return true
                    }
                    return false
                } ?? true
                if last { push(ended) }
            }
            thread.name = "thrum-studio-play"
            thread.start()
        }
        return [
            "play": id, "devices": targets.map(\.id), "device": targets.map(\.name).joined(separator: " and "),
            "virtual": targets.allSatisfy(\.isVirtual), "timelines": timelines.map { $0.map(\.id) }, "timeline_note": note ?? NSNull(),
        ]
    }

    /// The play's timelines: two or more ports share one (``StudioDevice/playTogether``); the
    /// virtual device, in virtual time, and a single port each have their own.
    static func timelines(_ devices: [StudioDevice]) -> [[StudioDevice]] {
        let ports = devices.filter { !$0.isVirtual }
        guard ports.count >= 2 else { return devices.map { [$0] } }
        return [ports] + devices.filter(\.isVirtual).map { [$0] }
    }

    /// What the page says about the timelines of a play on several devices (nil for one device).
    static func timelineNote(_ timelines: [[StudioDevice]]) -> String? {
        guard timelines.joined().count > 1 else { return nil }
        let shared = timelines.filter { $0.count > 1 }.map { lane in lane.map(\.name).joined(separator: " and ") + " on one timeline" }
        let alone = timelines.filter { $0.count == 1 }.map { lane -> String in
            lane[0].name + (lane[0].isVirtual ? " on its own (it runs in virtual time)" : " on its own")
        }
        return (shared + alone).joined(separator: "; ")
    }

    /// The skews of a play on one timeline for its end message: the p99s over every device and
    /// of each device against the first (`by_device`), the lines `thrum play` prints, and each skew
    /// (`device` named by its id).
    static func skewReport(_ summary: SkewSummary, devices: [StudioDevice]) -> [String: Any] {
        let byDevice: [[String: Any]] = devices.indices.dropFirst().map { k in
            let own = SkewSummary(summary.skews.filter { $0.device == k })
            return ["device": devices[k].id, "count": own.skews.count, "on_frame_grid": own.onFrameGrid].merging(own.p99JSON) { a, _ in a }
        }
        var report: [String: Any] = [
            "reference": devices[0].id, "devices": devices.map(\.id), "count": summary.skews.count,
            "on_frame_grid": summary.onFrameGrid, "lines": summary.lines(reference: devices[0].name), "by_device": byDevice,
            "skews": summary.skews.map { s in SkewSummary.json(s).merging(["device": devices[s.device].id]) { _, b in b } },
        ]
        report.merge(summary.p99JSON) { a, _ in a }
        return report
    }

    /// The play's end, over every device it went to.
    private static func ended(_ id: Int, _ name: String, _ ends: [[String: Any]], skews: [[String: Any]]) -> [String: Any] {
        var end: [String: Any] = ["type": "play-ended", "play": id, "file": name, "sent_at": Date().timeIntervalSince1970 * 1000]
        for key in ["haptic_events", "reported", "on_time"] { end[key] = ends.reduce(0) { $0 + ($1[key] as? Int ?? 0) } }
        end["stopped"] = ends.contains { $0["stopped"] as? Bool == true }
        // A play's ports share at most one timeline: its skews, if it had one.
        end["skew"] = skews.first ?? NSNull()
        end["summary"] = (ends.compactMap { $0["summary"] as? String } + skews.flatMap { $0["lines"] as? [String] ?? [] })
            .joined(separator: "; ")
        let errors = ends.compactMap { $0["error"] as? String }
        if !errors.isEmpty { end["error"] = errors.joined(separator: "; ") }
        return end
    }

    func stop() { lock.withLock { if playing != nil { playing!.stop = true } } }

    func status() -> [String: Any] {
        lock.withLock {
            [
                "plays": plays, "playing": playing != nil, "device": device.name, "virtual": device.isVirtual, "pid": Int(getpid()),
                "devices": deviceList, "last_play": lastPlay ?? NSNull(),
            ]
        }
    }
}

/// The ends of one play's timelines, as they come: each device's end, and the skews of a timeline
/// that several devices shared.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var ends: [[String: Any]] = []
    private var skews: [[String: Any]] = []

    /// Adds one timeline's device ends and skews; all so far.
    func add(_ more: [[String: Any]], skew: [String: Any]?) -> (ends: [[String: Any]], skews: [[String: Any]]) {
        lock.withLock {
            ends += more
            if let skew { skews.append(skew) }
            return (ends, skews)
        }
    }
}
