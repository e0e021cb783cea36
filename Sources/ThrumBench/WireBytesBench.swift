import ThrumHarness
import ThrumCompiler
import ThrumPattern
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
