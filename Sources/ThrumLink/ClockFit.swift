import ThrumTime

/// One fit of device time against host time from a window of samples (see ``ClockModel``).
///
/// Coordinates: x is host µs relative to `hostReference`; z is device µs relative to
/// `deviceReference` minus x (so a perfect clock is a flat line and the slope is the drift).
struct ClockFit: Sendable {
    /// Host time the lines are relative to (the newest sample's send time).
    var hostReference: HostTime
    /// Device time (µs) the lines are relative to (the newest sample's `rx_time`).
    var deviceReference: DeviceTime
    /// Upper bound of (device − host) clock difference: the lower envelope of rx_time − send.
    var upper: ClockLine
    /// Lower bound: the upper envelope of rx_time − receive.
    var lower: ClockLine
    /// The estimate: `upper` minus the known outbound floor, or a share of the way to `lower`.
    var estimate: ClockLine
    /// Whether the slope came from this fit (span long enough) rather than being carried over.
    var slopeFitted: Bool
    /// Half the gap between the bounds at the reference: the symmetric one-way delay.
    var pathDelay: HostDuration
    /// How far the estimate may sit from the truth, from the spread of the best samples.
    var error: HostDuration
    /// The learnt host → device time per byte (µs), taken off each outbound point (see
    /// ``ClockEnvelope/perByte(_:counts:slope:)``).
    var byteTime: Double

    /// `carriedDrift`: a drift known from before (``ClockModel``'s drift carried across an idle
    /// longer than its window): both envelopes and the estimate take it as their slope, and the
    /// slope counts as fitted.
    init?(
        samples: [ClockSample], configuration: ClockModelConfiguration, previousDrift: Double?, previousByteTime: Double? = nil,
        readerWakeFloor: Double = 0, carriedDrift: Double? = nil
    ) {
        guard let newest = samples.last else { return nil }
        hostReference = newest.hostSend
        deviceReference = newest.deviceReceive

        var outbound: [(x: Double, z: Double)] = []
        var inbound: [(x: Double, z: Double)] = []
        outbound.reserveCapacity(samples.count)
        inbound.reserveCapacity(samples.count)
        let line = configuration.guaranteedLineByteTime
        for s in samples {
            let y = Double((s.deviceReceive - deviceReference).microseconds)
            let xs = (s.hostSend - hostReference).microseconds + line * Double(s.outboundBytes)
            let xr = (s.hostReceive - hostReference).microseconds
            let yr = Double((s.deviceTimeAtReturn - deviceReference).microseconds) + line * Double(s.inboundBytes)
            outbound.append((xs, y - xs))
            inbound.append((xr, yr - xr))
        }
        let xs = outbound.map(\.x)
        let span = xs.max()! - xs.min()!
        slopeFitted = carriedDrift != nil || (samples.count >= 3 && span >= configuration.minimumFitSpan.microseconds)
        let fixed: Double? = carriedDrift ?? (slopeFitted ? nil : (previousDrift ?? 0))
        let limit = configuration.maximumDriftPPM * 1e-6
        let bins = configuration.slopeBins
        let shortest = samples.lazy.map(\.outboundBytes).filter { $0 > 0 }.min() ?? 0
        func outboundEnvelope(byteTime: Double) -> (line: ClockLine, points: [(x: Double, z: Double)]) {
            var points = outbound
            if byteTime != 0 {
                for i in points.indices { points[i].z -= byteTime * Double(max(0, samples[i].outboundBytes - shortest)) }
            }
            let line = fixed == nil && bins >= 2
                ? ClockEnvelope.lowerLongBaseline(points, bins: bins, slopeLimit: limit)
                : ClockEnvelope.lower(points, slope: fixed, slopeLimit: limit)
            return (line, points)
        }
        // A frame is stamped when its last byte arrives, so on a serial line the outbound floor
        // grows with the bytes written up to its end; a change in the mix of short and long
        // frames would otherwise read as drift. Learn the time per byte from the floor's growth
        // (within spans of the window where both kinds were written; the last value is kept when
        // none was), then fit the envelope to the points without it.
        // Points are brought to the shortest frame's floor, not to zero bytes, so the estimate
        // keeps its place inside the bracket.
        var corrected: (line: ClockLine, points: [(x: Double, z: Double)])
        if let known = configuration.lineByteTime {
            // A known line: its bytes are off both legs already (at the least rate the ends may
            // run), so nothing is learnt and the points are not moved again.
            byteTime = known
            corrected = outboundEnvelope(byteTime: 0)
        } else {
            byteTime = previousByteTime ?? 0
            corrected = outboundEnvelope(byteTime: byteTime)
            if let learnt = ClockEnvelope.perByte(
                outbound, counts: samples.map(\.outboundBytes), slope: corrected.line.slope,
                bins: max(1, configuration.byteTimeSpans)) {
                byteTime = learnt
                corrected = outboundEnvelope(byteTime: byteTime)
            }
        }
        upper = corrected.line
        outbound = corrected.points
        lower = ClockEnvelope.upper(inbound, slope: fixed, slopeLimit: limit, bins: bins)

        // Each leg's distances above its envelope, smallest first (the return leg mirrored).
        let upperResiduals = ClockEnvelope.sortedResiduals(outbound, above: upper)
        var mirrored = inbound
        for i in mirrored.indices { mirrored[i].z = -mirrored[i].z }
        let lowerResiduals = ClockEnvelope.sortedResiduals(mirrored, above: ClockLine(intercept: -lower.intercept, slope: -lower.slope))
        // The smallest residual beyond the points that define the line: how well the best samples agree.
        let support = 1
        func spread(_ residuals: [Double]) -> Double? { residuals.count > support ? residuals[support] : nil }
        // The tenth-percentile residual (at least the spread's): how densely the points crowd the floor.
        func decile(_ residuals: [Double]) -> Double? {
            residuals.count > support ? residuals[min(residuals.count - 1, max(support, Int(0.1 * Double(residuals.count))))] : nil
        }

        let driftScale = 1 + (upper.slope + lower.slope) / 2
        pathDelay = .seconds(max(0, upper.intercept - lower.intercept) / driftScale / 2e6)
        let halfRoundTrip = newest.roundTrip.microseconds / 2
        if let floor = configuration.outboundDelayFloor {
            // The outbound leg's floor is known: the device clock sits that far below the envelope.
            estimate = ClockLine(intercept: upper.intercept - floor.microseconds, slope: upper.slope)
            error = .seconds(max(0, spread(upperResiduals) ?? halfRoundTrip) / 1e6)
        } else {
            // Nothing known about the legs: split the gap between the two bounds evenly at the
            // newest sample. The drift comes from both envelopes, each weighted by how densely its
            // points crowd its floor (1/q², q the leg's tenth-percentile residual): on USB the
            // outbound leg is nearly clean while the return leg carries the host's wake-up jitter,
            // and behind an FTDI bridge replies wait up to a latency-timer tick; averaging the legs
            // evenly would let the noisier one set the slope. (The best two residuals, the
            // `spread`, are near 0 on both legs once a window is long and cannot tell them apart.)
            let a = spread(upperResiduals), b = spread(lowerResiduals)
            let sa: Double = max(decile(upperResiduals) ?? halfRoundTrip, 1), sb: Double = max(decile(lowerResiduals) ?? halfRoundTrip, 1)
            let wa: Double = 1 / (sa * sa), wb: Double = 1 / (sb * sb)
            let weighted: Double = (wa * upper.slope + wb * lower.slope) / (wa + wb)
            let slope: Double = slopeFitted ? weighted : (upper.slope + lower.slope) / 2
            // The samples whose ACK woke the host's reader came back at least the reader's wake-up
            // floor sooner than they were read: the estimate's lower edge counts that (never above
            // the upper edge), the bracket does not.
            let lowerEdge = lower, upperEdge = upper, returnPoints = inbound
            var edge = lowerEdge.intercept
            if readerWakeFloor > 0, samples.contains(where: \.readerWoken) {
                // How far the return leg's highest point (along the lower edge's slope) rises.
                func highest(raisingWokenBy raise: Double) -> Double {
                    zip(returnPoints, samples).map { point, sample in
                        point.z + (sample.readerWoken ? raise : 0) - lowerEdge.slope * point.x
                    }.max()!
                }
                let rise = highest(raisingWokenBy: readerWakeFloor) - highest(raisingWokenBy: 0)
                edge = min(lowerEdge.intercept + rise, max(lowerEdge.intercept, upperEdge.intercept))
            }
            estimate = ClockLine(intercept: (upper.intercept + edge) / 2, slope: slope)
            // Never negative: samples that contradict their envelope (a clock that jumped or
            // stalled) leave residuals below it, which say nothing about how far off the estimate is.
            error = .seconds(max(0, (a != nil && b != nil) ? (a! + b!) / 2 : halfRoundTrip) / 1e6)
        }
    }
}
