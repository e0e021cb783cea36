import Foundation
import ThrumPattern

/// A subcommand of `thrum`.
protocol Subcommand: Sendable {
    /// The word that selects it (`play`).
    static var name: String { get }
    /// One line for `thrum help`.
    static var summary: String { get }
    /// The full usage text for `thrum NAME --help`.
    static var usage: String { get }
    /// Runs with the arguments after the subcommand's name; returns the exit code.
    static func run(_ arguments: inout ArgumentList) throws -> Int32
}

/// A failure the user should read: printed as `thrum: message`, exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32 = 1
    /// Whether the command already printed this failure as its `--json` document (`play`, whose
    /// document carries the playback so far), so the router does not print a second one.
    var reportedAsJSON = false
    var description: String { message }
}

/// Picks the subcommand and turns errors into messages and exit codes (never a stack trace).
enum CommandRouter {
    static let commands: [any Subcommand.Type] = [
        PlayCommand.self, RenderCommand.self, ValidateCommand.self, PresetsCommand.self, BenchCommand.self,
        SimCommand.self, DevicesCommand.self, ActuatorCommand.self, CalibrateCommand.self, InfoCommand.self, MonitorCommand.self,
        LibraryCommand.self, FlashCommand.self, FirmwareCommand.self, DoctorCommand.self, StudioCommand.self,
    ]
    /// Commands that `thrum help` does not list (tools for working on Thrum itself).
    static let hiddenCommands: [any Subcommand.Type] = [DevCommand.self]

    static func command(named word: String) -> (any Subcommand.Type)? {
        (commands + hiddenCommands).first { $0.name == word }
    }

    static func run(_ arguments: [String]) -> Int32 {
        guard let word = arguments.first, word != "help", word != "--help", word != "-h" else {
            if arguments.count > 1, let command = command(named: arguments[1]) {
                print(LabgridPlace.usage(of: command))
            } else if arguments.count > 1, !["help", "--help", "-h"].contains(arguments[1]) {
                printError("unknown command '\(arguments[1])'\n\n\(overview)")
                return 2
            } else {
                print(overview)
            }
            return 0
        }
        if word == "--version" {
            print("thrum \(ThrumVersion.string)")
            return 0
        }
        guard let command = command(named: word) else {
            printError("unknown command '\(word)'\n\n\(overview)")
            return 2
        }
        var list = ArgumentList(arguments.dropFirst())
        if list.flag("help") || arguments.dropFirst().contains("-h") {
            print(LabgridPlace.usage(of: command))
            return 0
        }
        // With `--json` a failure is a JSON document on standard output too, unless the command
        // printed its own (`play`: its report carries the playback so far).
        let jsonErrors = arguments.dropFirst().contains("--json")
        do {
            // `--place NAME` (labgrid): acquired here, and released when the command ends.
            let placed = try LabgridPlace.substitute(arguments)
            defer { for lease in placed.leases { lease.end() } }
            if !placed.leases.isEmpty { list = ArgumentList(placed.arguments.dropFirst()) }
            return try command.run(&list)
        } catch let error as UsageError {
            // One line saying what is wrong, and where the options are: the whole usage would
            // bury the line under a screenful of help.
            printError("\(error.message)\nRun 'thrum \(command.name) --help' for its options.")
            if jsonErrors { printJSONError(command: command.name, kind: "usage", message: error.message, exitCode: 2) }
            return 2
        } catch let error as CommandFailure {
            printError(error.message)
            if jsonErrors && !error.reportedAsJSON {
                printJSONError(command: command.name, kind: "failure", message: error.message, exitCode: error.exitCode)
            }
            return error.exitCode
        } catch {
            printError("\(error)")
            if jsonErrors { printJSONError(command: command.name, kind: "failure", message: "\(error)", exitCode: 1) }
            return 1
        }
    }

    /// The JSON object a `--json` command prints on standard output when it fails:
    /// `{"command", "error": {"kind": "usage" | "failure", "message"}, "exit_code"}`.
    static func jsonError(command: String, kind: String, message: String, exitCode: Int32) -> [String: Any] {
        ["command": command, "error": ["kind": kind, "message": message], "exit_code": Int(exitCode)]
    }

    private static func printJSONError(command: String, kind: String, message: String, exitCode: Int32) {
        JSONOutput.print(jsonError(command: command, kind: kind, message: TextEscaping.shorteningLongRuns(message), exitCode: exitCode))
    }

    static var overview: String {
        var text = "thrum \(ThrumVersion.string): play Core Haptics patterns on LRA actuators\n\nUsage: thrum <command> [options]\n\nCommands:\n"
        for command in commands {
            text += "  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.summary + "\n"
        }
        text += "\nRun 'thrum <command> --help' for a command's options."
        return text
    }
}

/// Prints `thrum: message` to standard error; a value of more than 200 characters in it (an
/// option's 100 kB value, a path) is shown by its first 80 and its length.
func printError(_ message: String) {
    var stream = StandardError()
    print("thrum: \(TextEscaping.shorteningLongRuns(message))", to: &stream)
}

/// Standard error as a text output stream. A write that fails (`2> /dev/full`) is dropped: there
/// is nowhere left to say so, and the exit status still tells.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) { try? FileHandle.standardError.write(contentsOf: Data(string.utf8)) }
}

/// Flushes standard output (needed before long-running loops so that pipes see lines at once).
func flushStandardOutput() { fflush(nil) }

enum ThrumVersion {
    static let string = "0.1.0"
}
