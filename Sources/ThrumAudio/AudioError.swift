import ThrumPattern

/// Why an audio operation failed: a Core Haptics error code (``ThrumPattern/HapticErrorCode``),
/// the file or device concerned, and what was expected.
public struct AudioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The Core Haptics code: `invalidAudioResource` (−4824) for a file that cannot be decoded or
    /// is over a limit, `fileNotFound` (−4851) for a missing file, `invalidAudioSession` (−4815)
    /// for a sound device that cannot be opened or fails.
    public var code: HapticErrorCode
    /// The file or device name the error is about.
    public var subject: String
    /// What went wrong and what was expected.
    public var message: String

    /// Creates an error.
    public init(_ code: HapticErrorCode, subject: String, _ message: String) {
        self.code = code
        self.subject = subject
        self.message = message
    }

    public var description: String { "\(subject): \(message) [\(code)]" }
}
