import Foundation

/// A self-contained SVG line plot of several signals over one time axis: no scripts, no external
/// fonts or styles (generic `sans-serif`), so the file renders the same anywhere.
///
/// Series are drawn against a left axis (fixed 0…1) or a right axis (0 to a rounded maximum,
/// with its own unit). Time is labelled in milliseconds. Markers (event times) are dashed
/// vertical lines with a numbered tab at the top.
struct SVGPlot {
    /// Which vertical axis a series is scaled to.
    enum Axis {
        case left, right
    }

    /// One signal.
    struct Series {
        /// Legend label.
        var name: String
        /// Stroke colour (any SVG colour).
        var color: String
        /// Stroke width in pixels.
        var lineWidth: Double = 1.5
        /// SVG `stroke-dasharray`, or nil for a solid line.
        var dash: String?
        /// Fill the area under the line with a light tint of the colour.
        var filled = false
        /// The axis it is scaled to.
        var axis: Axis = .left
        /// One value per time sample.
        var values: [Double]
        /// Points already chosen (time, value), drawn as they are instead of decimating
        /// ``values`` (`render --svg` of millions of rows: `SVGRows`).
        var points: [(time: Double, value: Double)]?
        /// Element id (letters, digits and `-`), so that tools and tests can find the series.
        var id: String
    }

    /// The heading.
    var title: String
    /// Smaller lines under the heading (the profile, caveats).
    var notes: [String] = []
    /// Sample times, s.
    var time: [Double]
    /// The signals, drawn in order (later ones on top).
    var series: [Series]
    /// Event times, s.
    var markers: [Double] = []
    /// Label of the left axis (0…1).
    var leftLabel: String
    /// Label of the right axis.
    var rightLabel: String
    /// Width and height of the picture, px.
    var width = 960.0
    var height = 480.0

    private var left: Double { 64 }
    private var right: Double { width - 72 }
    private var top: Double { 34 + 16 * Double(noteLines.count) + 12 }
    private var bottom: Double { height - 96 }

    /// The notes, word-wrapped to the picture's width (about 6.6 px per character).
    private var noteLines: [String] {
        let limit = max(20, Int((width - left - 12) / 6.6))
        var lines: [String] = []
        for note in notes {
            var line = ""
            for word in note.split(separator: " ") {
                if !line.isEmpty && line.count + 1 + word.count > limit {
                    lines.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            if !line.isEmpty { lines.append(line) }
        }
        return lines
    }

    /// The SVG document.
    func render() -> String {
        guard let t0 = time.first, let t1 = time.last, t1 > t0 else { return emptyDocument() }
        let rightPeak = series.filter { $0.axis == .right }.flatMap { $0.points?.map(\.value) ?? $0.values }.max() ?? 0
        let rightStep = niceStep(rightPeak > 0 ? rightPeak / 4 : 0.25)
        let rightMax = max(rightStep, (rightPeak / rightStep).rounded(.up) * rightStep)
        func x(_ t: Double) -> Double { left + (t - t0) / (t1 - t0) * (right - left) }
        func y(_ v: Double, _ axis: Axis) -> Double {
            let scaled = axis == .left ? v : v / rightMax
            return bottom - min(max(scaled, 0), 1.05) * (bottom - top)
        }

        var out: [String] = []
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        out.append(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" "
                + "viewBox=\"0 0 \(f(width)) \(f(height))\" font-family=\"sans-serif\" font-size=\"12\">")
        out.append("<title>\(escape(title))</title>")
        out.append("<rect x=\"0\" y=\"0\" width=\"\(f(width))\" height=\"\(f(height))\" fill=\"#ffffff\"/>")
        out.append("<text x=\"\(f(left))\" y=\"22\" font-size=\"15\" font-weight=\"bold\" fill=\"#222\">\(escape(title))</text>")
        for (i, note) in noteLines.enumerated() {
            out.append("<text x=\"\(f(left))\" y=\"\(f(40 + 16 * Double(i)))\" fill=\"#555\">\(escape(note))</text>")
        }

        // Grid and axes.
        out.append("<g id=\"grid\" stroke=\"#e4e4e4\" stroke-width=\"1\">")
        let leftTicks = stride(from: 0.0, through: 1.0, by: 0.25).map { $0 }
        for v in leftTicks {
            out.append("<line x1=\"\(f(left))\" y1=\"\(f(y(v, .left)))\" x2=\"\(f(right))\" y2=\"\(f(y(v, .left)))\"/>")
        }
        let step = niceStep((t1 - t0) * 1000 / 10)
        let timeTicks = stride(from: (t0 * 1000 / step).rounded(.up) * step, through: t1 * 1000, by: step).map { $0 }
        for ms in timeTicks {
            out.append("<line x1=\"\(f(x(ms / 1000)))\" y1=\"\(f(top))\" x2=\"\(f(x(ms / 1000)))\" y2=\"\(f(bottom))\"/>")
        }
        out.append("</g>")
        out.append("<g id=\"axes\" stroke=\"#333\" stroke-width=\"1\" fill=\"none\">")
        out.append("<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(right - left))\" height=\"\(f(bottom - top))\"/>")
        out.append("</g>")
        out.append("<g id=\"ticks\" fill=\"#333\">")
        for ms in timeTicks {
            out.append("<line x1=\"\(f(x(ms / 1000)))\" y1=\"\(f(bottom))\" x2=\"\(f(x(ms / 1000)))\" y2=\"\(f(bottom + 5))\" stroke=\"#333\"/>")
            out.append("<text x=\"\(f(x(ms / 1000)))\" y=\"\(f(bottom + 18))\" text-anchor=\"middle\">\(number(ms))</text>")
        }
        out.append("<text x=\"\(f((left + right) / 2))\" y=\"\(f(bottom + 34))\" text-anchor=\"middle\">time (ms)</text>")
        for v in leftTicks {
            out.append("<text x=\"\(f(left - 6))\" y=\"\(f(y(v, .left) + 4))\" text-anchor=\"end\">\(number(v))</text>")
        }
        for v in stride(from: 0.0, through: rightMax * 1.0001, by: rightStep) {
            out.append("<line x1=\"\(f(right))\" y1=\"\(f(y(v, .right)))\" x2=\"\(f(right + 4))\" y2=\"\(f(y(v, .right)))\" stroke=\"#333\"/>")
            out.append("<text x=\"\(f(right + 6))\" y=\"\(f(y(v, .right) + 4))\" text-anchor=\"start\">\(number(v))</text>")
        }
        let midY = (top + bottom) / 2
        out.append(
            "<text x=\"16\" y=\"\(f(midY))\" text-anchor=\"middle\" transform=\"rotate(-90 16 \(f(midY)))\">\(escape(leftLabel))</text>")
        out.append(
            "<text x=\"\(f(width - 14))\" y=\"\(f(midY))\" text-anchor=\"middle\" "
                + "transform=\"rotate(90 \(f(width - 14)) \(f(midY)))\">\(escape(rightLabel))</text>")
        out.append("</g>")

        // Event markers.
        out.append("<g id=\"events\" stroke=\"#888\" stroke-width=\"1\" stroke-dasharray=\"3 3\" fill=\"#666\">")
        // Without numbers (more than 40 markers) a marker on the pixel of the one before adds
        // nothing: 10⁶ events drew 10⁶ lines (115 MB) on 824 pixels.
        var lastDrawn = ""
        for (i, t) in markers.enumerated() where t >= t0 && t <= t1 {
            let mx = x(t)
            if markers.count > 40 {
                let column = f(mx.rounded())
                if column == lastDrawn { continue }
                lastDrawn = column
            }
            out.append("<line x1=\"\(f(mx))\" y1=\"\(f(top))\" x2=\"\(f(mx))\" y2=\"\(f(bottom))\"/>")
            out.append("<path d=\"M\(f(mx - 4)) \(f(top - 8)) L\(f(mx + 4)) \(f(top - 8)) L\(f(mx)) \(f(top)) Z\" stroke=\"none\"/>")
            if markers.count <= 40 {
                out.append("<text x=\"\(f(mx + 5))\" y=\"\(f(top - 2))\" font-size=\"9\" stroke=\"none\">\(i + 1)</text>")
            }
        }
        out.append("</g>")

        // Series.
        for s in series {
            let drawn = s.points ?? decimated(s.values).map { (time: time[$0], value: s.values[$0]) }
            let points = drawn.map { "\(f(x($0.time)))," + f(y($0.value, s.axis)) }
            guard !points.isEmpty else { continue }
            out.append("<g id=\"\(s.id)\">")
            if s.filled {
                let baseline = f(y(0, s.axis))
                let area = "\(f(x(time[0]))),\(baseline) " + points.joined(separator: " ") + " \(f(x(time[time.count - 1]))),\(baseline)"
                out.append("<polygon points=\"\(area)\" fill=\"\(s.color)\" fill-opacity=\"0.12\" stroke=\"none\"/>")
            }
            let dash = s.dash.map { " stroke-dasharray=\"\($0)\"" } ?? ""
            out.append(
                "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(s.color)\" "
                    + "stroke-width=\"\(f(s.lineWidth))\" stroke-linejoin=\"round\"\(dash)/>")
            out.append("</g>")
        }

        // Legend: swatches in rows that wrap at the plot's width.
        out.append("<g id=\"legend\">")
        var entries: [(swatch: String, label: String)] = series.map { s in
            let dash = s.dash.map { " stroke-dasharray=\"\($0)\"" } ?? ""
            return ("line stroke=\"\(s.color)\" stroke-width=\"\(f(max(2, s.lineWidth)))\"\(dash)", s.name)
        }
        if !markers.isEmpty { entries.append(("marker", "event (requested time)")) }
        var lx = left
        var ly = bottom + 58
        for entry in entries {
            let entryWidth = 30 + Double(entry.label.count) * 6.6 + 20
            if lx > left && lx + entryWidth > width - 8 {
                lx = left
                ly += 18
            }
            if entry.swatch == "marker" {
                out.append("<path d=\"M\(f(lx + 8)) \(f(ly - 10)) L\(f(lx + 16)) \(f(ly - 10)) L\(f(lx + 12)) \(f(ly - 2)) Z\" fill=\"#666\"/>")
            } else {
                out.append("<\(entry.swatch) x1=\"\(f(lx))\" y1=\"\(f(ly - 4))\" x2=\"\(f(lx + 24))\" y2=\"\(f(ly - 4))\"/>")
            }
            out.append("<text x=\"\(f(lx + 30))\" y=\"\(f(ly))\" fill=\"#222\">\(escape(entry.label))</text>")
            lx += entryWidth
        }
        out.append("</g>")
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    /// The plot's width in pixel columns at the default size, 960 px (the columns
    /// ``decimated(_:)`` splits the rows into).
    static let plotColumns = 960 - 64 - 72

    /// Indices to draw: all of them when there are few; otherwise, per pixel column, the first,
    /// the minimum and the maximum sample (in time order), which keeps every peak visible.
    private func decimated(_ values: [Double]) -> [Int] {
        let columns = Int(right - left)
        guard values.count > 3 * columns, columns > 0 else { return Array(values.indices) }
        var out: [Int] = []
        let perColumn = Double(values.count) / Double(columns)
        for c in 0..<columns {
            let lo = Int(Double(c) * perColumn), hi = min(values.count, Int(Double(c + 1) * perColumn))
            guard lo < hi else { continue }
            var minIndex = lo, maxIndex = lo
            for i in lo..<hi {
                if values[i] < values[minIndex] { minIndex = i }
                if values[i] > values[maxIndex] { maxIndex = i }
            }
            out.append(contentsOf: Set([lo, minIndex, maxIndex]).sorted())
        }
        if out.last != values.count - 1 { out.append(values.count - 1) }
        return out
    }

    private func emptyDocument() -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" "
            + "height=\"60\"><text x=\"10\" y=\"30\" font-family=\"sans-serif\">\(escape(title)): nothing to plot</text></svg>\n"
    }

    /// 1, 2 or 5 × 10ⁿ at or above `raw`.
    private func niceStep(_ raw: Double) -> Double {
        guard raw > 0 else { return 1 }
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        for m in [1.0, 2, 5, 10] where m * magnitude >= raw { return m * magnitude }
        return 10 * magnitude
    }

    private func f(_ v: Double) -> String { String(format: "%.1f", v) }

    private func number(_ v: Double) -> String {
        if v == v.rounded() { return String(Int(v)) }
        let text = String(format: "%.2f", v)
        return text.hasSuffix("0") ? String(text.dropLast()) : text
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
