import Foundation

/// The parts of a file path given as text. Foundation's `NSString.deletingLastPathComponent` on
/// Linux traps on a one-character name without a slash (`--csv a`, `thrum studio x`): every
/// path a user types goes through here instead.
public enum FilePathText {
    /// The directory part of `path`: "" for a bare name, "/" for a file at the root, otherwise
    /// what `NSString.deletingLastPathComponent` gives.
    public static func directory(of path: String) -> String {
        guard path.contains("/") else { return "" }
        return (path as NSString).deletingLastPathComponent
    }
}
