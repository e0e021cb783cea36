import Foundation
import ThrumAudio
import ThrumCompiler
import ThrumPattern

/// The files a command reads, which none of the files it writes may replace (checked with
/// ``OutputFile/refuseOverwriting(_:option:inputs:)`` before anything is written).
enum InputFiles {
    /// One input: its path as given, and what it is, for the message.
    typealias Input = (path: String, what: String)

    /// `--actuator FILE.json` (or `--profile`) as given, when it names a file rather than a
    /// built-in profile; `arguments` is left as it was.
    static func actuator(in arguments: ArgumentList) -> [Input] {
        guard let choice = arguments.peekOption("actuator") ?? arguments.peekOption("profile"),
            ActuatorProfile.builtIn(id: choice) == nil
        else { return [] }
        return [(choice, "actuator profile")]
    }

    /// "cannot read FILE: why" for a file that `FileManager.contents(atPath:)` did not read.
    static func unreadable(_ file: String) -> String {
        var isDirectory: ObjCBool = false
        let shown = TextEscaping.escaped(file)
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else { return "cannot read \(shown): no such file" }
        if isDirectory.boolValue { return "cannot read \(shown): it is a directory, not a file" }
        return access(file, R_OK) != 0 ? "cannot read \(shown): permission denied" : "cannot read \(shown)"
    }

    /// The pattern file `argument` (not a `preset:NAME`) and the sounds its audio events play.
    static func pattern(_ source: PatternSource, argument: String) -> [Input] {
        guard case .pattern(let pattern) = source.content, FileManager.default.fileExists(atPath: argument) else { return [] }
        var inputs: [Input] = [(argument, "pattern")]
        let directories = [FilePathText.directory(of: argument), FileManager.default.currentDirectoryPath].map {
            $0.isEmpty ? "." : $0
        }
        for event in pattern.events {
            if let waveform = event.waveform, let path = AudioResource.resolve(waveform.path, in: directories) {
                inputs.append((path, "audio file"))
            }
        }
        return inputs
    }
}
