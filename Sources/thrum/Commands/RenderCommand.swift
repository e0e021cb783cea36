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
        let actuatorFile = InputFiles.actuator(in: arguments)
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
        HeapReuse.keepFreedMemory()
        var source = try PatternSource.load(argument: argument, lenient: lenient, intensity: intensity)
        // No output may replace an input: the pattern, the profile file, a sound the pattern plays.
        let inputs = InputFiles.pattern(source, argument: argument) + actuatorFile
        if let csvPath { try OutputFile.refuseOverwriting(csvPath, option: "csv", inputs: inputs) }
        if let svgPath { try OutputFile.refuseOverwriting(svgPath, option: "svg", inputs: inputs) }
        if let csvPath, let svgPath, OutputFile.sameFile(csvPath, svgPath) {
            throw UsageError(message: "--csv and --svg name the same file: give two")
        }
        let pattern: HapticPattern
        var caveat: String?
        if let p = source.takePattern() {
            pattern = p
        } else if case .romEffect(let effect) = source.content {
            pattern = ROMPreview.pattern(for: effect)
            caveat = ROMPreview.caveat(for: effect)
        } else {
            preconditionFailure("a pattern source holds a pattern or a ROM effect")
        }
        let audio = AudioPreview.make(pattern: pattern, file: argument, sampleRate: rate)
        // The preview takes the only reference to the pattern: a long one's parsed events are
        // freed once compiled, not held beside the compiled program.
        var preview = PatternPreview.make(pattern: consume pattern, profile: profile, sampleRate: rate)
        for note in audio?.notes ?? [] { printError("warning: \(note)") }

        // The rows are made a chunk at a time and folded into the outputs as they come: the CSV
        // written as it grows, the summary and the terminal plots folded; the SVG keeps them all
        // up to 2^18 rows, and beyond that only the points its decimation draws (`SVGRows`).
        var csv = try csvPath.map { path throws(CommandFailure) in try OutputFile.Stream(path: path, what: "CSV") }
        try csv?.write(EnvelopeRender.columnNames.joined(separator: ",") + "\n")
        var summary = RenderSummary()
        var kept = svgPath == nil ? nil : SVGRows(preview.emptyRender, total: preview.count, audio: audio != nil)
        let plotted = csvPath == nil && svgPath == nil && !json
        let start = preview.firstTime, end = preview.lastTime + 1 / preview.sampleRate
        var drivePlot = TerminalPlot.Columns(plot: TerminalPlot(title: "", unit: ""), start: start, end: end)
        var accelerationPlot = drivePlot, audioPlot = drivePlot
        var plotCursor = (column: -1, safeUntil: -Double.infinity)
        while let chunk = preview.next() {
            let level = audio?.levels(at: chunk.time)
            summary.add(chunk, audio: level)
            try csv?.write(chunk.csvRows())
            if plotted {
                // Rows reach a column a run at a time: each run's peaks are folded in once
                // (the same peaks: a maximum of values ≥ 0 does not depend on the grouping).
                var column = -1
                var peaks = (drive: 0.0, acceleration: 0.0, audio: 0.0)
                func fold() {
                    guard column >= 0 else { return }
                    drivePlot.add(column: column, value: peaks.drive)
                    accelerationPlot.add(column: column, value: peaks.acceleration)
                    if level != nil { audioPlot.add(column: column, value: peaks.audio) }
                }
                for (i, t) in chunk.time.enumerated() {
                    guard let c = drivePlot.column(of: t, cursor: &plotCursor) else { continue }
                    if c != column {
                        fold()
                        column = c
                        peaks = (0, 0, 0)
                    }
                    peaks.drive = max(peaks.drive, abs(chunk.drive[i]))
                    peaks.acceleration = max(peaks.acceleration, abs(chunk.acceleration[i]))
                    if let level { peaks.audio = max(peaks.audio, abs(level[i])) }
                }
                fold()
            }
            kept?.append(chunk, audio: level)
        }
        try csv?.close()
        if let svgPath, let kept {
            try write(svg(preview, content: kept.content, source: source, profile: profile, caveat: caveat).render(), to: svgPath, what: "SVG")
        }
        if json {
            var object = jsonSummary(summary, preview: preview, source: source, profile: profile, caveat: caveat, csv: csvPath, svg: svgPath)
            object["audio_events"] = audio?.voiceCount ?? 0
            object["peak_audio_level"] = audio == nil ? 0 : summary.peakAudio
            JSONOutput.print(object, numbers: preview.eventTimes, at: "event_times_s")
        } else {
            for warning in source.warnings { printError(warning.description) }
            print(textSummary(summary, preview: preview, source: source, profile: profile, caveat: caveat))
            if let csvPath { print("wrote \(csvPath) (\(summary.rows) rows)") }
            if let svgPath { print("wrote \(svgPath)") }
            if csvPath == nil && svgPath == nil {
                print()
                print(TerminalPlot(title: "drive (0…1 of rated voltage)", unit: "").render(drivePlot, markers: preview.eventTimes))
                print()
                print(
                    TerminalPlot(title: "acceleration, \(preview.accelerationSource.label)", unit: preview.accelerationSource.unit)
                        .render(accelerationPlot, markers: preview.eventTimes))
                if audio != nil {
                    print()
                    print(TerminalPlot(title: "audio level (peak |sample|)", unit: "").render(audioPlot, markers: preview.eventTimes))
                }
            }
        }
        return 0
    }

    /// The SVG plot of a preview, from every row or from the points already chosen (`SVGRows`).
    static func svg(
        _ preview: PatternPreview, content: SVGRows.Content, source: PatternSource, profile: ActuatorProfile, caveat: String?
    ) -> SVGPlot {
        var notes = [
            "actuator \(profile.name) (\(profile.id)), \(number(preview.sampleRate)) samples/s; "
                + "acceleration from the \(preview.accelerationSource.label)"
        ]
        if let caveat { notes.append(caveat) }
        let unit = preview.accelerationSource.unit
        let time: [Double], columns: [[Double]], audio: [Double]?, points: [[(time: Double, value: Double)]]?
        switch content {
        case .whole(let r, let levels):
            (time, columns, points, audio) = (r.time, [r.intensity, r.sharpness, r.drive, r.acceleration], nil, levels)
        case .sampled(let span, let series):
            (time, columns, points, audio) = (span, [[], [], [], []], series, series.count == 5 ? [] : nil)
        }
        func series(_ k: Int, _ s: SVGPlot.Series) -> SVGPlot.Series {
            var s = s
            s.points = points.map { $0.indices.contains(k) ? $0[k] : [] }
            return s
        }
        let audioSeries: [SVGPlot.Series] = audio.map {
            [series(4, .init(name: "audio level (peak |sample|, 0…1)", color: "#9467bd", lineWidth: 1, values: $0, id: "series-audio"))]
        } ?? []
        return SVGPlot(
            title: "thrum render \(source.displayName)", notes: notes, time: time,
            series: audioSeries + [
                series(2, .init(name: "drive (0…1 of rated voltage)", color: "#2ca02c", lineWidth: 1.2, filled: true,
                      values: columns[2], id: "series-drive")),
                series(0, .init(name: "intensity (requested)", color: "#1f77b4", lineWidth: 1.5, values: columns[0],
                      id: "series-intensity")),
                series(1, .init(name: "sharpness (requested)", color: "#ff7f0e", lineWidth: 1.5, dash: "6 3",
                      values: columns[1], id: "series-sharpness")),
                series(3, .init(name: "acceleration (\(unit), \(preview.accelerationSource == .simulator ? "simulated" : "predicted"))",
                      color: "#d62728", lineWidth: 2, axis: .right, values: columns[3], id: "series-acceleration")),
            ],
            markers: preview.eventTimes, leftLabel: "intensity, sharpness, drive (0…1)",
            rightLabel: "acceleration (\(unit))")
    }

    private static func textSummary(
        _ r: RenderSummary, preview: PatternPreview, source: PatternSource, profile: ActuatorProfile, caveat: String?
    ) -> String {
        var lines: [String] = []
        lines.append("\(source.displayName) on \(profile.name) (\(profile.id))")
        if let caveat { lines.append("note: \(caveat)") }
        if let preset = source.preset, preset.romEffect == nil { lines.append("preset: \(preset.summary)") }
        lines.append("events: \(preview.eventTimes.count) haptic; program \(ms(preview.programDuration))")
        lines.append(
            "rendered \(ms(r.firstTime)) … \(ms(r.lastTime)) at \(number(preview.sampleRate)) samples/s (\(r.rows) rows)")
        lines.append("peak drive \(format(r.peakDrive)) of rated voltage (\(number(profile.datasheet.ratedVoltageRms)) V RMS)")
        lines.append(
            "peak acceleration \(format(r.peakAcceleration)) \(preview.accelerationSource.unit) at \(ms(r.peakAccelerationTime)) "
                + "(\(preview.accelerationSource.label))")
        if case .predictor(let reason) = preview.accelerationSource { lines.append("simulation not used: \(reason)") }
        return lines.joined(separator: "\n")
    }

    private static func jsonSummary(
        _ r: RenderSummary, preview: PatternPreview, source: PatternSource, profile: ActuatorProfile, caveat: String?,
        csv: String?, svg: String?
    ) -> [String: Any] {
        var accelerationSource = "simulator"
        if case .predictor = preview.accelerationSource { accelerationSource = "predictor" }
        return [
            "source": source.displayName,
            "preset": JSONOutput.orNull(source.preset?.name),
            "rom_approximation": JSONOutput.orNull(caveat),
            "profile": profile.id,
            "sample_rate_hz": preview.sampleRate,
            "rows": r.rows,
            "start_s": r.firstTime,
            "end_s": r.lastTime,
            "program_duration_s": preview.programDuration,
            "peak_drive": r.peakDrive,
            "peak_acceleration": r.peakAcceleration,
            "peak_acceleration_time_s": r.peakAccelerationTime,
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

/// What `thrum render` says about all the rows, folded in a chunk at a time: how many, the first
/// and last times, the peaks (the first row at the peak acceleration).
struct RenderSummary {
    private(set) var rows = 0
    private(set) var firstTime = 0.0
    private(set) var lastTime = 0.0
    private(set) var peakDrive = 0.0
    private(set) var peakAcceleration = 0.0
    private(set) var peakAccelerationTime = 0.0
    private(set) var peakAudio = 0.0
    private var driveSeen = -Double.infinity
    private var accelerationSeen = -Double.infinity
    private var audioSeen = -Double.infinity

    /// Folds in `chunk` (the next rows) and its audio levels.
    mutating func add(_ chunk: EnvelopeRender, audio: [Double]?) {
        guard let first = chunk.time.first, let last = chunk.time.last else { return }
        if rows == 0 { firstTime = first }
        lastTime = last
        for (i, a) in chunk.acceleration.enumerated() where a > accelerationSeen {
            accelerationSeen = a
            peakAccelerationTime = chunk.time[i]
        }
        driveSeen = max(driveSeen, chunk.drive.max() ?? driveSeen)
        if let audio { audioSeen = max(audioSeen, audio.max() ?? audioSeen) }
        rows += chunk.count
        peakDrive = driveSeen
        peakAcceleration = accelerationSeen
        peakAudio = audioSeen.isFinite ? audioSeen : 0
    }
}
