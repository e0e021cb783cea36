import ThrumHarness
import ThrumCompiler
import ThrumPattern
import ThrumLibrary
import ThrumWire

/// Bytes on the wire per second of pattern over the bench's pattern set (``BenchPatterns``):
/// every pattern compiled for the default profile and its SEGMENTs packed into sequenced frames as
/// the link packs them (payload ≤ 58 bytes, 6 bytes of framing), compared with a 1 kHz RTP stream
/// (one amplitude byte per millisecond, before any framing).
public enum WireBytesBench {
    /// Totals over the set.
    public struct Result: Sendable {
        /// Patterns measured.
        public var patterns = 0
        /// Patterns left out because they drive nothing (audio only, or silent).
        public var skipped = 0
        /// Frame bytes host→device, framing included.
        public var bytes = 0
        /// Seconds of pattern.
        public var seconds = 0.0
        /// Bytes per second of pattern, over the whole set.
        public var bytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds : 0 }
    }

    /// The RTP baseline, bytes per second.
    public static let rtpBytesPerSecond = 1_000.0

    /// Compiles every pattern and counts its frame bytes.
    public static func run(patterns: [BenchPattern], profile: ActuatorProfile = .default) -> Result {
        var result = Result()
        let compiler = PatternCompiler(profile: profile)
        for entry in patterns {
            let program = compiler.compile(entry.pattern)
            guard program.duration > 0, !program.segments.isEmpty else {
                result.skipped += 1
                continue
            }
            result.patterns += 1
            result.bytes += frameBytes(program)
            result.seconds += program.duration
        }
        return result
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
/// transients the second (mixed ones are left out of the split). Measured two ways:
/// - the stream as the engine sends it today (SEGMENT messages packed into frames, framing
///   included), the figure the targets (≤ 8 / ≤ 4 B) are for;
/// - the compact program representation of stored libraries (``ProgramPacker``: items playing
///   shapes, each shape counted once over the whole set, as a connection would send it once).
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
    }

    public static func run(patterns: [BenchPattern], profile: ActuatorProfile = .default) -> Result {
        var r = Result()
        let compiler = PatternCompiler(profile: profile)
        var packer = ProgramPacker(), continuous = ProgramPacker()
        for entry in patterns {
            let haptic = entry.pattern.events.filter { $0.type.isHaptic }
            let transients = haptic.filter { $0.type == .hapticTransient }.count
            guard !haptic.isEmpty, transients == 0 || transients == haptic.count else { continue }
            let program = compiler.compile(entry.pattern)
            guard !program.segments.isEmpty else { continue }
            let stream = WireBytesBench.frameBytes(program)
            let device = ProgramPacker.deviceForm(program)
            let compact = LibraryImage.encodeProgram(transients > 0 ? packer.pack(device).items : continuous.pack(device).items).count
            if transients > 0 {
                r.transients += transients
                r.transientStreamBytes += stream
                r.transientCompactBytes += compact
            } else {
                r.segments += program.segments.count
                r.segmentStreamBytes += stream
                r.segmentCompactBytes += compact
            }
        }
        r.shapeBytes = packer.shapes.reduce(0) { $0 + LibraryImage.encodeShape($1).count }
        r.segmentShapeBytes = continuous.shapes.reduce(0) { $0 + LibraryImage.encodeShape($1).count }
        return r
    }
}
