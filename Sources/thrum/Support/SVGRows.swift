import ThrumCompiler

/// The rows `render --svg` draws from, kept in bounded memory.
///
/// Up to ``exactRows`` rows are kept whole (the plot is then decimated from all of them, as it
/// always was). Beyond, the rows fall into buckets of equal row counts, each keeping only its
/// first and last row and the rows holding each series' minimum and maximum; when there are
/// more than ``mostBuckets`` buckets, neighbours merge (the bucket size doubles). Every extreme
/// of every series survives, so the plot shows the same peaks a pixel column of 824 holds; 10⁶
/// events (50 million rows) no longer keep 3.5 GB of columns.
struct SVGRows {
    /// Rows kept whole before bucketing starts (≈ 10 MB of columns).
    static let exactRows = 1 << 18
    /// Buckets kept at most (≈ 10 per pixel column of the plot).
    static let mostBuckets = 8_192

    /// One row: its time and the value of each series (intensity, sharpness, drive, acceleration,
    /// then the audio level when there is one; no allocation per row).
    private struct Row {
        var time: Double
        var values: SIMD8<Double>
    }

    private struct Bucket {
        var rows: Int
        var first: Row
        var last: Row
        var minima: [Row]
        var maxima: [Row]

        init(_ row: Row, series: Int) {
            rows = 1
            first = row
            last = row
            minima = Array(repeating: row, count: series)
            maxima = minima
        }

        mutating func add(_ row: Row) {
            rows += 1
            last = row
            for k in minima.indices {
                if row.values[k] < minima[k].values[k] { minima[k] = row }
                if row.values[k] > maxima[k].values[k] { maxima[k] = row }
            }
        }

        /// Takes in `next`, which follows this bucket in time.
        mutating func merge(_ next: Bucket) {
            rows += next.rows
            last = next.last
            for k in minima.indices {
                if next.minima[k].values[k] < minima[k].values[k] { minima[k] = next.minima[k] }
                if next.maxima[k].values[k] > maxima[k].values[k] { maxima[k] = next.maxima[k] }
            }
        }

        /// Its kept rows in time order, each once.
        var kept: [Row] {
            var rows = [first] + minima + maxima + [last]
            rows.sort { $0.time < $1.time }
            var out: [Row] = []
            for row in rows where out.last?.time != row.time { out.append(row) }
            return out
        }
    }

    private var whole: EnvelopeRender
    private var wholeAudio: [Double] = []
    private var buckets: [Bucket] = []
    private var bucketSize = 0
    private let hasAudio: Bool

    /// Starts empty, with the columns' sample rate and program length from `empty`.
    init(_ empty: EnvelopeRender, audio: Bool) {
        whole = empty
        hasAudio = audio
    }

    /// Takes in a chunk of rows and its audio levels (when the pattern has sound).
    mutating func append(_ chunk: EnvelopeRender, audio: [Double]?) {
        if buckets.isEmpty && whole.count + chunk.count <= Self.exactRows {
            whole.append(chunk)
            wholeAudio += audio ?? []
            return
        }
        if buckets.isEmpty {
            // Switch to buckets: the rows kept so far go in first.
            bucketSize = max(1, Self.exactRows / Self.mostBuckets)
            let kept = whole
            let keptAudio = wholeAudio
            whole.time = []
            whole.intensity = []
            whole.sharpness = []
            whole.drive = []
            whole.acceleration = []
            wholeAudio = []
            add(kept, audio: hasAudio ? keptAudio : nil)
        }
        add(chunk, audio: audio)
    }

    private mutating func add(_ chunk: EnvelopeRender, audio: [Double]?) {
        for i in 0..<chunk.count {
            var values = SIMD8<Double>(repeating: 0)
            values[0] = chunk.intensity[i]
            values[1] = chunk.sharpness[i]
            values[2] = chunk.drive[i]
            values[3] = chunk.acceleration[i]
            if hasAudio { values[4] = audio?[i] ?? 0 }
            let row = Row(time: chunk.time[i], values: values)
            if let last = buckets.indices.last, buckets[last].rows < bucketSize {
                buckets[last].add(row)
            } else {
                buckets.append(Bucket(row, series: hasAudio ? 5 : 4))
            }
        }
        while buckets.count > Self.mostBuckets {
            var merged: [Bucket] = []
            merged.reserveCapacity(buckets.count / 2 + 1)
            var i = 0
            while i < buckets.count {
                var bucket = buckets[i]
                if i + 1 < buckets.count { bucket.merge(buckets[i + 1]) }
                merged.append(bucket)
                i += 2
            }
            buckets = merged
            bucketSize *= 2
        }
    }

    /// The rows to draw and their audio levels (empty without sound).
    var rows: (render: EnvelopeRender, audio: [Double]) {
        guard !buckets.isEmpty else { return (whole, wholeAudio) }
        var render = whole
        var audio: [Double] = []
        for bucket in buckets {
            for row in bucket.kept {
                render.time.append(row.time)
                render.intensity.append(row.values[0])
                render.sharpness.append(row.values[1])
                render.drive.append(row.values[2])
                render.acceleration.append(row.values[3])
                if hasAudio { audio.append(row.values[4]) }
            }
        }
        return (render, audio)
    }
}
