import ThrumTime

/// One weighted least-squares fit of device time against host time (see ``ClockModel``).
struct ClockFit: Sendable {
    /// Host time that `offset` refers to (the newest sample's matched host time).
    var hostReference: HostTime
    /// Device time (µs) that `offset` is relative to.
    var deviceReference: UInt64
    /// Device µs − deviceReference at hostReference.
    var offset: Double
    /// Device µs per host µs.
    var slope: Double
    /// Whether the slope came from this fit (span long enough) rather than being carried over.
    var slopeFitted: Bool
    /// Half the minimum round trip.
    var pathDelay: HostDuration
    /// Standard error of the prediction at hostReference.
    var error: HostDuration

    init?(samples: [ClockSample], configuration: ClockModelConfiguration, previousSlope: Double?) {
        guard let newest = samples.last else { return nil }
        let minRTT = samples.map(\.roundTrip).min()!
        pathDelay = HostDuration(nanoseconds: minRTT.nanoseconds / 2)
        hostReference = newest.hostSend + pathDelay
        deviceReference = newest.deviceReceive

        let epsilon = configuration.weightFloor.microseconds
        var w: [Double] = []
        var x: [Double] = []
        var y: [Double] = []
        for s in samples {
            let excess = (s.roundTrip - minRTT).microseconds
            w.append(1 / ((excess + epsilon) * (excess + epsilon)))
            x.append(((s.hostSend + pathDelay) - hostReference).microseconds)
            y.append(Double(Int64(bitPattern: s.deviceReceive) - Int64(bitPattern: deviceReference)))
        }
        let sumW = w.reduce(0, +)
        let meanX = zip(w, x).reduce(0) { $0 + $1.0 * $1.1 } / sumW
        let meanY = zip(w, y).reduce(0) { $0 + $1.0 * $1.1 } / sumW
        var sxx = 0.0
        var sxy = 0.0
        for i in w.indices {
            sxx += w[i] * (x[i] - meanX) * (x[i] - meanX)
            sxy += w[i] * (x[i] - meanX) * (y[i] - meanY)
        }
        let span = (x.max()! - x.min()!)
        slopeFitted = samples.count >= 2 && span >= configuration.minimumFitSpan.microseconds && sxx > 0
        slope = slopeFitted ? sxy / sxx : (previousSlope ?? 1)
        offset = meanY - slope * meanX

        if samples.count < 2 {
            error = HostDuration(nanoseconds: newest.roundTrip.nanoseconds / 2)
            return
        }
        // Weighted residual variance, effective sample count, and the prediction's standard error.
        var sumR2 = 0.0
        var sumW2 = 0.0
        for i in w.indices {
            let r = y[i] - (offset + slope * x[i])
            sumR2 += w[i] * r * r
            sumW2 += w[i] * w[i]
        }
        let effectiveCount = max(sumW * sumW / sumW2, 1)
        let sigma2 = sumR2 / sumW * effectiveCount / max(effectiveCount - (slopeFitted ? 2 : 1), 1)
        // Normalised weights: Var(mean) = s²/n_eff, Var(slope) = s²/(n_eff·Var_w(x)), Var_w(x) = sxx/Σw.
        var variance = sigma2 / effectiveCount
        if slopeFitted && sxx > 0 { variance *= 1 + meanX * meanX * sumW / sxx }
        error = .seconds(variance.squareRoot() / 1e6)
    }
}
