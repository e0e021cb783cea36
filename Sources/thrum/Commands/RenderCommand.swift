import Foundation
import ThrumAudio
import ThrumCompiler
import ThrumPattern

/// `thrum render`: the requested envelope, the drive and the actuator's acceleration on one time
/// axis, as CSV, SVG or a text summary with terminal plots.
enum RenderCommand: Subcommand {
    static let name = "render"
    static let summary = "plot a pattern's intensity, sharpness, drive and acceleration (CSV, SVG or text)"
    static let usage = """
        Usage: thrum render <file.ahap | preset:NAME> [options]

        Compiles the pattern for the actuator profile and samples, on one time axis: the requested
        intensity and sharpness, the drive envelope sent to the driver (0…1 of the rated voltage)
        and the acceleration envelope (G) the virtual device's actuator produced playing it; with
        audio events, the sound's level (peak |sample|, 0…1, as thrum play renders it) beside them
        in the SVG, the terminal plots and the JSON summary (the CSV keeps its columns).
        Without --svg or --csv it prints a summary and terminal plots.

        Options:
          --svg PATH        write an SVG plot (self-contained)
          --csv PATH        write CSV: time_s,intensity,sharpness,drive,acceleration
          --actuator NAME   actuator profile: a built-in id (default: \(ActuatorProfile.default.id)) or a FILE.json;
                            --profile NAME is the same
          --rate HZ         samples per second (default 1000; 100…100000)
          --intensity X     0…1, for the impact presets (like impactOccurred(intensity:))
          --lenient         accept trailing commas in the AHAP file
          --json            print a JSON summary instead of the text one

        ROM presets (preset:rom.N) are played by the driver from its ROM; they are rendered from
        Thrum's approximate envelope for the effect, and the output says so.
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let svgPath = try arguments.option("svg")
        let csvPath = try arguments.option("csv")
        let profileChoice = arguments.peekOption("actuator") ?? arguments.peekOption("profile")
        let chosenProfile = try ActuatorChoice.take(from: &arguments)
        let rate = try arguments.number("rate", in: 100...100_000, expected: "a number of samples per second from 100 to 100000") ?? 1000
        let intensity = try arguments.number("intensity", in: 0...1, expected: "a number 0…1").map { Float($0) }
        let lenient = arguments.flag("lenient")
        let json = arguments.flag("json")
        let sources = try arguments.positionals()
        try arguments.finish()
        guard sources.count == 1, let argument = sources.first else {
            throw UsageError(message: sources.isEmpty ? "give the AHAP file or preset:NAME to render" : "give exactly one pattern to render")
        }

        let profile = chosenProfile ?? ActuatorProfile.default
        let source = try PatternSource.load(argument: argument, lenient: lenient, intensity: intensity)
        // No output may replace an input: the pattern, the profile file, a sound the pattern plays.
        var inputs: [(path: String, what: String)] = []
        if source.pattern != nil && FileManager.default.fileExists(atPath: argument) { inputs.append((argument, "pattern")) }
        if let profileChoice, ActuatorProfile.builtIn(id: profileChoice) == nil { inputs.append((profileChoice, "actuator profile")) }
        if case .pattern(let p) = source.content {
            let directories = [(argument as NSString).deletingLastPathComponent, FileManager.default.currentDirectoryPath].map {
                $0.isEmpty ? "." : $0
            }
            for e in p.events {
                if let w = e.waveform, let path = AudioResource.resolve(w.path, in: directories) { inputs.append((path, "audio file")) }
            }
        }
        if let csvPath { try OutputFile.refuseOverwriting(csvPath, option: "csv", inputs: inputs) }
        if let svgPath { try OutputFile.refuseOverwriting(svgPath, option: "svg", inputs: inputs) }
        if let csvPath, let svgPath, OutputFile.sameFile(csvPath, svgPath) {
            throw UsageError(message: "--csv and --svg name the same file: give two")
        }
        let pattern: HapticPattern
        var caveat: String?
        switch source.content {
        case .pattern(let p):
            pattern = p
        case .romEffect(let effect):
            pattern = ROMPreview.pattern(for: effect)
            caveat = ROMPreview.caveat(for: effect)
        }
        let preview = PatternPreview.make(pattern: pattern, profile: profile, sampleRate: rate)
        let audio = AudioPreview.make(pattern: pattern, file: argument, times: preview.render.time, sampleRate: preview.render.sampleRate)
        for note in audio?.notes ?? [] { printError("warning: \(note)") }

        if let csvPath { try write(preview.render.csv(), to: csvPath, what: "CSV") }
        if let svgPath {
            try write(svg(preview, source: source, profile: profile, caveat: caveat, audio: audio).render(), to: svgPath, what: "SVG")
        }
        if json {
            var summary = jsonSummary(preview, source: source, profile: profile, caveat: caveat, csv: csvPath, svg: svgPath)
            summary["audio_events"] = audio?.voices ?? 0
            summary["peak_audio_level"] = audio.map { $0.level.max() ?? 0 } ?? 0
            JSONOutput.print(summary)
        } else {
            for warning in source.warnings { printError(warning.description) }
            print(textSummary(preview, source: source, profile: profile, caveat: caveat))
            if let csvPath { print("wrote \(csvPath) (\(preview.render.count) rows)") }
            if let svgPath { print("wrote \(svgPath)") }
            if csvPath == nil && svgPath == nil {
                print()
                print(plots(preview))
                if let audio {
                    let r = preview.render
                    print()
                    print(
                        TerminalPlot(title: "audio level (peak |sample|)", unit: "").render(
                            times: r.time, values: audio.level, start: r.time.first ?? 0, end: (r.time.last ?? 0) + 1 / r.sampleRate,
                            markers: preview.eventTimes))
                }
            }
        }
        return 0
    }

    /// The SVG plot of a preview.
    static func svg(_ preview: PatternPreview, source: PatternSource, profile: ActuatorProfile, caveat: String?, audio: AudioPreview? = nil) -> SVGPlot {
        let r = preview.render
        var notes = [
            "actuator \(profile.name) (\(profile.id)), \(number(r.sampleRate)) samples/s; "
                + "acceleration from the \(preview.accelerationSource.label)"
        ]
        if let caveat { notes.append(caveat) }
        let unit = preview.accelerationSource.unit
        let audioSeries: [SVGPlot.Series] = audio.map {
            [.init(name: "audio level (peak |sample|, 0…1)", color: "#9467bd", lineWidth: 1, values: $0.level, id: "series-audio")]
        } ?? []
        return SVGPlot(
            title: "thrum render \(source.displayName)", notes: notes, time: r.time,
            series: audioSeries + [
                .init(name: "drive (0…1 of rated voltage)", color: "#2ca02c", lineWidth: 1.2, filled: true,
                      values: r.drive, id: "series-drive"),
                .init(name: "intensity (requested)", color: "#1f77b4", lineWidth: 1.5, values: r.intensity,
                      id: "series-intensity"),
                .init(name: "sharpness (requested)", color: "#ff7f0e", lineWidth: 1.5, dash: "6 3",
                      values: r.sharpness, id: "series-sharpness"),
                .init(name: "acceleration (\(unit), \(preview.accelerationSource == .simulator ? "simulated" : "predicted"))",
                      color: "#d62728", lineWidth: 2, axis: .right, values: r.acceleration, id: "series-acceleration"),
            ],
            markers: preview.eventTimes, leftLabel: "intensity, sharpness, drive (0…1)",
            rightLabel: "acceleration (\(unit))")
    }

    private static func textSummary(
        _ preview: PatternPreview, source: PatternSource, profile: ActuatorProfile, caveat: String?
    ) -> String {
        let r = preview.render
        var lines: [String] = []
        lines.append("\(source.displayName) on \(profile.name) (\(profile.id))")
        if let caveat { lines.append("note: \(caveat)") }
        if let preset = source.preset, preset.romEffect == nil { lines.append("preset: \(preset.summary)") }
        lines.append("events: \(preview.eventTimes.count) haptic; program \(ms(preview.programDuration))")
        lines.append(
            "rendered \(ms(r.time.first ?? 0)) … \(ms(r.time.last ?? 0)) at \(number(r.sampleRate)) samples/s (\(r.count) rows)")
        lines.append("peak drive \(format(r.drive.max() ?? 0)) of rated voltage (\(number(profile.datasheet.ratedVoltageRms)) V RMS)")
        let peak = r.acceleration.max() ?? 0
        let peakTime = r.acceleration.firstIndex(of: peak).map { r.time[$0] } ?? 0
        lines.append(
            "peak acceleration \(format(peak)) \(preview.accelerationSource.unit) at \(ms(peakTime)) "
                + "(\(preview.accelerationSource.label))")
        if case .predictor(let reason) = preview.accelerationSource { lines.append("simulation not used: \(reason)") }
        return lines.joined(separator: "\n")
    }

    private static func plots(_ preview: PatternPreview) -> String {
        let r = preview.render
        let start = r.time.first ?? 0, end = (r.time.last ?? 0) + 1 / r.sampleRate
        return TerminalPlot(title: "drive (0…1 of rated voltage)", unit: "").render(
            times: r.time, values: r.drive, start: start, end: end, markers: preview.eventTimes)
            + "\n\n"
            + TerminalPlot(title: "acceleration, \(preview.accelerationSource.label)", unit: preview.accelerationSource.unit)
            .render(times: r.time, values: r.acceleration, start: start, end: end, markers: preview.eventTimes)
    }

    private static func jsonSummary(
        _ preview: PatternPreview, source: PatternSource, profile: ActuatorProfile, caveat: String?,
        csv: String?, svg: String?
    ) -> [String: Any] {
        let r = preview.render
        let peak = r.acceleration.max() ?? 0
        var accelerationSource = "simulator"
        if case .predictor = preview.accelerationSource { accelerationSource = "predictor" }
        return [
            "source": source.displayName,
            "preset": JSONOutput.orNull(source.preset?.name),
            "rom_approximation": JSONOutput.orNull(caveat),
            "profile": profile.id,
            "sample_rate_hz": r.sampleRate,
            "rows": r.count,
            "start_s": r.time.first ?? 0,
            "end_s": r.time.last ?? 0,
            "program_duration_s": preview.programDuration,
            "event_times_s": preview.eventTimes,
            "peak_drive": r.drive.max() ?? 0,
            "peak_acceleration": peak,
            "peak_acceleration_time_s": r.acceleration.firstIndex(of: peak).map { r.time[$0] } ?? 0,
            "acceleration_source": accelerationSource,
            "acceleration_unit": preview.accelerationSource.unit,
            "columns": EnvelopeRender.columnNames,
            "csv": JSONOutput.orNull(csv),
            "svg": JSONOutput.orNull(svg),
            "warnings": source.warnings.map(ValidateCommand.json),
        ]
    }

    private static func write(_ text: String, to path: String, what: String) throws(CommandFailure) {
        try OutputFile.write(text, to: path, what: what)
    }

    private static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
    }
}
