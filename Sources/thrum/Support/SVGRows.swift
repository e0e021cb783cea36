import ThrumCompiler

/// The rows `render --svg` draws from, kept in bounded memory.
///
/// Up to ``exactRows`` rows are kept whole, and the plot decimates them (``SVGPlot``: per pixel
/// column, by row index, the first row and the rows of the series' minimum and maximum). Beyond,
/// that same decimation is made as the rows come — the total is known before the first — so
/// only the chosen points are kept, the same points: 10⁶ events (50 million rows) no longer
/// keep 3.5 GB of columns.
struct SVGRows {
    /// Rows kept whole (≈ 10 MB of columns); more are decimated as they come.
    static let exactRows = 1 << 18

    /// What the plot is drawn from.
    enum Content {
        /// Every row, and the audio levels (nil without sound).
        case whole(EnvelopeRender, audio: [Double]?)
        /// The points of each series (intensity, sharpness, drive, acceleration, then the audio
        /// level when there is one), already decimated, and the first and last row's times.
        case sampled(span: [Double], series: [[(time: Double, value: Double)]])
    }

    /// One series' decimation, column by column.
    private struct Decimation {
        var points: [(index: Int, time: Double, value: Double)] = []
        var first = (index: 0, time: 0.0, value: 0.0)
        var minimum = (index: 0, time: 0.0, value: 0.0)
        var maximum = (index: 0, time: 0.0, value: 0.0)

        mutating func start(index: Int, time: Double, value: Double) {
            first = (index, time, value)
            minimum = first
            maximum = first
        }

        mutating func add(index: Int, time: Double, value: Double) {
            if value < minimum.value { minimum = (index, time, value) }
            if value > maximum.value { maximum = (index, time, value) }
        }

        /// The column's points in row order, each once (as `SVGPlot` picks them).
        mutating func close() {
            var chosen = [first]
            for p in [minimum, maximum] where !chosen.contains(where: { $0.index == p.index }) { chosen.append(p) }
            points += chosen.sorted { $0.index < $1.index }
        }
    }

    private let total: Int
    private let columns: Int
    private var whole: EnvelopeRender?
    private var wholeAudio: [Double] = []
    private var series: [Decimation]
    private var index = 0
    private var column = -1
    private var nextColumnStart = 0
    private var columnEnd = 0
    private var firstTime = 0.0
    private var last = (time: 0.0, values: [Double]())

    /// Starts empty for `total` rows (`PatternPreview.count`); `empty` carries the columns'
    /// sample rate and program length; `columns`: the plot's pixel columns.
    init(_ empty: EnvelopeRender, total: Int, audio: Bool, columns: Int = SVGPlot.plotColumns) {
        self.total = total
        self.columns = columns
        whole = total <= Self.exactRows ? empty : nil
        series = Array(repeating: Decimation(), count: audio ? 5 : 4)
    }

    /// Takes in the next chunk of rows and its audio levels (when the pattern has sound).
    mutating func append(_ chunk: EnvelopeRender, audio: [Double]?) {
        if whole != nil {
            whole!.append(chunk)
            wholeAudio += audio ?? []
            return
        }
        let perColumn = Double(total) / Double(columns)
        for i in 0..<chunk.count {
            let t = chunk.time[i]
            var values = [chunk.intensity[i], chunk.sharpness[i], chunk.drive[i], chunk.acceleration[i]]
            if series.count == 5 { values.append(audio?[i] ?? 0) }
            if index == 0 { firstTime = t }
            if index == nextColumnStart && column + 1 < columns {
                if column >= 0 { for k in series.indices { series[k].close() } }
                column += 1
                columnEnd = min(total, Int(Double(column + 1) * perColumn))
                nextColumnStart = columnEnd
                for k in series.indices { series[k].start(index: index, time: t, value: values[k]) }
            } else if index < columnEnd {
                for k in series.indices { series[k].add(index: index, time: t, value: values[k]) }
            }
            last = (t, values)
            index += 1
        }
    }

    /// The plot's content once every row is in.
    var content: Content {
        if let whole { return .whole(whole, audio: series.count == 5 ? wholeAudio : nil) }
        guard index > 0 else { return .sampled(span: [], series: []) }
        var done = series
        if column >= 0 { for k in done.indices { done[k].close() } }
        // The last row is always drawn.
        for k in done.indices where done[k].points.last?.index != index - 1 {
            done[k].points.append((index - 1, last.time, last.values[k]))
        }
        return .sampled(span: [firstTime, last.time], series: done.map { $0.points.map { ($0.time, $0.value) } })
    }
}
