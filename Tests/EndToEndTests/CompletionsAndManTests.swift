import Foundation
import XCTest

/// The completions (bash, zsh, fish) and the man page offer every command and every option, and
/// tools/install.sh puts them where shells and `man` look (`InstallTests`). The options are checked against two
/// sources outside the generators: each command's `--help` text, and the option names the CLI's
/// code reads (every `arguments.flag/option/options/number("NAME")` in Sources/thrum).
final class CompletionsAndManTests: XCTestCase {
    /// The commands `thrum help` lists, and the hidden `dev`.
    func commands() throws -> [String] {
        let help = try output(["help"])
        let listed = help.components(separatedBy: "Commands:\n")[1].split(separator: "\n")
            .prefix { $0.hasPrefix("  ") }.map { String($0.split(separator: " ")[0]) }
        XCTAssertGreaterThanOrEqual(listed.count, 14, help)
        return listed + ["dev"]
    }

    func output(_ arguments: [String]) throws -> String {
        let result = try ThrumProcess.run(arguments)
        XCTAssertEqual(result.status, 0, result.standardError)
        return result.standardOutput
    }

    /// Every `--name` a command's help names for itself (not in a `thrum OTHER …` mention).
    func helpOptions(_ command: String) throws -> Set<String> {
        let help = try output([command, "--help"])
        let own = help.replacingOccurrences(of: #"thrum (?!\#(command)\b)[a-z]+[^`)\n;,]*"#, with: " ", options: .regularExpression)
        let regex = try NSRegularExpression(pattern: #"(?<![\w-])--[a-z][a-z0-9-]*"#)
        return Set(regex.matches(in: own, range: NSRange(own.startIndex..., in: own)).map { String(own[Range($0.range, in: own)!]) })
            .subtracting(["--help"])
    }

    /// Every option name the CLI's code reads.
    func optionsTheCodeReads() throws -> Set<String> {
        let directory = TestPaths.packageRoot.appendingPathComponent("Sources/thrum")
        let regex = try NSRegularExpression(pattern: #"\.(?:flag|option|options|number|peekOption)\("([a-z][a-z0-9-]*)""#)
        var names: Set<String> = []
        for case let file as String in FileManager.default.enumerator(atPath: directory.path)! where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert("--" + String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        return names
    }

    /// `thrum firmware flash --board <TAB>` offered the files of the directory and the options,
    /// not the boards; `presets --family <TAB>` likewise. Bash's completion, run as bash runs it,
    /// offers the words; zsh and fish list them.
    func testBoardAndFamilyValuesAreCompletedWithTheirWords() throws {
        let dir = try CLITestSupport.scratchDirectory(for: self)
        let script = try CLITestSupport.write(try output(["dev", "completions", "bash"]), named: "thrum.bash", in: dir)
        let probe = """
            source '\(script)'
            for line in 'firmware flash --board ' 'firmware flash --board n' 'presets --family ' 'sim --board ' 'sim --mcu atmega328p --board n'; do
                read -ra COMP_WORDS <<< "thrum $line"; [[ $line == *' ' ]] && COMP_WORDS+=('')
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _thrum; echo "${COMPREPLY[*]}"
            done
            """
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["-c", probe]
        bash.currentDirectoryURL = dir
        let pipe = Pipe()
        bash.standardOutput = pipe
        try bash.run()
        let lines = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        bash.waitUntilExit()
        // `sim --board` takes the simulated (AVR) boards only: bluepill it refuses is not offered.
        XCTAssertEqual(
            lines, ["uno nano nano-old bluepill", "nano nano-old", "uikit swiftui watchos macos rom", "uno nano nano-old", "nano nano-old"])
        let zsh = try output(["dev", "completions", "zsh"])
        XCTAssertTrue(zsh.contains("'--board[uno, nano, nano-old, bluepill]:B:(uno nano nano-old bluepill)'"))
        let zshSim = try XCTUnwrap(zsh.components(separatedBy: "\n        sim) _arguments").dropFirst().first).components(separatedBy: ";;")[0]
        XCTAssertNotNil(zshSim.range(of: #"'--board\[[^\]]*\]:B:\(uno nano nano-old\)'"#, options: .regularExpression), zshSim)
        let fish = try output(["dev", "completions", "fish"])
        XCTAssertTrue(fish.contains("-l family -x -a 'uikit swiftui watchos macos rom'"))
        XCTAssertTrue(fish.contains("-n '__fish_seen_subcommand_from firmware' -l board -x -a 'uno nano nano-old bluepill'"), fish)
        XCTAssertTrue(fish.contains("-n '__fish_seen_subcommand_from sim' -l board -x -a 'uno nano nano-old'"), fish)
    }

    func testEveryCommandAndOptionIsInEachCompletionAndTheManPage() throws {
        let bash = try output(["dev", "completions", "bash"])
        let zsh = try output(["dev", "completions", "zsh"])
        let fish = try output(["dev", "completions", "fish"])
        let man = try output(["dev", "man"])
        var offered: Set<String> = []
        for command in try commands() {
            let options = try helpOptions(command)
            XCTAssertFalse(options.isEmpty || command == "dev" && options.count < 3, command)
            // bash: the command's `opts` word list.
            let bashLine = try XCTUnwrap(
                bash.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(command)) opts=") },
                "bash: \(command)")
            let bashWords = Set(bashLine.split(separator: "\"")[1].split(separator: " ").map(String.init))
            // zsh: the command's _arguments block.
            let zshBlock = try XCTUnwrap(zsh.components(separatedBy: "\n        \(command)) _arguments").dropFirst().first, "zsh: \(command)")
                .components(separatedBy: ";;")[0]
            // man: the command's section, up to the next one.
            let manSection = try XCTUnwrap(man.components(separatedBy: ".SH \"THRUM \(command.uppercased())\"").dropFirst().first, "man: \(command)")
                .components(separatedBy: "\n.SH ")[0]
            XCTAssertTrue(fish.contains("-a \(command) -d "), "fish: \(command)")
            XCTAssertTrue(man.contains(".TP\n\\fB\(command)\\fR\n"), "man: \(command) in COMMANDS")
            for option in options {
                XCTAssertTrue(bashWords.contains(option), "bash: \(command) \(option)")
                XCTAssertTrue(zshBlock.contains("'\(option)["), "zsh: \(command) \(option)")
                XCTAssertTrue(
                    fish.contains("-n '__fish_seen_subcommand_from \(command)' -l \(option.dropFirst(2))"), "fish: \(command) \(option)")
                XCTAssertTrue(manSection.contains("\\fB\(option.replacingOccurrences(of: "-", with: "\\-"))\\fR"), "man: \(command) \(option)")
            }
            offered.formUnion(bashWords.filter { $0.hasPrefix("--") })
        }
        let read = try optionsTheCodeReads()
        XCTAssertGreaterThan(read.count, 40, "the option names were found in the sources")
        let missing = read.subtracting(offered)
        XCTAssertEqual(missing, [], "options the code reads that no completion offers")
        // The scripts parse.
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/bin/bash")
        check.arguments = ["-n", "-c", bash]
        try check.run()
        check.waitUntilExit()
        XCTAssertEqual(check.terminationStatus, 0, "bash -n")
    }

    // tools/install.sh puts them in place: InstallTests (real time: it runs the installed `thrum sim`).
}
