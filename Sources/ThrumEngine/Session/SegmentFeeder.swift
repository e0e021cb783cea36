import ThrumCompiler
import ThrumLink
import ThrumTime
import ThrumWire

/// Hands a program's segments to the link a bounded time ahead of their start, converting each
/// start to device time at that moment with the freshest clock model (late binding).
///
/// Converting a whole long pattern up front would extrapolate the clock fit over the pattern's
/// length: a drift error of 3 ppm is 36 µs twelve seconds later. Fed within `horizon` of its
/// start, a segment's device time carries at most horizon × drift error.
struct SegmentFeeder {
    /// Pattern time zero in host time.
    let startHost: HostTime
    /// How far ahead of its start a segment is converted and queued.
    let horizon: HostDuration
    /// µs subtracted from every device start (the learnt fixed latency).
    let shift: Int64
    private let segments: [DriveSegment]
    private var next = 0
    /// Device start (64-bit) of each event's marking segment, as sent.
    private(set) var scheduled: [UInt32: Int64] = [:]

    init(program: DriveProgram, startHost: HostTime, horizon: HostDuration, shift: Int64) {
        self.startHost = startHost
        self.horizon = horizon
        self.shift = shift
        segments = program.segments
    }

    private var timeline = DeviceTimeline()

    /// Whether every segment has been queued.
    var isDone: Bool { next >= segments.count }

    /// When the next segment becomes due for queueing, nil when done.
    var nextFeedTime: HostTime? {
        isDone ? nil : startHost + .microseconds(segments[next].start) - horizon
    }

    /// Queues every segment whose start is within `horizon` of `now`.
    mutating func feed(now: HostTime, link: LinkSession) {
        while next < segments.count {
            let segment = segments[next]
            let startTime = startHost + .microseconds(segment.start)
            guard startTime - horizon <= now else { return }
            // Pattern time is host time: map both ends through the clock model, drift included.
            let mapped = timeline.map(
                hostStart: startTime.nanoseconds / 1_000, duration: segment.duration, clock: link.clock, shift: shift)
            if segment.eventID != 0 { scheduled[segment.eventID] = mapped.start }
            link.send(
                .segment(
                    SegmentCommand(
                        start: UInt32(truncatingIfNeeded: mapped.start), duration: mapped.duration, from: segment.from,
                        to: segment.to, event: segment.eventID)))
            next += 1
        }
    }
}
