// swift-tools-version:6.0
//
// Thrum: plays Core Haptics patterns on real LRA actuators over USB-serial.
// Layout and layering: see docs/architecture.md. Dependencies point one way:
// ThrumPattern ← ThrumCompiler ← ThrumEngine → ThrumLink → ThrumWire; ThrumSim hosts the C
// firmware core behind chip and actuator models and never depends on ThrumEngine.
import PackageDescription

let package = Package(
    name: "Thrum",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "thrum", targets: ["thrum"]),
        .library(
            name: "Thrum",
            targets: [
                "ThrumTime", "ThrumPattern", "ThrumCompiler", "ThrumAudio", "ThrumWire", "ThrumLink", "ThrumEngine",
                "ThrumSim", "ThrumHarness", "ThrumLibrary", "Thrum",
            ]),
    ],
    targets: [
        // Clocks (the real monotonic clock and a manually advanced one for virtual time) and the
        // seeded generator (SplitMix64) the simulator, the bench and the tests share.
        .target(name: "ThrumTime"),
        // Core Haptics model, AHAP reader and writer, diagnostics, presets.
        .target(name: "ThrumPattern"),
        // Actuator profiles, rendering semantics, drive programs.
        .target(name: "ThrumCompiler", dependencies: ["ThrumPattern", "ThrumTime"]),
        // Protocol codec; no Foundation, mirrors the C codec one to one.
        .target(name: "ThrumWire"),
        // libserialport, found through pkg-config.
        .systemLibrary(
            name: "CSerialPort",
            pkgConfig: "libserialport",
            providers: [.apt(["libserialport-dev"])]),
        // ALSA (libasound2-dev) and libsndfile (libsndfile1-dev), both LGPL, linked dynamically.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        // CivetWeb (libcivetweb-dev, MIT): HTTP and WebSocket for `thrum studio`; no pkg-config file.
        .systemLibrary(name: "CCivetWeb", providers: [.apt(["libcivetweb-dev"])]),
        // Audio events: decoding, synthesis, the sound device's timeline, sinks (ALSA, modelled).
        .target(name: "ThrumAudio", dependencies: ["ThrumCompiler", "ThrumPattern", "ThrumTime", "CALSA", "CSndFile"]),
        // Transports, reliable link, clock sync.
        .target(name: "ThrumLink", dependencies: ["ThrumWire", "ThrumTime", "CSerialPort"]),
        // The portable C firmware core, compiled for the host so the virtual device runs it.
        .target(
            name: "CThrumFirmware",
            path: "hardware/firmware",
            exclude: ["ports/avr", "ports/cortex-m", "tests", "Makefile", "README.md"],
            sources: ["core", "ports/host-sim"],
            publicHeadersPath: "include",
            cSettings: [.unsafeFlags(["-std=c99", "-Wall", "-Wextra"])]),
        // Virtual device: firmware core + DRV2605L register model + LRA physics + link models.
        .target(name: "ThrumSim", dependencies: ["ThrumWire", "ThrumTime", "ThrumLink", "CThrumFirmware"]),
        // Preset library images (.thl): manifest, compact programs (shapes), binary layout, CRC-32.
        .target(name: "ThrumLibrary", dependencies: ["ThrumCompiler", "ThrumPattern", "ThrumWire"]),
        // Core-Haptics-shaped engine, players, prepare, feedback generators.
        .target(
            name: "ThrumEngine", dependencies: ["ThrumCompiler", "ThrumAudio", "ThrumLink", "ThrumWire", "ThrumTime", "ThrumLibrary"]),
        // Wires the whole stack for the CLI, end-to-end tests and benchmarks.
        .target(name: "ThrumHarness", dependencies: ["ThrumEngine", "ThrumSim", "ThrumCompiler", "ThrumPattern"]),
        // One import for the Core-Haptics-shaped API (`import Thrum`, as `import CoreHaptics`), and
        // the default device `HapticEngine()` plays on.
        .target(
            name: "Thrum",
            dependencies: ["ThrumEngine", "ThrumPattern", "ThrumCompiler", "ThrumTime", "ThrumHarness", "ThrumLink", "ThrumSim", "ThrumAudio"]),
        // Benchmarks (`thrum bench`): every timing and size figure beside its baseline, in virtual
        // time. Kept out of the library users link.
        .target(
            name: "ThrumBench",
            dependencies: [
                "ThrumHarness", "ThrumEngine", "ThrumSim", "ThrumCompiler", "ThrumPattern", "ThrumLink", "ThrumWire", "ThrumAudio",
                "ThrumLibrary",
            ]),
        // Thrum Studio's engine-free parts: the server on CivetWeb, the request guard, the served
        // directory, the file watcher, AHAP edits in place, the embedded page (Web/, generated).
        .target(name: "ThrumStudio", dependencies: ["ThrumPattern", "CCivetWeb"], exclude: ["Web"]),
        // The command-line tool. It declares every module it imports, and reads the engine only
        // through its public surface (ThrumTests' CLISurfaceTests checks both).
        .executableTarget(
            name: "thrum",
            dependencies: [
                "ThrumBench", "ThrumHarness", "ThrumEngine", "ThrumSim", "ThrumCompiler", "ThrumPattern", "ThrumLink", "ThrumAudio",
                "ThrumLibrary", "ThrumWire", "ThrumTime", "CSerialPort", "ThrumStudio",
            ]),

        // Shared by the test targets: the project's own fixtures, the package root, the policy for
        // the public material beside the repository (../shared), helpers more than one target uses.
        .target(name: "ThrumTestSupport", dependencies: ["ThrumPattern"], path: "Tests/ThrumTestSupport", exclude: ["Fixtures"]),

        .testTarget(name: "ThrumTimeTests", dependencies: ["ThrumTime"]),
        .testTarget(name: "ThrumPatternTests", dependencies: ["ThrumPattern", "ThrumTestSupport", "ThrumTime"]),
        .testTarget(name: "ThrumCompilerTests", dependencies: ["ThrumCompiler", "ThrumTime", "ThrumTestSupport"]),
        .testTarget(name: "ThrumWireTests", dependencies: ["ThrumWire", "CThrumFirmware", "ThrumTime", "ThrumTestSupport"]),
        .testTarget(name: "ThrumAudioTests", dependencies: ["ThrumAudio", "ThrumTime", "ThrumPattern"]),
        .testTarget(name: "ThrumLibraryTests", dependencies: ["ThrumLibrary", "ThrumCompiler", "ThrumPattern", "ThrumTestSupport"]),
        .testTarget(name: "ThrumLinkTests", dependencies: ["ThrumLink", "ThrumTime"]),
        .testTarget(name: "ThrumSimTests", dependencies: ["ThrumSim", "ThrumTime", "ThrumLink", "ThrumWire"]),
        .testTarget(name: "ThrumEngineTests", dependencies: ["ThrumEngine", "ThrumAudio", "ThrumSim", "ThrumHarness", "ThrumTestSupport"]),
        .testTarget(name: "ThrumHarnessTests", dependencies: ["ThrumHarness", "ThrumTestSupport"]),
        .testTarget(name: "ThrumTests", dependencies: ["Thrum", "ThrumHarness", "ThrumSim", "ThrumTestSupport"]),
        // The Core Haptics guides' samples ported by renames only, checked against the chip.
        .testTarget(name: "SamplePortTests", dependencies: ["Thrum", "ThrumHarness", "ThrumSim", "ThrumTestSupport"]),
        .testTarget(name: "ThrumStudioTests", dependencies: ["ThrumStudio", "ThrumPattern", "ThrumTestSupport"]),
        .testTarget(name: "ThrumBenchTests", dependencies: ["ThrumBench", "ThrumHarness", "ThrumTestSupport", "ThrumTime"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "ThrumBench", "ThrumHarness", "ThrumEngine", "ThrumSim", "ThrumCompiler", "ThrumPattern", "ThrumLink",
                "ThrumTestSupport",
                "ThrumWire",
                "ThrumAudio",
                "ThrumLibrary",
                "ThrumStudio",
            ]),
    ]
)
