import Foundation

// Required-field helpers shared by event parameters, parameters and curves, and the audio check.
extension AHAPDecoder {
    /// A required string member, else `badParameterEntry` (−4831).
    func requiredString(
        _ member: JSONTapeMember?, key: String = "ParameterID", in node: JSONTapeValue, path: LazyPath, expected: @autoclosure () -> String
    )
        throws(PatternError) -> String
    {
        guard let member else {
            throw error(.badParameterEntry, node.position, join(path(), key), "missing \(TextEscaping.quotedExcerpt(key)): expected \(expected())")
        }
        guard let s = member.value.stringValue else {
            throw error(
                .badParameterEntry, member.value.position, join(path(), key),
                "\(TextEscaping.quotedExcerpt(key)) is \(article(member.value.typeName)), expected \(expected())")
        }
        return s
    }

    /// A required number member, else `badParameterEntry` (−4831).
    func requiredNumber(
        _ member: JSONTapeMember?, key: String = "ParameterValue", in node: JSONTapeValue, path: LazyPath, expected: @autoclosure () -> String
    )
        throws(PatternError) -> Double
    {
        guard let member else {
            throw error(.badParameterEntry, node.position, join(path(), key), "missing \(TextEscaping.quotedExcerpt(key)): expected \(expected())")
        }
        guard let d = number(member.value) else {
            throw error(
                .badParameterEntry, member.value.position, join(path(), member.key),
                "\(TextEscaping.quotedExcerpt(member.key)) is \(article(member.value.typeName)), expected \(expected())")
        }
        return d
    }

    /// Warns when an audio file cannot be found where Core Haptics would look (absolute paths as
    /// given; relative ones in each search directory). Without search directories a relative path
    /// is not checked.
    mutating func checkAudioFile(_ file: String, at position: SourcePosition, path: String) {
        guard checksAudioFiles else { return }
        let candidates: [String]
        if file.hasPrefix("/") {
            candidates = [file]
        } else {
            candidates = audioSearchDirectories.map { ($0 as NSString).appendingPathComponent(file) }
        }
        guard !candidates.isEmpty else { return }
        if candidates.contains(where: { FileManager.default.fileExists(atPath: $0) }) { return }
        let looked = file.hasPrefix("/") ? "" : " (looked in \(audioSearchDirectories.joined(separator: ", ")))"
        warn(.audioFileNotFound, position, path, "audio file '\(file)' not found\(looked)")
    }
}
