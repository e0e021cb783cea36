import ThrumPattern

/// What a hardware-in-the-loop test requires of a playback, checked against its
/// ``PlaybackReport``: `thrum play --expect-max-error-us N --expect-onsets K` and Swift tests
/// use the same rules.
///
/// The timing rule is on the **bound**, not on the estimate: an event passes when
/// `|onset − requested| + onset_bound ≤ maxError`, i.e. when the whole interval the clock model
/// guarantees to contain the true onset lies within `maxError` of the request. That is what a
/// rig can promise (the estimate alone is off by the link's unseen delay asymmetry). An event
/// without a reported onset, or not started on time, fails. Where the truth is known (the
/// virtual device), `|true onset − requested| ≤ maxError` must hold as well; since the bound
/// contains the truth, that only fails when the bound itself is wrong.
public struct PlaybackExpectations: Sendable, Equatable {
    /// Largest allowed |onset error| + bound, s (nil: no timing rule).
    public var maxError: Double?
    /// The number of haptic events whose onset the device must report (nil: no count rule).
    public var onsets: Int?

    /// Creates expectations.
    public init(maxError: Double? = nil, onsets: Int? = nil) {
        self.maxError = maxError
        self.onsets = onsets
    }

    /// Why one event missed.
    public struct EventFailure: Sendable, Equatable {
        /// The event's place in ``PlaybackReport/events``.
        public var reportIndex: Int
        /// One line: what was required and what happened.
        public var message: String
    }

    /// The outcome of a check.
    public struct Outcome: Sendable, Equatable {
        /// Failed events, in report order.
        public var eventFailures: [EventFailure]
        /// The onset count rule's failure, if it failed.
        public var countFailure: String?
        /// Haptic events with a reported onset.
        public var reportedOnsets: Int
        /// The largest |error| + bound over the haptic events with an onset, s (nil: none had one).
        public var worstErrorPlusBound: Double?

        /// Whether every rule held.
        public var passed: Bool { eventFailures.isEmpty && countFailure == nil }

        /// One line for a CI log: the first reason, and how many more (nil when passed).
        public var summary: String? {
            var reasons = eventFailures.map(\.message)
            if let countFailure { reasons.insert(countFailure, at: 0) }
            guard let first = reasons.first else { return nil }
            return reasons.count == 1 ? first : "\(first) (and \(reasons.count - 1) more)"
        }
    }

    /// |onset error| + bound of one event, s; nil without a reported onset or bound.
    public static func errorPlusBound(_ event: PlaybackReport.Event) -> Double? {
        guard let onset = event.onsetTime, let bound = event.onsetBound else { return nil }
        return abs(onset - event.requestedTime) + bound
    }

    /// The timing failure of one event under `maxError` (s), nil when it passes.
    public static func timingFailure(of event: PlaybackReport.Event, maxError: Double) -> String? {
        let at =
            "event \(event.patternIndex) at \(format(event.requestedTime * 1e3, digits: 3)) ms"
            + (event.pass > 0 ? " (pass \(event.pass + 1))" : "")
        let limit = "\(format(maxError * 1e6, digits: 0)) µs"
        guard let onset = event.onsetTime else {
            return "\(at): no onset reported (\(event.status.rawValue)); expected within \(limit)"
        }
        guard event.status == .onTime else {
            return "\(at): \(event.status.rawValue); expected on time within \(limit)"
        }
        guard let bound = event.onsetBound else { return "\(at): the onset has no bound; expected within \(limit)" }
        if event.boundSuspect {
            return "\(at): the bound is suspect (the device's clock samples contradicted each other); expected a guaranteed bound within \(limit)"
        }
        let error = onset - event.requestedTime
        if abs(error) + bound > maxError {
            return
                "\(at): |error| + bound = \(format(abs(error) * 1e6, digits: 0)) + \(format(bound * 1e6, digits: 0)) µs"
                + " = \(format((abs(error) + bound) * 1e6, digits: 0)) µs > \(limit)"
        }
        if let truth = event.trueOnsetTime, abs(truth - event.requestedTime) > maxError {
            return
                "\(at): true error \(format((truth - event.requestedTime) * 1e6, digits: 0)) µs > \(limit) although the bound held"
        }
        return nil
    }

    /// Checks `report`'s haptic events (audio events are not played, so not checked).
    public func check(_ report: PlaybackReport) -> Outcome {
        var failures: [EventFailure] = []
        var worst: Double?
        var reported = 0
        for (index, event) in report.events.enumerated() where event.type.isHaptic {
            if event.onsetTime != nil { reported += 1 }
            if let e = Self.errorPlusBound(event) { worst = max(worst ?? 0, e) }
            if let maxError, let message = Self.timingFailure(of: event, maxError: maxError) {
                failures.append(EventFailure(reportIndex: index, message: message))
            }
        }
        var count: String?
        if let onsets, reported != onsets {
            let haptic = report.events.filter(\.type.isHaptic).count
            count =
                "expected \(onsets) onset\(onsets == 1 ? "" : "s"), the device reported \(reported) (of \(haptic) haptic events)"
        }
        return Outcome(
            eventFailures: failures, countFailure: count, reportedOnsets: reported, worstErrorPlusBound: worst)
    }

    private static func format(_ x: Double, digits: Int) -> String {
        // Without Foundation: fixed-point with `digits` decimals.
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let v = (x * scale).rounded() / scale
        if digits == 0 { return String(Int(v)) }
        let whole = Int(v.magnitude)
        var frac = String(Int(((v.magnitude - Double(whole)) * scale).rounded()))
        while frac.count < digits { frac = "0" + frac }
        return (v < 0 ? "-" : "") + "\(whole).\(frac)"
    }
}
