import Foundation
import ThrumCompiler
import ThrumLibrary

/// `thrum library build DIR -o LIB.thl` and `thrum library inspect LIB.thl [--json]`: preset
/// library images (docs/library.md).
enum LibraryCommand: Subcommand {
    static let name = "library"
    static let summary = "build a preset library image (.thl) from a directory, or inspect one"
    static let usage = """
        Usage: thrum library build DIR -o LIB.thl [--actuator NAME|FILE.json] [--json]
               thrum library inspect LIB.thl [--json]
               thrum library list --port PATH [--baud N] [--json]

        build    compiles DIR/library.json (name, version, actuator, presets: id, name, ahap FILE
                 or preset NAME, optional trigger 0…7) for one actuator profile into a library
                 image: header, index, shapes, programs, names, CRC-32 (docs/library.md).
                 --actuator overrides the manifest's profile (default: the default profile).
        inspect  checks an image (size, format version, CRC, every offset) and shows its profile
                 and each preset: id, name, trigger, segments, events, length and bytes.
        list     reads the library a device holds back (checked) and lists its presets; --json
                 prints an array of objects with id, name, trigger, duration_s, events, bytes.
                 Play one with `thrum play id:N --port PATH`; flash with `thrum flash`.

        Options:
          -o, --output FILE   where build writes the image
          --actuator P        actuator profile (built-in id or FILE.json)
          --json              print a JSON object

        Example: thrum library build examples/library -o examples.thl && thrum library inspect examples.thl
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        guard let verb = arguments.leadingWord() else {
            throw UsageError(message: "give a subcommand: build, inspect or list")
        }
        switch verb {
        case "build": return try build(&arguments)
        case "inspect": return try inspect(&arguments)
        case "list": return try list(&arguments)
        default: throw UsageError(message: "unknown library subcommand '\(verb)' (expected build, inspect or list)")
        }
    }

    private static func build(_ arguments: inout ArgumentList) throws -> Int32 {
        let output = try arguments.shortOption("o") ?? arguments.option("output")
        let actuator = try arguments.option("actuator")
        let json = arguments.flag("json")
        let directories = try arguments.positionals()
        try arguments.finish()
        guard directories.count == 1, let directory = directories.first else {
            throw UsageError(message: directories.isEmpty ? "give the library directory (holding library.json)" : "give one directory")
        }
        guard let output else { throw UsageError(message: "give the image to write with -o LIB.thl") }
        try OutputFile.refuseOverwriting(output, option: "output", inputs: libraryInputs(directory: directory, actuator: actuator))
        let built: LibraryBuilder.Output
        let bytes: [UInt8]
        do {
            // A profile file given here is the user's path, from the working directory (the
            // manifest's own `actuator` is relative to the library directory).
            let given = actuator.map { choice in
                ActuatorProfile.builtIn(id: choice) != nil || choice.hasPrefix("/")
                    ? choice : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(choice)
            }
            built = try LibraryBuilder().build(directory: directory, actuator: given)
            bytes = try built.image.encode()
        } catch let error as LibraryBuildError {
            throw CommandFailure(message: error.description)
        } catch let error as LibraryImageError {
            throw CommandFailure(message: error.description)
        }
        for warning in built.warnings { printError(warning) }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: output))
        } catch {
            throw CommandFailure(message: "cannot write \(output): \(OutputFile.reason(for: error))")
        }
        let crc = LibraryImage.storedCRC(bytes)
        if json {
            JSONOutput.print([
                "command": "library build", "output": output, "bytes": bytes.count, "crc32": hexCRC(crc),
                "presets": built.image.presets.count, "shapes": built.image.shapes.count, "actuator": built.image.profile.id,
            ])
        } else {
            print("wrote \(output): \(built.image.presets.count) presets, \(built.image.shapes.count) shapes, \(bytes.count) bytes, CRC-32 \(hexCRC(crc)), actuator \(built.image.profile.id)")
        }
        return 0
    }

    /// The files `library build` reads, which its image may not replace: the manifest, the AHAP
    /// files and the profile file it names, and `--actuator FILE.json`.
    private static func libraryInputs(directory: String, actuator: String?) -> [InputFiles.Input] {
        let manifestPath = (directory as NSString).appendingPathComponent(LibraryManifest.fileName)
        var inputs: [InputFiles.Input] = [(manifestPath, "manifest")]
        if let actuator, ActuatorProfile.builtIn(id: actuator) == nil { inputs.append((actuator, "actuator profile")) }
        guard let data = FileManager.default.contents(atPath: manifestPath),
            let manifest = try? LibraryManifest.parse(String(decoding: data, as: UTF8.self), file: manifestPath)
        else { return inputs }
        func inDirectory(_ path: String) -> String { path.hasPrefix("/") ? path : (directory as NSString).appendingPathComponent(path) }
        if let file = manifest.actuator, ActuatorProfile.builtIn(id: file) == nil { inputs.append((inDirectory(file), "actuator profile")) }
        for entry in manifest.entries {
            if case .ahap(let file) = entry.source { inputs.append((inDirectory(file), "pattern of preset \(entry.id)")) }
        }
        return inputs
    }

    private static func inspect(_ arguments: inout ArgumentList) throws -> Int32 {
        let json = arguments.flag("json")
        let files = try arguments.positionals()
        try arguments.finish()
        guard files.count == 1, let file = files.first else {
            throw UsageError(message: files.isEmpty ? "give the library image to inspect" : "give one image")
        }
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure(message: InputFiles.unreadable(file)) }
        let bytes = [UInt8](data)
        let image: LibraryImage
        do {
            image = try LibraryImage.decode(bytes)
        } catch {
            throw CommandFailure(message: "\(file): \(error.description)")
        }
        let summaries = image.summaries()
        let crc = LibraryImage.storedCRC(bytes)
        let p = image.profile
        if json {
            JSONOutput.print([
                "command": "library inspect", "file": file, "name": image.name, "version": Int(image.version),
                "format_version": Int(LibraryImage.formatVersion), "bytes": bytes.count, "crc32": hexCRC(crc),
                "shapes": image.shapes.count,
                "actuator": [
                    "id": p.id, "rated_voltage": Int(p.ratedVoltage), "od_clamp": Int(p.odClamp), "drive_time": Int(p.driveTime),
                    "ol_lra_period": Int(p.olLraPeriod), "sample_time": Int(p.sampleTime),
                ] as [String: Any],
                "presets": summaries.map { s -> [String: Any] in
                    [
                        "id": Int(s.id), "name": s.name, "trigger": JSONOutput.orNull(s.trigger.map { Int($0) }), "segments": s.segments,
                        "rom_effects": s.romEffects, "events": s.events, "duration_s": JSONOutput.seconds(Double(s.durationMicroseconds) / 1e6),
                        "program_bytes": s.programBytes, "shape_bytes": s.shapeBytes, "index_bytes": s.indexBytes, "shapes": s.shapes,
                    ]
                },
            ])
            return 0
        }
        print("\(file): library '\(image.name)' version \(image.version), format \(LibraryImage.formatVersion), \(bytes.count) bytes, CRC-32 \(hexCRC(crc))")
        print("actuator \(p.id): RATED_VOLTAGE \(p.ratedVoltage), OD_CLAMP \(p.odClamp), DRIVE_TIME \(p.driveTime), OL_LRA_PERIOD \(p.olLraPeriod), SAMPLE_TIME \(p.sampleTime)")
        print("\(image.presets.count) presets, \(image.shapes.count) shapes")
        let width = max(4, summaries.map(\.name.count).max() ?? 4)
        print("   id  " + "name".padding(toLength: width, withPad: " ", startingAt: 0) + "  trig  segs  events   length  program  shapes  index")
        for s in summaries {
            let trigger = s.trigger.map { String($0) } ?? "-"
            print(
                pad(String(s.id), 5) + "  " + s.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + pad(trigger, 4) + "  "
                    + pad(String(s.segments + s.romEffects), 4) + "  " + pad(String(s.events), 6) + "  "
                    + pad(String(format: "%.0f ms", Double(s.durationMicroseconds) / 1000), 7) + "  " + pad("\(s.programBytes) B", 7) + "  "
                    + pad("\(s.shapeBytes) B", 6) + "  " + pad("\(s.indexBytes) B", 5))
        }
        print("(shape bytes count every shape a preset plays; shapes are stored once and shared)")
        return 0
    }

    private static func list(_ arguments: inout ArgumentList) throws -> Int32 {
        let options = try DeviceCommandOptions.take(from: &arguments)
        guard options.port != nil else {
            throw UsageError(message: "give the device with --port PATH (the built-in virtual device has no storage; serve one with `thrum sim --storage FILE`)")
        }
        let target = try options.target()
        let connection = try DeviceConnection.open(target: target, profile: options.profile, configure: false)
        defer { target.close() }
        let library = try DeviceLibrary.read(connection)
        guard case .active(let image, _) = library.state else {
            if options.json {
                JSONOutput.print([[String: Any]]())
                return 0
            }
            print(library.text)
            return 0
        }
        if options.json {
            JSONOutput.print(DeviceLibrary.presetsJSON(image))
            return 0
        }
        print(library.text)
        for s in image.summaries() {
            print(
                pad(String(s.id), 5) + "  " + s.name + (s.trigger.map { "  [trigger \($0)]" } ?? "")
                    + String(format: "  %.0f ms, ", Double(s.durationMicroseconds) / 1000) + counted(s.events, "event"))
        }
        return 0
    }

    private static func pad(_ s: String, _ n: Int) -> String { String(repeating: " ", count: max(0, n - s.count)) + s }

    static func hexCRC(_ crc: UInt32) -> String {
        let digits = String(crc, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}
