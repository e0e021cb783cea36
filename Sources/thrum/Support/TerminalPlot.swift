/// A bar chart of one signal over time, drawn with Unicode block characters for a terminal.
///
/// Each column is the peak of the signal over its slice of time; each row is one eighth-block
/// stack, so a plot of `height` rows resolves 8·height levels. Markers (event times) are drawn
/// on a line under the chart.
struct TerminalPlot {
    var width = 72
    var height = 6
    var title: String
    var unit: String

    private static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// Renders `samples` (time in seconds, value) between `start` and `end`, with `markers` (seconds).
    func render(samples: [(time: Double, value: Double)], start: Double, end: Double, markers: [Double]) -> String {
        render(count: samples.count, time: { samples[$0].time }, value: { samples[$0].value }, start: start, end: end, markers: markers)
    }

    /// Renders `values` at `times` (seconds, one per value) between `start` and `end`, with
    /// `markers` (seconds): the same plot as `render(samples:…)` without pairing the columns first.
    func render(times: [Double], values: [Double], start: Double, end: Double, markers: [Double]) -> String {
        render(count: min(times.count, values.count), time: { times[$0] }, value: { values[$0] }, start: start, end: end, markers: markers)
    }

    private func render(
        count: Int, time: (Int) -> Double, value: (Int) -> Double, start: Double, end: Double, markers: [Double]
    ) -> String {
        guard end > start, width > 0, height > 0 else { return "" }
        var columns = Columns(plot: self, start: start, end: end)
        for i in 0..<count { columns.add(time: time(i), value: value(i)) }
        return render(columns, markers: markers)
    }

    /// The peaks of a signal per column of a plot, folded in sample by sample (or a chunk at a
    /// time), so a plot of millions of samples needs none of them kept.
    struct Columns {
        let width: Int
        let start: Double
        let end: Double
        fileprivate var peaks: [Double]

        /// Empty columns of `plot` between `start` and `end` (s).
        init(plot: TerminalPlot, start: Double, end: Double) {
            width = plot.width
            self.start = start
            self.end = end
            peaks = [Double](repeating: 0, count: max(0, plot.width))
        }

        /// Folds in one sample.
        @inline(__always)
        mutating func add(time t: Double, value: Double) {
            if let column = column(of: t) { add(column: column, value: value) }
        }

        /// The column time `t` falls in (nil outside the plot): plots of one time axis share it.
        @inline(__always)
        func column(of t: Double) -> Int? {
            guard t >= start && t < end else { return nil }
            return min(width - 1, Int((t - start) / (end - start) * Double(width)))
        }

        /// `column(of:)` for increasing times, with the last column and the time before which it
        /// cannot change kept in `cursor` (a division only near a column's edge).
        @inline(__always)
        func column(of t: Double, cursor: inout (column: Int, safeUntil: Double)) -> Int? {
            guard t >= start && t < end else { return nil }
            if t < cursor.safeUntil && cursor.column >= 0 { return cursor.column }
            let c = min(width - 1, Int((t - start) / (end - start) * Double(width)))
            // The next edge, less a margin far above the rounding of the formula.
            let span = end - start
            cursor = (c, start + Double(c + 1) * span / Double(width) - 1e-9 * span)
            return c
        }

        /// Folds in a sample in `column` (from `column(of:)`).
        @inline(__always)
        mutating func add(column: Int, value: Double) {
            peaks[column] = max(peaks[column], abs(value))
        }

        /// Folds in `values` at `times`.
        mutating func add(times: [Double], values: [Double]) {
            for i in 0..<min(times.count, values.count) { add(time: times[i], value: values[i]) }
        }
    }

    /// Renders folded `columns` (of a plot of this width), with `markers` (seconds).
    func render(_ columns: Columns, markers: [Double]) -> String {
        let start = columns.start, end = columns.end
        guard end > start, width > 0, height > 0, columns.width == width else { return "" }
        let span = end - start
        let columns = columns.peaks
        let peak = columns.max() ?? 0
        var lines: [String] = []
        lines.append("\(title) (peak \(format(peak)) \(unit))")
        for row in (0..<height).reversed() {
            var line = "│"
            for value in columns {
                let level = peak > 0 ? value / peak * Double(height * 8) : 0
                let filled = level - Double(row * 8)
                let index = max(0, min(8, Int(filled.rounded())))
                line.append(Self.blocks[index])
            }
            lines.append(line)
        }
        var axis = [Character](repeating: "─", count: width)
        for marker in markers where marker >= start && marker < end {
            let column = min(width - 1, Int((marker - start) / span * Double(width)))
            axis[column] = "┬"
        }
        lines.append("└" + String(axis))
        let left = "\(format(start * 1000)) ms"
        let right = "\(format(end * 1000)) ms"
        let gap = max(1, width + 1 - left.count - right.count)
        lines.append(" " + left + String(repeating: " ", count: gap) + right)
        lines.append(" ┬ = requested event times")
        return lines.joined(separator: "\n")
    }

    private func format(_ value: Double) -> String {
        if value == 0 { return "0" }
        if abs(value) >= 100 { return String(Int(value.rounded())) }
        let scaled = (value * 100).rounded() / 100
        return String(scaled)
    }
}
