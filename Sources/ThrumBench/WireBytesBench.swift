import ThrumHarness
import ThrumCompiler
import ThrumLink
import ThrumPattern
import ThrumLibrary
import ThrumWire

/// Bytes on the wire per second of pattern over the bench's pattern set (``BenchPatterns``):
/// every pattern compiled for the default profile and its drive packed into sequenced frames as
/// the link packs them (payload ≤ 58 bytes, 6 bytes of framing), compared with a 1 kHz RTP stream
/// (one amplitude byte per millisecond, before any framing). Two forms: SEGMENTs (what a device of
/// protocol version 0 or 1 gets) and the compact stream of version 2 (PROTOCOL.md §3.4: the set
/// played one pattern after another on one connection, so each shape is sent once).
public enum WireBytesBench {
    /// Totals over the set.
    public struct Result: Sendable {
        /// Patterns measured.
        public var patterns = 0
        /// Patterns left out because they drive nothing (audio only, or silent).
        public var skipped = 0
        /// Frame bytes host→device as SEGMENTs, framing included.
        public var bytes = 0
        /// Frame bytes host→device in the compact stream, framing and shapes included.
        public var compactBytes = 0
        /// Seconds of pattern.
        public var seconds = 0.0
        /// SEGMENT bytes per second of pattern, over the whole set.
        public var bytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds : 0 }
        /// Compact-stream bytes per second of pattern, over the whole set.
        public var compactBytesPerSecond: Double { seconds > 0 ? Double(compactBytes) / seconds : 0 }
    }

    /// The RTP baseline, bytes per second.
    public static let rtpBytesPerSecond = 1_000.0

    /// Compiles every pattern and counts its frame bytes.
    public static func run(patterns: [BenchPattern], profile: ActuatorProfile = .default) -> Result {
        var result = Result()
        let compiler = PatternCompiler(profile: profile)
        var connection = CompactConnection()
        for entry in patterns {
            let program = compiler.compile(entry.pattern)
            guard program.duration > 0, !program.segments.isEmpty else {
                result.skipped += 1
                continue
            }
            result.patterns += 1
            result.bytes += frameBytes(program)
            result.compactBytes += connection.frameBytes(program)
            result.seconds += program.duration
        }
        return result
    }

    /// One connection to a version-2 device playing programs one after another (half a second
    /// apart), as the engine's link sends them: the segments in the device's form (a marked ramp
    /// up from 0 starts early so that it first drives on its onset: `ProgramPacker.deviceForm`),
    /// event ids numbered on across programs as the engine's marks are, each frame packed full.
    public struct CompactConnection {
        /// The link's encoder: its shape table lives as long as the connection.
        public private(set) var encoder = CompactStreamEncoder()
        private var origin: Int64 = 1_000_000
        private var nextEvent: UInt32 = 1

        public init() {}

        /// Frame bytes (framing included) of `program` played next.
        public mutating func frameBytes(_ program: DriveProgram) -> Int {
            let device = ProgramPacker.deviceForm(program)
            var events: [UInt32: UInt32] = [:]
            let start = origin - min(0, device.segments.first?.start ?? 0)
            let commands = device.segments.map { s -> SegmentCommand in
                var event: UInt32 = 0
                if s.eventID != 0 {
                    if events[s.eventID] == nil {
                        events[s.eventID] = nextEvent
                        nextEvent &+= 1
                    }
                    event = events[s.eventID]!
                }
                return SegmentCommand(
                    start: UInt32(truncatingIfNeeded: start + s.start), duration: s.duration, from: s.from, to: s.to, event: event)
            }
            origin = start + max(Int64((program.duration * 1e6).rounded()), device.segments.map(\.end).max() ?? 0) + 500_000
            return encoder.pack(commands).reduce(0) { $0 + $1.count + ProtocolConstants.frameOverhead }
        }
    }

    /// Bytes of the sequenced frames that carry `program`'s segments.
    public static func frameBytes(_ program: DriveProgram) -> Int {
        var total = 0
        var payload: [UInt8] = []
        func flush() {
            guard !payload.isEmpty else { return }
            total += Frame(direction: .hostToDevice, seq: 0, payload: payload).encode().count
            payload.removeAll()
        }
        for segment in program.segments {
            let message = HostMessage.segment(SegmentCommand(
                start: UInt32(truncatingIfNeeded: 1_000_000_000 + segment.start), duration: segment.duration,
                from: segment.from, to: segment.to, event: segment.eventID))
            if payload.count + message.encodedLength > ProtocolConstants.maxPayload { flush() }
            message.encode(into: &payload)
        }
        flush()
        return total
    }
}

/// Bytes per transient event and per drive segment of a continuous event or curve, over the
/// bench's pattern set: patterns made only of transients give the first, patterns without
/// transients the second (mixed ones are left out of the split). Measured three ways:
/// - the compact stream a version-2 device gets (``WireBytesBench/CompactConnection``: frames
///   packed full, framing included, each SHAPE counted once per connection over the set), the
///   figure the targets (≤ 8 / ≤ 4 B) are for;
/// - SEGMENT messages packed into frames, what a device of version 0 or 1 still gets;
/// - the compact program representation of stored libraries (``ProgramPacker``: items playing
///   shapes, each shape counted once over the whole set).
public enum WireSplitBench {
    public struct Result: Sendable {
        public var transients = 0
        public var transientStreamBytes = 0
        public var transientCompactBytes = 0
        public var segments = 0
        public var segmentStreamBytes = 0
        public var segmentCompactBytes = 0
        public var shapeBytes = 0

        public var streamPerTransient: Double? { transients > 0 ? Double(transientStreamBytes) / Double(transients) : nil }
        public var streamPerSegment: Double? { segments > 0 ? Double(segmentStreamBytes) / Double(segments) : nil }
        /// Program bytes per transient (the shapes they play are sent once, ``shapeBytes``).
        public var compactPerTransient: Double? { transients > 0 ? Double(transientCompactBytes) / Double(transients) : nil }
        /// Program and shape bytes per segment (a continuous event's ramps live in its shapes).
        public var compactPerSegment: Double? { segments > 0 ? Double(segmentCompactBytes + segmentShapeBytes) / Double(segments) : nil }
        /// Bytes of the shapes the continuous patterns play.
        public var segmentShapeBytes = 0
        /// Compact-stream frame bytes of the transient-only and of the continuous patterns.
        public var transientWireBytes = 0
        public var segmentWireBytes = 0
        /// Of those, SHAPE messages (sent once per shape per connection).
        public var shapesDefined = 0

        /// Compact-stream bytes per transient, framing and SHAPEs included.
        public var wirePerTransient: Double? { transients > 0 ? Double(transientWireBytes) / Double(transients) : nil }
        /// Compact-stream bytes per segment of the continuous patterns, framing included.
        public var wirePerSegment: Double? { segments > 0 ? Double(segmentWireBytes) / Double(segments) : nil }
    }

    public static func run(patterns: [BenchPattern], profile: ActuatorProfile = .default) -> Result {
        var r = Result()
        let compiler = PatternCompiler(profile: profile)
        var packer = ProgramPacker(), continuous = ProgramPacker()
        var connection = WireBytesBench.CompactConnection()
        for entry in patterns {
            let haptic = entry.pattern.events.filter { $0.type.isHaptic }
            let transients = haptic.filter { $0.type == .hapticTransient }.count
            guard !haptic.isEmpty, transients == 0 || transients == haptic.count else { continue }
            let program = compiler.compile(entry.pattern)
            guard !program.segments.isEmpty else { continue }
            let stream = WireBytesBench.frameBytes(program)
            let device = ProgramPacker.deviceForm(program)
            let compact = LibraryImage.encodeProgram(transients > 0 ? packer.pack(device).items : continuous.pack(device).items).count
            let wire = connection.frameBytes(program)
            if transients > 0 {
                r.transients += transients
                r.transientStreamBytes += stream
                r.transientCompactBytes += compact
                r.transientWireBytes += wire
            } else {
                r.segments += program.segments.count
                r.segmentStreamBytes += stream
                r.segmentCompactBytes += compact
                r.segmentWireBytes += wire
            }
        }
        r.shapesDefined = connection.encoder.shapesDefined
        r.shapeBytes = packer.shapes.reduce(0) { $0 + LibraryImage.encodeShape($1).count }
        r.segmentShapeBytes = continuous.shapes.reduce(0) { $0 + LibraryImage.encodeShape($1).count }
        return r
    }
}
