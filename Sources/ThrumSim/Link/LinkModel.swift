/// How bytes cross the link between host and device in the simulation: when each chunk arrives.
///
/// A model sees every chunk one side writes, with the true time (µs) of the write, and returns
/// the true time at which the chunk is delivered to the other side, or nil to lose it.
/// Models may also corrupt bytes. They are deterministic for a given seed.
public protocol LinkModel {
    /// Returns when `bytes`, written at `time`, reach the other side, or nil when they are lost.
    /// May change `bytes` to model corruption.
    mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64?

    /// How long after `time` (µs) the host process actually runs when a timer of its fires at
    /// `time`: OS scheduling latency. The host reads its clock when it runs, so this delays the
    /// host's writes without making its timestamps wrong. 0 unless a model adds jitter.
    mutating func hostWakeLatency(at time: UInt64) -> UInt64

    /// The newest USB start of frame at or before true time `time` (µs) that the device sees: its
    /// 11-bit frame number and its true time. Nil on a link whose device sees none (a serial line,
    /// a USB-serial bridge: the bridge chip sees the frames, the microcontroller behind it does not).
    func startOfFrame(atOrBefore time: UInt64) -> (number: UInt16, time: UInt64)?

    /// When the host's USB IN transfer took the chunk this model last delivered device → host, as
    /// the device sees it: the true time (µs) at which a native-USB microcontroller's IN-complete
    /// interrupt fires, before the host's own latency in reading it. Nil on a link whose device
    /// cannot see it (a serial line; behind a USB-serial bridge the bridge chip sees it, the
    /// microcontroller does not).
    var lastInTransferCompletion: UInt64? { get }

    /// What the host's port says about this link: the time a byte takes on a UART between the
    /// port and the device (µs) when the port is one at a rate the host set — a USB-serial
    /// bridge or a plain serial line (``UartLine``) — nil when it is not (native USB, ideal).
    var lineByteTime: Double? { get }
}

extension LinkModel {
    /// No scheduling latency.
    public mutating func hostWakeLatency(at time: UInt64) -> UInt64 { 0 }

    /// No start-of-frame grid.
    public func startOfFrame(atOrBefore time: UInt64) -> (number: UInt16, time: UInt64)? { nil }

    /// No IN transfers the device sees.
    public var lastInTransferCompletion: UInt64? { nil }

    /// Not a UART the host knows of.
    public var lineByteTime: Double? { nil }
}

/// Which way a chunk travels.
public enum LinkDirection: Sendable, Hashable, CaseIterable {
    case hostToDevice
    case deviceToHost
}

/// A link with a fixed one-way latency and serialisation at a byte rate: no jitter, no loss.
public struct FixedLatencyLink: LinkModel {
    /// One-way latency in µs, added to every chunk.
    public var latency: UInt64
    /// Time to put one byte on the line, in µs (0 for an infinitely fast line).
    public var byteTime: Double
    private var busyUntil: [LinkDirection: Double] = [:]

    /// Creates a link with `latency` µs one way and `byteTime` µs per byte.
    public init(latency: UInt64 = 1_000, byteTime: Double = 0) {
        self.latency = latency
        self.byteTime = byteTime
    }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        // Bytes leave one after another: a chunk cannot start before the previous one has gone.
        let start = max(Double(time), busyUntil[direction] ?? 0)
        let end = start + byteTime * Double(bytes.count)
        busyUntil[direction] = end
        return UInt64(end.rounded(.up)) + latency
    }
}

/// A type-erased link model, for wrapping a link chosen at run time in a generic one.
public struct AnyLinkModel: LinkModel {
    private var base: any LinkModel

    /// Wraps `base`.
    public init(_ base: any LinkModel) { self.base = base }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        base.deliver(&bytes, writtenAt: time, direction: direction)
    }

    public mutating func hostWakeLatency(at time: UInt64) -> UInt64 { base.hostWakeLatency(at: time) }

    public func startOfFrame(atOrBefore time: UInt64) -> (number: UInt16, time: UInt64)? { base.startOfFrame(atOrBefore: time) }

    public var lastInTransferCompletion: UInt64? { base.lastInTransferCompletion }

    public var lineByteTime: Double? { base.lineByteTime }
}
