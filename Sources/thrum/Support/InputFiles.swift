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
