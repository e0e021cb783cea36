import Foundation

/// Every command and option of `thrum` as data, read from the usage texts `thrum CMD --help`
/// prints: the completions and the man page are made from it, so what they offer is what the help
/// says (and a test checks both against the options the code reads).
struct CommandCatalogue {
    struct Option: Equatable {
        /// `--port`, or a one-letter `-o`.
        var name: String
        /// The value's placeholder (`PATH`, `N`, `NAME|FILE.json`), nil for a flag.
        var value: String?
        /// The first line of its description in the help, when it has one.
        var summary: String
        /// The command it belongs to (`sim --board` takes fewer boards than `firmware --board`).
        var command: String = ""

        /// Whether the value names a file (for file-name completion).
        var takesFile: Bool {
            guard let value else { return false }
            return ["PATH", "FILE", "CSV", ".json", ".thl", "DIR"].contains { value.contains($0) }
        }
        /// Whether the value is a serial port.
        var takesPort: Bool { name == "--port" }
        /// Whether the value is an actuator profile (a built-in id or a file).
        var takesProfile: Bool { name == "--actuator" || name == "--profile" || name == "--mounted" }
        /// The words the value is one of, when the command accepts only those (`--board`, `--family`).
        var choices: [String]? {
            switch name {
            case "--board": return (command == SimCommand.name ? BoardCatalogue.simulatedBoards : BoardCatalogue.boards).map(\.id)
            case "--family": return PresetsCommand.familyWords.map(\.word)
            default: return nil
            }
        }
    }

    struct Command {
        var name: String
        var summary: String
        var usage: String
        /// Words after the command's name that select an action (`actuator list`).
        var actions: [String]
        var options: [Option]
        var hidden: Bool
    }

    var commands: [Command]

    static var thrum: CommandCatalogue {
        CommandCatalogue(
            commands: CommandRouter.commands.map { read($0, hidden: false) } + CommandRouter.hiddenCommands.map { read($0, hidden: true) })
    }

    static func read(_ type: any Subcommand.Type, hidden: Bool) -> Command {
        // As `thrum CMD --help` prints it: with `--place` where the command takes a port.
        let usage = LabgridPlace.usage(of: type)
        return Command(
            name: type.name, summary: type.summary, usage: usage, actions: actions(in: usage, of: type.name),
            options: options(in: usage, of: type.name), hidden: hidden)
    }

    /// `thrum NAME WORD …` lines of the synopsis: the WORDs (lower-case, not an option or a placeholder).
    static func actions(in usage: String, of name: String) -> [String] {
        var words: [String] = []
        for line in usage.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let body = trimmed.hasPrefix("Usage: ") ? String(trimmed.dropFirst(7)) : trimmed
            let tokens = body.split(separator: " ").map(String.init)
            guard tokens.count >= 3, tokens[0] == "thrum", tokens[1] == name,
                tokens[2].allSatisfy({ $0.isLowercase && $0.isLetter })
            else { continue }
            if !words.contains(tokens[2]) { words.append(tokens[2]) }
        }
        return words
    }

    /// Every `--option` (and `-x`) the usage text names for this command. Mentions of another
    /// command's options (`thrum play --recalibrate`, up to the end of the quote or clause) are
    /// left out. An option's value is the upper-case placeholder that follows it.
    static func options(in usage: String, of name: String) -> [Option] {
        let others = #"thrum (?!\#(name)\b)[a-z]+[^`)\n;,]*"#
        let text = usage.replacingOccurrences(of: others, with: " ", options: .regularExpression)
        let pattern = try! NSRegularExpression(pattern: #"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-z])(?:[ =]([A-Z][A-Za-z0-9_.|]*))?"#)
        var found: [Option] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The summaries come from the text as printed (the removal keeps every line in place).
        let printed = usage.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, line) in lines.enumerated() {
            let original = index < printed.count ? printed[index] : line
            let range = NSRange(line.startIndex..., in: line)
            for match in pattern.matches(in: line, range: range) {
                let optionName = String(line[Range(match.range(at: 1), in: line)!])
                if optionName == "--help" { continue }
                let value = Range(match.range(at: 2), in: line).map { String(line[$0]) }
                // A one-letter option is one only where it is defined (`-o, --output`) or given a
                // placeholder (`-o LIB.thl`): `swift build -c release` in a sentence is not.
                if !optionName.hasPrefix("--"), value == nil,
                    !line[Range(match.range(at: 1), in: line)!.upperBound...].hasPrefix(",")
                { continue }
                if let i = found.firstIndex(where: { $0.name == optionName }) {
                    if found[i].value == nil, let value { found[i].value = value }
                    if found[i].summary.isEmpty { found[i].summary = summary(of: optionName, in: original) }
                    continue
                }
                found.append(Option(name: optionName, value: value, summary: summary(of: optionName, in: original), command: name))
            }
        }
        return found
    }

    /// The description beside an option's own definition line (`  --port PATH   serial port …`).
    static func summary(of option: String, in line: String) -> String {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix(option + " ") || trimmed.hasPrefix(option + ",") || trimmed == option
            || trimmed.hasPrefix("-o, " + option)
        else { return "" }
        guard let gap = trimmed.range(of: #"\S\s{2,}"#, options: .regularExpression)
                ?? trimmed.range(of: #"(?<=[A-Z]) (?=[A-Z][a-z])"#, options: .regularExpression)
        else { return "" }
        return String(trimmed[trimmed.index(after: gap.lowerBound)...]).trimmingCharacters(in: .whitespaces)
    }
}
