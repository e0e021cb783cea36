import ThrumTime

/// A round trip so long that the device's queue slots cannot carry dense drive: its slots must
/// cover two smoothed round trips of streamed segments (``LeadTimePolicy/renderChunk(on:chunk:queueSlots:)``),
/// so a held level is streamed in longer chunks and drive denser than the slots carry (many short
/// segments, such as transients a few tens of milliseconds apart) can arrive after its time
/// (docs/timing.md, "A very long round trip"). Said at connect, and again when the round trip
/// first crosses the limit later, or grows half as long again as when last said, a second or more
/// after it (``RoundTripWatch``).
public struct RoundTripWarning: Sendable, Equatable {
    /// When it was found, on the host clock the engine's time reads.
    public var hostTime: HostTime
    /// The smoothed round trip then (RFC 6298's SRTT).
    public var roundTrip: HostDuration
    /// The device's queue slots (IDENTIFY_REPLY).
    public var queueSlots: Int
    /// The most drive segments a second the slots carry on this round trip.
    public var segmentsPerSecond: Int
    /// The render chunk a held level is streamed in on it.
    public var chunk: HostDuration
    /// Transients closer together than this can arrive after their time.
    public var densestSpacing: HostDuration
    /// Whether it was found as the device connected (false: the round trip grew later).
    public var atConnect: Bool
    /// The round trip of the warning before this one; nil for the first.
    public var previousRoundTrip: HostDuration?
    /// The device it is about (``ThrumDevice``'s endpoint name).
    public var endpointName: String

    /// The one line that says it.
    public var message: String {
        let ms = Self.milliseconds(roundTrip)
        let lead: String
        if let previousRoundTrip {
            lead = "the round trip to \(endpointName) grew further to \(ms) ms (\(Self.milliseconds(previousRoundTrip)) ms when last said)"
        } else if atConnect {
            lead = "a \(ms) ms round trip to \(endpointName)"
        } else {
            lead = "the round trip to \(endpointName) grew to \(ms) ms"
        }
        return lead + ": the device's \(queueSlots) queue slots carry at most \(segmentsPerSecond) drive segments a second; "
            + "a held level is streamed in \(Self.milliseconds(chunk)) ms chunks, and denser drive (transients closer than about "
            + "\(Self.milliseconds(densestSpacing)) ms) can arrive after its time"
    }

    /// `d` in whole milliseconds, as the message says it.
    public static func milliseconds(_ d: HostDuration) -> Int { Int((d.seconds * 1e3).rounded()) }
}

/// When a long round trip is said (``RoundTripWarning``): once when the smoothed round trip first
/// needs a longer render chunk than the default, and once more each time it has grown to
/// ``growthFactor`` times the round trip last said, at least ``minimumInterval`` after it — not at
/// every sample, and not again when it dips under the limit and crosses it back. The smoothed
/// round trip climbs to a step in the link's delay over a dozen samples: the interval lets the
/// second warning name where it settled rather than a point on the way.
struct RoundTripWatch {
    /// How much longer than the round trip last said a round trip must be to be said again: half
    /// as long again, when the drive the slots carry has fallen by a third.
    static let growthFactor = 1.5
    /// The least time between two warnings.
    static let minimumInterval = HostDuration.seconds(1)
    /// What was said so far, oldest first.
    private(set) var warnings: [RoundTripWarning] = []

    /// Takes `candidate` (the link's state now, nil when the slots cover the round trip) and
    /// returns it when it is to be said, with the round trip last said attached.
    mutating func consider(_ candidate: RoundTripWarning?) -> RoundTripWarning? {
        guard var warning = candidate else { return nil }
        if let last = warnings.last {
            guard warning.roundTrip.seconds >= last.roundTrip.seconds * Self.growthFactor,
                warning.hostTime - last.hostTime >= Self.minimumInterval
            else { return nil }
            warning.previousRoundTrip = last.roundTrip
        }
        warnings.append(warning)
        return warning
    }
}
