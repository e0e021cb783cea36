import ThrumHarness
import Foundation
import ThrumCompiler
import ThrumPattern
import ThrumWire

/// Bytes on the wire per second of pattern over a corpus of AHAP files: every pattern compiled
/// for the default profile and its SEGMENTs packed into sequenced frames as the link packs them
/// (payload ≤ 58 bytes, 6 bytes of framing), compared with a 1 kHz RTP stream (one amplitude
/// byte per millisecond, before any framing).
public enum WireBytesBench {
    /// Totals over the corpus.
    public struct Result: Sendable {
        public var files = 0
        public var skipped = 0
        public var bytes = 0
        public var seconds = 0.0
        /// Bytes per second of pattern, over the whole corpus.
        public var bytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds : 0 }
    }

    /// The RTP baseline, bytes per second.
    public static let rtpBytesPerSecond = 1_000.0

    /// Reads every `.ahap` (and AHAP-shaped `.json`) file under `directory`.
    public static func run(directory: String, profile: ActuatorProfile = .default) -> Result {
        var result = Result()
        let compiler = PatternCompiler(profile: profile)
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return result }
        for case let relative as String in walker where relative.hasSuffix(".ahap") {
            guard let pattern = try? HapticPattern(contentsOf: directory + "/" + relative, options: .lenient) else {
                result.skipped += 1
                continue
            }
            let program = compiler.compile(pattern)
            guard program.duration > 0, !program.segments.isEmpty else {
                result.skipped += 1
                continue
            }
            result.files += 1
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
