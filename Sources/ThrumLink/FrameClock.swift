import ThrumTime

/// The device's clock counted against the USB start-of-frame grid (FRAME_TIME, protocol
/// version 3, PROTOCOL.md).
///
/// A microcontroller with native USB takes an interrupt at every start of frame (SOF), once per
/// millisecond of the host controller's clock, and reads its own clock there. Each FRAME_TIME
/// report is one such pair: the 11-bit frame number and the device time. A straight line through
/// them is the device's crystal against the host controller's: the drift in a fraction of a
/// second, to a fraction of a ppm, where round trips need seconds and reach tens of ppm. Devices
/// on one host controller see one grid, so a frame number names the same instant on all of them
/// (ThrumEngine's `HapticEngineGroup` aligns its devices on it).
///
/// What the grid does not say: how it sits against the host's own clock. The host controller's
/// crystal is not the one the host's monotonic clock follows (a few to tens of ppm apart), and
/// where a frame starts in host time is as far from the host's reach as any device time is (round
/// trips see only their sum, ``ClockModel``).
///
/// The frame numbers wrap every 2 048 frames (2.048 s); each report is placed in the lap its
/// device time predicts, so reports may come seconds apart. A report that cannot lie on the line
/// of the others (more than ``restartTolerance`` off: the device restarted, or the host moved to
/// another controller) starts the fit afresh.
public struct FrameClock: Sendable {
    /// A frame of the full-speed grid, in µs of the host controller's clock.
    public static let framePeriod = 1_000.0
    /// The frame number's range (11 bits).
    public static let frameNumbers: Int64 = 2_048
    /// How far a report may lie off the others' line before the fit restarts (µs).
    public static let restartTolerance = 200.0
    /// At most this many reports are kept (the newest); with one every 100 ms, 51 s.
    public static let windowSamples = 512
    /// The least span of frames before the line's slope is used (200 ms).
    public static let minimumSpanFrames = 200.0

    /// One report placed on the unwrapped grid.
    public struct Sample: Sendable, Hashable {
        /// The frame's index counted from the first report's lap.
        public var frame: Int64
        /// The device time at which the device took that frame's SOF.
        public var device: DeviceTime
    }

    /// The reports in the window, oldest first.
    public private(set) var samples: [Sample] = []
    /// Times the fit restarted because a report could not lie on the others' line.
    public private(set) var restarts = 0
    private var line: (frame0: Double, device0: Double, slope: Double, residual: Double)?

    /// Creates an empty fit.
    public init() {}

    /// Whether the line is usable: reports spanning at least ``minimumSpanFrames``.
    public var isFitted: Bool { line != nil }

    /// Adds a report: `frame` (0…2047), taken at device time `device` (extended to 64 bits).
    public mutating func add(frame: UInt16, device: DeviceTime) {
        let number = Int64(frame) % Self.frameNumbers
        guard let last = samples.last else {
            samples = [Sample(frame: number, device: device)]
            return
        }
        // The lap that the device time since the last report predicts.
        let perFrame = line?.slope ?? Self.framePeriod
        let predicted = Double(last.frame) + Double((device - last.device).microseconds) / perFrame
        let lap = ((predicted - Double(number)) / Double(Self.frameNumbers)).rounded()
        let sample = Sample(frame: number + Int64(lap) * Self.frameNumbers, device: device)
        let expected = Double(last.device.microseconds) + Double(sample.frame - last.frame) * perFrame
        if abs(Double(device.microseconds) - expected) > Self.restartTolerance + abs(Double(sample.frame - last.frame)) * 1e-3 * perFrame {
            samples = [Sample(frame: number, device: device)]
            line = nil
            restarts += 1
            return
        }
        guard sample.frame > last.frame else { return }  // the same SOF again, or an older one
        samples.append(sample)
        if samples.count > Self.windowSamples { samples.removeFirst(samples.count - Self.windowSamples) }
        refit()
    }

    private mutating func refit() {
        guard let first = samples.first, let last = samples.last, Double(last.frame - first.frame) >= Self.minimumSpanFrames else {
            line = nil
            return
        }
        // Least squares about the means, in doubles relative to the first report.
        let n = Double(samples.count)
        var sx = 0.0, sy = 0.0
        for s in samples {
            sx += Double(s.frame - first.frame)
            sy += Double((s.device - first.device).microseconds)
        }
        let mx = sx / n, my = sy / n
        var sxx = 0.0, sxy = 0.0
        for s in samples {
            let dx = Double(s.frame - first.frame) - mx
            sxx += dx * dx
            sxy += dx * (Double((s.device - first.device).microseconds) - my)
        }
        let slope = sxy / sxx
        var residual = 0.0
        for s in samples {
            let fitted = my + slope * (Double(s.frame - first.frame) - mx)
            residual = max(residual, abs(Double((s.device - first.device).microseconds) - fitted))
        }
        line = (Double(first.frame) + mx, Double(first.device.microseconds) + my, slope, residual)
    }

    /// Device µs per frame of the grid (1 000 for a device clock that runs with the host
    /// controller's); nil until fitted.
    public var deviceMicrosPerFrame: Double? { line?.slope }

    /// The device's clock rate against the host controller's, ppm (positive: device fast); nil
    /// until fitted.
    public var driftPPM: Double? { line.map { ($0.slope / Self.framePeriod - 1) * 1e6 } }

    /// The largest distance of a report from the line (µs): how exactly the device takes its SOFs.
    public var residualMicros: Double? { line?.residual }

    /// Where device time `device` falls on the grid (fractional frames on the reports' lap
    /// count); nil until fitted.
    public func frame(atDevice device: DeviceTime) -> Double? {
        guard let line else { return nil }
        return line.frame0 + (Double(device.microseconds) - line.device0) / line.slope
    }

    /// The device time (fractional µs) at grid position `frame`; nil until fitted.
    public func deviceMicros(atFrame frame: Double) -> Double? {
        guard let line else { return nil }
        return line.device0 + (frame - line.frame0) * line.slope
    }

    /// How far a position this fit gives may be from the device's true SOF count at device time
    /// `device` (µs of grid): the largest residual, a µs of clock resolution, and the slope's
    /// uncertainty (the residual over the reports' span) carried out to `device`.
    public func uncertaintyMicros(atDevice device: DeviceTime) -> Double? {
        guard let line, let first = samples.first, let last = samples.last else { return nil }
        let span = max(1, Double((last.device - first.device).microseconds))
        let reach = abs(Double(device.microseconds) - line.device0)
        return line.residual + 1 + (line.residual + 1) * reach / span
    }
}
