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
        var columns = [Double](repeating: 0, count: width)
        let span = end - start
        for i in 0..<count {
            let t = time(i)
            guard t >= start && t < end else { continue }
            let column = min(width - 1, Int((t - start) / span * Double(width)))
            columns[column] = max(columns[column], abs(value(i)))
        }
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
