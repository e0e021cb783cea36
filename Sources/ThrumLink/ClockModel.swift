import ThrumTime

/// One clock-sync sample: a host frame's send time, the host time its ACK arrived, and the device
/// time (extended to 64 bits) at which the device received it.
public struct ClockSample: Sendable, Hashable {
    /// When the host handed the frame to the transport.
    public var hostSend: HostTime
    /// When the ACK naming the frame arrived.
    public var hostReceive: HostTime
    /// The ACK's `rx_time`, extended to 64 bits.
    public var deviceReceive: DeviceTime
    /// Bytes the host handed over in the same write up to the end of this frame: the device
    /// stamps a frame when its last byte arrives, so on a serial line these bytes' transmission
    /// is part of the outbound delay (0 when unknown).
    public var outboundBytes: Int
    /// Whether the ACK was read by a reader that its arrival woke (a wait on the port that ended
    /// because data came): then ``hostReceive`` includes the host's wake-up, which
    /// ``ClockModel/readerWakeFloor`` bounds from below. False when the bytes were already waiting.
    public var readerWoken: Bool
    /// When the ACK left the device, if the device saw it go (DEPARTURE): the device time at
    /// which the host's USB IN transfer took it. At the host's receive time the device clock read
    /// at least this, which is later than ``deviceReceive`` by the time the ACK waited in the
    /// device for the host to poll. Nil when unknown (then ``deviceReceive`` bounds it).
    public var deviceDeparture: DeviceTime?
    /// Bytes of the device frame that carried the ACK, on the wire: on a serial line they cross
    /// after `rx_time` (the device builds its reply once the host's frame is in), so they are part
    /// of the return leg (0 when unknown).
    public var inboundBytes: Int = 0
    /// How far this sample's facts contradicted the guaranteed bracket of the samples before it
    /// (zero: they agreed). A device that stamps a frame after the ACK had already left, or a
    /// clock that stalls or steps by less than ``ClockModelConfiguration/jumpThreshold``, shows this
    /// way; the bracket relaxes both of the sample's facts by this much (``ClockModel/inconsistency``).
    public var inconsistency: HostDuration = .zero

    /// Creates a sample.
    public init(
        hostSend: HostTime, hostReceive: HostTime, deviceReceive: DeviceTime, outboundBytes: Int = 0, readerWoken: Bool = false,
        deviceDeparture: DeviceTime? = nil, inboundBytes: Int = 0
    ) {
        self.hostSend = hostSend
        self.hostReceive = hostReceive
        self.deviceReceive = deviceReceive
        self.outboundBytes = outboundBytes
        self.readerWoken = readerWoken
        self.deviceDeparture = deviceDeparture
        self.inboundBytes = inboundBytes
    }

    /// The latest device time known to have passed by ``hostReceive``: the departure when the
    /// device reported it, else ``deviceReceive``.
    public var deviceTimeAtReturn: DeviceTime { deviceDeparture.map { max($0, deviceReceive) } ?? deviceReceive }

    /// The round trip the sample measured.
    public var roundTrip: HostDuration { hostReceive - hostSend }
}

/// Maps host time to device time: device µs = reference + (host µs − host reference) · (1 + drift)
/// + offset, fitted to a sliding window of ACK samples (DESIGN.md §4; docs/timing.md).
///
/// Every sample brackets the device clock. The ACK's `rx_time` was read when the frame arrived,
/// which is after the host sent it and before the ACK came back, so at the send time the device
/// clock read at most `rx_time`, and at the receive time at least `rx_time`. Over the window the
/// model keeps the tightest bracket as two envelope lines (``ClockEnvelope``): the upper bound
/// from the samples whose outbound trip was fastest, the lower bound from those whose ACK came
/// back fastest. Each leg is min-filtered on its own, so a sample that was slow on one leg still
/// helps on the other, and delays from queueing, OS scheduling or USB frame alignment cannot
/// bias the lines; they only leave points above them. The slope of the envelopes is the drift,
/// measured over the whole window (seconds), not between neighbouring samples.
///
/// The estimate inside the bracket: when the link's outbound floor is known
/// (``ClockModelConfiguration/outboundDelayFloor``; about 0 on USB, where OUT data goes out with
/// the next start of frame while IN data always waits for the host's next poll), the upper
/// bound minus that floor; otherwise the middle of the bracket (the min-half-RTT assumption of
/// NTP and Klipper, which is off by half the legs' asymmetry — unobservable from round trips).
/// ``bounds(at:)`` gives the bracket itself for pessimistic decisions.
///
/// One part of the return leg the host can measure on itself: a reader blocked on the port runs
/// only when the scheduler wakes it, and the host sees how late its own timers wake
/// (``LinkSession`` learns the least of that, ``readerWakeFloor``). For the estimate, each sample
/// whose ACK woke its reader (``ClockSample/readerWoken``) counts as having come back that much
/// sooner, which raises the lower edge the estimate takes its middle from. The bracket and every
/// reported bound ignore it: they assume nothing.
public struct ClockModel: Sendable {
    /// The tunables.
    public let configuration: ClockModelConfiguration
    /// The samples in the window, oldest first.
    public private(set) var samples: [ClockSample] = []
    private var extender = DeviceTimeExtender()
    private var fit: ClockFit?
    /// Times the window restarted because a sample could not belong to the same clock.
    public private(set) var jumps = 0
    /// The model as it was just before its window last restarted (``jumps``), nil before any
    /// restart: the clock that stamps from before the restart are read on.
    public var windowBefore: ClockModel? { before.first }
    private var before: [ClockModel] = []
    /// How many samples contradicted the bracket of the samples before them (each a broken fact:
    /// see ``ClockSample/inconsistency``), or restarted the window (``jumps``), since the model was
    /// made. A bound computed near one of them may not hold: the engine marks such onsets.
    public private(set) var contradictions = 0
    /// The newest contradiction, if any: the host time it was seen (the sample's receive time),
    /// its size, and `since`, the device time of the oldest sample of the window it contradicted:
    /// bounds read from that window, on onsets at or after `since`, may be affected.
    public private(set) var lastContradiction: (at: HostTime, size: HostDuration, since: DeviceTime)?
    /// The least time the host's reader takes to run after data arrived, as measured on the host's
    /// own timer wake-ups (zero: nothing known). Only the estimate uses it, from the next sample
    /// on (see above).
    public var readerWakeFloor: HostDuration = .zero

    /// Creates an empty model.
    public init(configuration: ClockModelConfiguration = .init()) { self.configuration = configuration }

    /// The number of samples in the window.
    public var sampleCount: Int { samples.count }
    /// How much host time the window's samples span (first to last send; zero below two samples).
    public var windowSpan: HostDuration {
        guard let first = samples.first, let last = samples.last else { return .zero }
        return last.hostSend - first.hostSend
    }

    private mutating func keepWindowBefore() {
        var old = self
        old.before = []
        before = [old]
    }

    /// Adds a sample whose device time is the 32-bit `rx_time` of an ACK, and refits.
    public mutating func addSample(
        hostSend: HostTime, hostReceive: HostTime, deviceReceive: DeviceTime32, outboundBytes: Int = 0, readerWoken: Bool = false,
        inboundBytes: Int = 0
    ) {
        addSample(
            ClockSample(
                hostSend: hostSend, hostReceive: hostReceive, deviceReceive: extender.extend(deviceReceive),
                outboundBytes: outboundBytes, readerWoken: readerWoken, inboundBytes: inboundBytes))
    }

    /// Adds a sample whose device time is already extended, and refits.
    ///
    /// The sample is checked against what the window already knows: its `rx_time` must lie
    /// between the bracket's lowest device clock at its send time and highest at its receive time.
    /// Far outside (beyond ``ClockModelConfiguration/jumpThreshold``) the device restarted or its
    /// clock was set: the window starts afresh. A little outside, some fact the bracket rests on
    /// broke (a late stamp, a clock that stalled): the sample keeps its facts relaxed by the
    /// excess (``ClockSample/inconsistency``), so the bracket widens instead of narrowing on a
    /// falsehood, and the contradiction is counted (``contradictions``).
    public mutating func addSample(_ sample: ClockSample) {
        var sample = sample
        // Checked against the guaranteed bracket (every sample's send/receive facts and the drift
        // limit), never the fit's lines: a line tilted by legs that slowed down inside the window
        // (a loaded host reading its port late) and carried across an idle put a good sample
        // milliseconds outside it, and the window restarted as if the device had rebooted.
        if let bracket, !samples.isEmpty {
            let excess = bracket.contradiction(of: sample, lineByteTime: configuration.guaranteedLineByteTime)
            // Beyond the bracket widened by its own slack (the window's contradictions) by more
            // than the jump threshold, the sample is impossible for the same clock: the device
            // restarted or its clock was set. Start the window afresh.
            if excess - bracket.slack > configuration.jumpThreshold.microseconds {
                let size = HostDuration.microseconds(Int64(excess.rounded(.up)))
                let since = windowStartDeviceTime
                keepWindowBefore()
                samples.removeAll()
                jumps += 1
                contradictions += 1
                lastContradiction = (sample.hostReceive, size, since)
                unsettled = (sample.hostSend, size)
            } else if excess > 0 {
                sample.inconsistency = .microseconds(Int64(excess.rounded(.up)))
                contradictions += 1
                lastContradiction = (sample.hostReceive, sample.inconsistency, windowStartDeviceTime)
            }
        }
        // Contradictions in a row mean the clock itself moved (it stalled, or stepped by less
        // than the jump threshold): what the window knew is of a clock that no longer is. Keep
        // the newest samples, which agree with each other, and start from them.
        let run = samples.reversed().prefix { $0.inconsistency > .zero }.count
        if sample.inconsistency > .zero, run + 1 >= Self.contradictionsBeforeRestart {
            keepWindowBefore()
            let kept = samples.suffix(run)
            let size = max(sample.inconsistency, kept.lazy.map(\.inconsistency).max() ?? .zero)
            samples = kept.map { var s = $0; s.inconsistency = .zero; return s }
            unsettled = (samples.first?.hostSend ?? sample.hostSend, size)
            sample.inconsistency = .zero
            jumps += 1
        }
        if let last = samples.last, sample.hostReceive - last.hostReceive > configuration.windowDuration, carried == nil,
            let fit, fit.slopeFitted, slopeBasis >= Self.carriedDriftBasis
        {
            carried = (fit.estimate.slope, slopeBasis)
        }
        samples.append(sample)
        dropAgedSamples(newest: sample)
        if samples.count > configuration.windowSamples { samples.removeFirst(samples.count - configuration.windowSamples) }
        refit()
        if bracket?.isConsistent == false {
            // No line within the drift limit passes between the facts of the samples that
            // agreed one by one: the clock ran off any line a crystal allows (a simulation
            // catching up at several times real speed). The bracket rests on a broken fact.
            contradictions += 1
            lastContradiction = (sample.hostReceive, Self.inconsistentWindow, windowStartDeviceTime)
        }
        settleIfSteady()
    }

    /// Drops the samples older than ``ClockModelConfiguration/windowDuration`` before `newest` —
    /// but for an anchor across an idle: when what is left spans less than half the window (the
    /// link sat unrun longer than the window, a held engine between plays), the newest
    /// ``anchorSamples`` of the aged ones stay until the fresh samples span half the window
    /// themselves. Without them the drift was fitted again on the fresh samples alone, a
    /// fraction of a second of them, and came out hundreds of ppm off (−996 ppm for a −100 ppm
    /// crystal after a 30 s idle): two devices' plays walked apart by 200 µs/s. A crystal's rate
    /// moves far less than that over an idle of seconds, so the line across it holds.
    private mutating func dropAgedSamples(newest: ClockSample) {
        let horizon = newest.hostReceive - configuration.windowDuration
        guard let firstKept = samples.firstIndex(where: { $0.hostReceive >= horizon }), firstKept > 0 else { return }
        let fresh = newest.hostSend - samples[firstKept].hostSend
        let anchor = fresh.microseconds * 2 < configuration.windowDuration.microseconds ? min(firstKept, Self.anchorSamples) : 0
        samples.removeFirst(firstKept - anchor)
    }

    /// How many of the newest aged samples ``dropAgedSamples(newest:)`` keeps across an idle.
    static let anchorSamples = 8

    /// The drift carried across an idle longer than the window, and the span of samples it was
    /// fitted on; nil otherwise. Taken from the fit just before the idle when its slope was
    /// fitted on at least ``carriedDriftBasis`` of samples, and kept while the window holds its
    /// anchor (aged samples): the fit takes it as its slope and fits the offset on the fresh
    /// samples alone. Fitted across the idle instead, each leg's floor compares the anchor's few
    /// samples with the fresh ones, and where the host read its port late before the idle (a
    /// loaded machine during a play: return legs of milliseconds) and promptly after it, the
    /// return leg's floor tilted by that much over the idle — +300 ppm for a −100 ppm crystal
    /// whose outbound leg said −100.0 (docs/studio.md) — and the estimate, the middle of the
    /// two, walked 200 µs/s. A crystal's rate moves far less over an idle of seconds. The
    /// guaranteed bracket across the idle (the anchor included) bounds it: a carried drift outside
    /// its drift range is moved to the nearer edge, and stays there.
    private var carried: (drift: Double, basis: HostDuration)?

    /// The span of samples the current fit's slope rests on: the window's, or the carried
    /// drift's own.
    private var slopeBasis: HostDuration = .zero

    /// The least span of samples a drift must have been fitted on to be carried across an idle
    /// (``carried``); below it the window's anchor and the fresh samples fit the drift together.
    static let carriedDriftBasis = HostDuration.milliseconds(500)

    /// After a restart (``jumps``), the host send time of the restarted window's first sample and
    /// the size of the contradiction that restarted it, until the window has shown the clock
    /// steady again (``settleIfSteady()``); nil otherwise.
    private var unsettled: (since: HostTime, size: HostDuration)?

    /// Whether the window has not yet shown the clock steady since it last restarted: a restart
    /// follows a clock seen to move (a stall, a step, a simulation running far from the wall
    /// clock), and the samples just after it may be of a clock still moving — ones that agree
    /// with each other as far as their round trips can tell, yet hold it where it no longer is.
    /// Until then ``inconsistency`` is not zero, so onsets reported from the window are suspect.
    public var isSettling: Bool { unsettled != nil }

    /// Ends ``isSettling``. The samples of the first ``ClockModelConfiguration/minimumFitSpan``
    /// after the restart are provisional: the clock may still have been moving, by less than
    /// their round trips can show (the tail of a catch-up), and a sample that holds it where it no
    /// longer is narrows the bracket onto a falsehood. Once at least
    /// ``ClockModelConfiguration/convergenceSamples`` samples taken after that, over at least half
    /// the fit span, agree with each other (enough for a clock off any crystal's rate to
    /// contradict them), the provisional samples are dropped and the window is settled.
    private mutating func settleIfSteady() {
        guard let u = unsettled else { return }
        let provisionalUntil = u.since + configuration.minimumFitSpan
        guard let firstFirm = samples.firstIndex(where: { $0.hostSend >= provisionalUntil }) else { return }
        let firm = samples[firstFirm...]
        guard firm.count >= configuration.convergenceSamples, let first = firm.first, let last = firm.last,
            (last.hostReceive - first.hostSend).microseconds >= configuration.minimumFitSpan.microseconds / 2,
            !firm.contains(where: { $0.inconsistency > .zero })
        else { return }
        samples.removeFirst(firstFirm)
        refit()
        guard bracket?.isConsistent != false else { return }
        unsettled = nil
    }

    /// The size given to a window whose samples admit no common line (its excess is not measured).
    static let inconsistentWindow = HostDuration.microseconds(1)

    /// The device time of the window's oldest sample: a contradiction puts the whole window in
    /// doubt (the samples it contradicts may be the wrong ones, after a clock that moved and came
    /// back), so bounds on onsets from there on are suspect.
    private var windowStartDeviceTime: DeviceTime {
        samples.first?.deviceReceive ?? .zero
    }

    /// How many samples in a row must contradict the window before it restarts from them.
    static let contradictionsBeforeRestart = 3

    /// The largest contradiction among the window's samples (zero when they all agree): while it
    /// is not zero, the bracket has been widened by guesswork and a bound read from it is suspect.
    /// After a restart, until the window has shown the clock steady (``isSettling``), it is at
    /// least the contradiction that restarted it; while the window's samples admit no common
    /// line, at least ``inconsistentWindow``.
    public var inconsistency: HostDuration {
        var worst = samples.lazy.map(\.inconsistency).max() ?? .zero
        if let u = unsettled { worst = max(worst, max(u.size, Self.inconsistentWindow)) }
        if bracket?.isConsistent == false { worst = max(worst, Self.inconsistentWindow) }
        return worst
    }

    /// Records when the ACK whose `rx_time` was `deviceReceive` left the device (DEPARTURE,
    /// PROTOCOL.md §3.7): the device time `wait` after it, when the host's USB IN transfer took
    /// it. The oldest sample in the window with that `rx_time` gets it as its
    /// ``ClockSample/deviceDeparture``, and the model refits: at that sample's receive time the
    /// device clock read at least the departure, so the bracket's lower edge rises by the time the
    /// ACK waited for the host's poll. Host frames that arrived together share an `rx_time`; the
    /// device reports the first ACK it sent with it, which left no later than any other, so
    /// whichever of them the host's oldest sample came from, the departure is no later than that
    /// ACK's own. Returns false when no sample in the window has that `rx_time`.
    @discardableResult
    public mutating func addDeparture(ofReceive deviceReceive: DeviceTime32, wait: DeviceDuration) -> Bool {
        let received = extend(deviceReceive)
        guard wait.microseconds >= 0, let index = samples.firstIndex(where: { $0.deviceReceive == received }) else { return false }
        samples[index].deviceDeparture = received + wait
        refit()
        return true
    }

    /// Rebuilds the fit, the bracket and the outbound bounds from the window.
    private mutating func refit() {
        bracket = ClockBracket(
            samples: samples, slopeLimit: configuration.maximumDriftPPM * 1e-6, lineByteTime: configuration.guaranteedLineByteTime)
        // While a drift is carried across an idle, the aged samples (the anchor) stay for the
        // bracket but not for the fit, which takes the carried drift and the fresh samples' offset.
        // The bracket across the idle holds the true drift whatever the legs did: a carried drift
        // outside it (fitted before the idle on legs that changed under it) is moved to its edge.
        var aged = 0
        if var carried, let newest = samples.last {
            let horizon = newest.hostReceive - configuration.windowDuration
            aged = samples.prefix { $0.hostReceive < horizon }.count
            if let bracket, bracket.isConsistent {
                carried.drift = min(max(carried.drift, bracket.slopeRange.lowerBound), bracket.slopeRange.upperBound)
            }
            self.carried = aged == 0 ? nil : carried
            if aged > 0 { slopeBasis = carried.basis }
        }
        if carried == nil { slopeBasis = windowSpan }
        fit = ClockFit(
            samples: aged > 0 ? Array(samples[aged...]) : samples, configuration: configuration, previousDrift: fit?.estimate.slope,
            previousByteTime: fit?.byteTime, readerWakeFloor: readerWakeFloor.microseconds, carriedDrift: carried?.drift)
        (outboundBound, outboundBoundNetOfBytes) = computeOutboundDelayBounds(quantile: Self.defaultOutboundQuantile, last: Self.defaultOutboundSamples)
    }

    /// Half the gap between the bounds: the one-way delay if both legs were alike.
    public var pathDelay: HostDuration { fit?.pathDelay ?? .zero }

    /// The device time at host time `time`; the origin before any sample.
    public func deviceTime(at time: HostTime) -> DeviceTime {
        guard let fit else { return .zero }
        return Self.clamp(value(of: fit.estimate, fit, at: time))
    }

    /// The bracket the device clock is in at host time `time`: it cannot read more than
    /// `upperBound` (no frame arrives before it is sent) nor less than `lowerBound` (no ACK
    /// comes back before the frame arrived). Both are the origin before any sample.
    public func bounds(at time: HostTime) -> ClosedRange<DeviceTime> {
        guard let fit else { return DeviceTime.zero...DeviceTime.zero }
        let low = Self.clamp(value(of: fit.lower, fit, at: time))
        return low...max(low, Self.clamp(value(of: fit.upper, fit, at: time)))
    }

    /// The device's 32-bit clock reading at host time `time` (for SEGMENT `start`).
    public func deviceTime32(at time: HostTime) -> DeviceTime32 { deviceTime(at: time).wire }

    /// The host time at which the device clock reads `deviceTime`.
    public func hostTime(atDevice deviceTime: DeviceTime) -> HostTime {
        guard let fit else { return .zero }
        let y = Double((deviceTime - fit.deviceReference).microseconds)
        let x = (y - fit.estimate.intercept) / (1 + fit.estimate.slope)
        return fit.hostReference + .seconds(x / 1e6)
    }

    /// The host times between which the device clock read `deviceTime`:
    /// a bracket from the samples alone that contains the truth whatever the link's asymmetry
    /// (see ``ClockBracket``). Its middle is a reported onset's time and its half-width the "±".
    /// Nil before any sample.
    public func hostTimeBounds(atDevice deviceTime: DeviceTime) -> ClosedRange<HostTime>? {
        guard let bracket else { return nil }
        return bracket.hostInterval(atDevice: deviceTime, estimate: hostTime(atDevice: deviceTime))
    }

    /// How long host → device frames took at most, recently: for each of the newest `last`
    /// samples the outbound delay is at most its `rx_time` less the bracket's lower bound at its
    /// send time (the device clock cannot have read less), and this is the `quantile` of those
    /// bounds. It includes the bracket's width (the asymmetry the model cannot see), so it never
    /// understates; a command meant to reach the device before an instant is sent at least this
    /// long ahead. With `excludingOwnBytes`, each sample's bound leaves out the time its own
    /// write's bytes took on a serial line at the learnt byte time (``byteTimeMicros`` ×
    /// ``ClockSample/outboundBytes``): the fixed part of the delay, to which a sender adds the
    /// serialisation of what it is about to write. Nil before any sample.
    /// The default bounds (quantile 0.95 over the newest 64 samples) are computed once per
    /// sample, when it is added, since a streaming sender asks for them on every wake.
    public func outboundDelayBound(quantile: Double = 0.95, last: Int = 64, excludingOwnBytes: Bool = false) -> HostDuration? {
        if quantile == Self.defaultOutboundQuantile, last == Self.defaultOutboundSamples {
            return excludingOwnBytes ? outboundBoundNetOfBytes : outboundBound
        }
        return computeOutboundDelayBound(quantile: quantile, last: last, excludingOwnBytes: excludingOwnBytes)
    }

    private static let defaultOutboundQuantile = 0.95
    private static let defaultOutboundSamples = 64
    /// ``outboundDelayBound(quantile:last:excludingOwnBytes:)`` with the defaults, as of the last sample.
    private var outboundBound: HostDuration?
    /// The same net of each sample's own bytes.
    private var outboundBoundNetOfBytes: HostDuration?

    private func computeOutboundDelayBound(quantile: Double, last: Int, excludingOwnBytes: Bool) -> HostDuration? {
        let both = computeOutboundDelayBounds(quantile: quantile, last: last)
        return excludingOwnBytes ? both.netOfBytes : both.whole
    }

    /// ``outboundDelayBound(quantile:last:excludingOwnBytes:)`` both ways, from one pass over the
    /// samples (each sample's bracket read once): with the own bytes, and net of them.
    private func computeOutboundDelayBounds(quantile: Double, last: Int) -> (whole: HostDuration?, netOfBytes: HostDuration?) {
        guard fit != nil, !samples.isEmpty else { return (nil, nil) }
        let byteTime = byteTimeMicros
        var whole: [Double] = [], net: [Double] = []
        whole.reserveCapacity(min(last, samples.count))
        net.reserveCapacity(min(last, samples.count))
        for sample in samples.suffix(last) {
            let delay = Double((sample.deviceReceive - bounds(at: sample.hostSend).lowerBound).microseconds)
            whole.append(max(0, delay))
            net.append(max(0, delay - byteTime * Double(sample.outboundBytes)))
        }
        func quantileOf(_ delays: inout [Double]) -> HostDuration {
            delays.sort()
            let rank = min(delays.count - 1, max(0, Int((quantile * Double(delays.count)).rounded(.up)) - 1))
            return .seconds(delays[rank] / 1e6)
        }
        return (quantileOf(&whole), quantileOf(&net))
    }

    /// The drift range (ppm) every pair of samples in the window allows: the bound on
    /// ``driftPPM``. Nil before any sample.
    public var driftBoundsPPM: ClosedRange<Double>? {
        bracket.map { ($0.slopeRange.lowerBound * 1e6)...($0.slopeRange.upperBound * 1e6) }
    }
    /// The guaranteed bracket of the current window (rebuilt with each sample).
    private var bracket: ClockBracket?


    /// Extends a 32-bit device time (e.g. an ONSET `time`) to 64 bits near the latest sample.
    public func extend(_ deviceTime: DeviceTime32) -> DeviceTime {
        (extender.latest ?? DeviceTime(microseconds: Int64(deviceTime.rawValue))).extending(deviceTime)
    }

    /// The learnt time per byte on the host → device path (µs; 0 on a link that delivers a
    /// frame at once, 86.8 on a 115 200 baud UART), from how the outbound delay floor grows with
    /// the bytes written up to each frame's end (``ClockSample/outboundBytes``).
    public var byteTimeMicros: Double { fit?.byteTime ?? 0 }

    /// Device clock rate error relative to the host, in parts per million (positive: device fast).
    public var driftPPM: Double { (fit?.estimate.slope ?? 0) * 1e6 }

    /// How far the estimate may be off: the residual of the best sample beyond those defining the
    /// envelope (order-statistics spacing of the best samples); half the round trip with a single
    /// sample; zero with none. Excludes the asymmetry the model cannot see (see the type's notes).
    public var errorEstimate: HostDuration { fit?.error ?? .zero }

    /// Enough samples over a long enough span, and a small enough error estimate.
    public var isConverged: Bool {
        guard let fit, samples.count >= configuration.convergenceSamples else { return false }
        return fit.slopeFitted && fit.error <= configuration.convergenceError
    }

    private func value(of line: ClockLine, _ fit: ClockFit, at time: HostTime) -> Double {
        let x = (time - fit.hostReference).microseconds
        return Double(fit.deviceReference.microseconds) + x + line(x)
    }

    private static func clamp(_ value: Double) -> DeviceTime {
        value <= 0 ? .zero : DeviceTime(microseconds: Int64(value.rounded()))
    }
}
