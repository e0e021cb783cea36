import Foundation
import ThrumCompiler
import ThrumPattern

/// Builds a library image from a directory holding `library.json` and the AHAP files it names
/// (`thrum library build DIR -o LIB.thl`).
public struct LibraryBuilder: Sendable {
    /// The profile used when neither the manifest nor the caller names one.
    public var defaultProfile: ActuatorProfile
    /// Compiler options (the engine's defaults unless changed).
    public var compileOptions: CompileOptions

    /// Creates a builder.
    public init(defaultProfile: ActuatorProfile = .default, compileOptions: CompileOptions = .init()) {
        self.defaultProfile = defaultProfile
        self.compileOptions = compileOptions
    }

    /// What a build produced.
    public struct Output: Sendable {
        /// The image.
        public var image: LibraryImage
        /// The profile it was compiled for.
        public var profile: ActuatorProfile
        /// Warnings from reading AHAP files (`file:line:column: warning: …`).
        public var warnings: [String]
    }

    /// Reads `directory/library.json` and compiles every preset. `actuator` (a built-in id or a
    /// profile file) overrides the manifest's.
    public func build(directory: String, actuator: String? = nil) throws(LibraryBuildError) -> Output {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw LibraryBuildError(
                file: directory, message: "not a directory: give the library directory, the one holding \(LibraryManifest.fileName)")
        }
        let manifestPath = (directory as NSString).appendingPathComponent(LibraryManifest.fileName)
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            throw LibraryBuildError(file: manifestPath, message: "cannot read the manifest (a library directory holds \(LibraryManifest.fileName))")
        }
        let manifest = try LibraryManifest.parse([UInt8](data), file: manifestPath)
        return try build(manifest: manifest, directory: directory, manifestPath: manifestPath, actuator: actuator)
    }

    /// Compiles a parsed manifest; AHAP paths are relative to `directory`.
    public func build(
        manifest: LibraryManifest, directory: String, manifestPath: String = LibraryManifest.fileName, actuator: String? = nil
    ) throws(LibraryBuildError) -> Output {
        let profile = try resolveProfile(actuator ?? manifest.actuator, directory: directory, manifestPath: manifestPath)
        let compiler = PatternCompiler(profile: profile, options: compileOptions)
        var packer = ProgramPacker()
        var presets: [LibraryImage.Preset] = []
        var warnings: [String] = []
        for entry in manifest.entries {
            let pattern: HapticPattern
            switch entry.source {
            case .ahap(let relative):
                let path = relative.hasPrefix("/") ? relative : (directory as NSString).appendingPathComponent(relative)
                do {
                    let document = try AHAPReader(options: .init(baseDirectory: FilePathText.directory(of: path))).read(
                        contentsOf: path)
                    warnings += document.warnings.map { w in
                        var located = w
                        located.file = path
                        return located.description
                    }
                    pattern = document.pattern
                } catch {
                    var located = error
                    if located.file == (path as NSString).lastPathComponent { located.file = path }
                    throw LibraryBuildError(file: manifestPath, position: entry.position, message: "preset \(entry.id): \(located.description)")
                }
            case .systemPreset(let name):
                do {
                    switch try SystemPresets.preset(named: name).content(intensity: nil) {
                    case .pattern(let p):
                        pattern = p
                    case .romEffect(let effect):
                        presets.append(
                            LibraryImage.Preset(
                                id: entry.id, name: entry.name, trigger: entry.trigger, items: [.rom(after: 0, effect: effect, event: 1)]))
                        continue
                    }
                } catch {
                    throw LibraryBuildError(file: manifestPath, position: entry.position, message: "preset \(entry.id): \(error.description)")
                }
            }
            let program = ProgramPacker.deviceForm(compiler.compile(pattern))
            guard !program.segments.isEmpty else {
                throw LibraryBuildError(
                    file: manifestPath, position: entry.position, message: "preset \(entry.id) ('\(entry.name)') drives nothing (audio only or silent)")
            }
            let (items, lead) = packer.pack(program)
            guard lead <= 0xFFFF else {
                throw LibraryBuildError(file: manifestPath, position: entry.position, message: "preset \(entry.id): pre-shift of \(lead) µs is too long")
            }
            presets.append(LibraryImage.Preset(id: entry.id, name: entry.name, trigger: entry.trigger, lead: lead, items: items))
        }
        let registers = DriverRegisters.derive(from: profile)
        let record = LibraryImage.Profile(
            id: profile.id, ratedVoltage: registers.ratedVoltage, odClamp: registers.overdriveClamp, driveTime: registers.driveTime,
            olLraPeriod: registers.openLoopPeriod, sampleTime: registers.sampleTime)
        let image = LibraryImage(name: manifest.name, version: manifest.version, profile: record, shapes: packer.shapes, presets: presets)
        return Output(image: image, profile: profile, warnings: warnings)
    }

    private func resolveProfile(_ choice: String?, directory: String, manifestPath: String) throws(LibraryBuildError) -> ActuatorProfile {
        guard let choice else { return defaultProfile }
        if let builtIn = ActuatorProfile.builtIn(id: choice) { return builtIn }
        guard choice.hasSuffix(".json") else {
            let names = ActuatorProfile.builtIn.map(\.id).joined(separator: ", ")
            throw LibraryBuildError(file: manifestPath, message: "no actuator profile named '\(choice)' (known: \(names); or a FILE.json)")
        }
        let path = choice.hasPrefix("/") ? choice : (directory as NSString).appendingPathComponent(choice)
        let profile: ActuatorProfile
        do {
            profile = try ActuatorProfile.read(contentsOf: URL(fileURLWithPath: path), source: path).profile
        } catch {
            throw LibraryBuildError(
                file: path, position: error.position, message: error.message + (error.path.isEmpty ? "" : " (at \(error.path))"))
        }
        guard profile.id.utf8.count <= LibraryImage.profileIDBytes else {
            throw LibraryBuildError(file: path, message: "the profile id '\(profile.id)' must be at most \(LibraryImage.profileIDBytes) bytes")
        }
        return profile
    }
}
