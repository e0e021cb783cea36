import ThrumCompiler
import ThrumEngine
import ThrumHarness
import ThrumLibrary
import ThrumPattern
import ThrumSim
import ThrumTime
import ThrumWire

/// The preset library on the virtual device with its 24LC256-class EEPROM, on the jittered USB
/// full-speed link: how long a flash takes against what the storage and the link allow, and the
/// start latency of playing a stored preset by id (call → the chip's first non-zero drive).
public enum LibraryBench {
    /// A flash, measured.
    public struct Flash: Sendable {
        public var bytes: Int
        /// Virtual seconds from the call to the switch.
        public var seconds: Double
        /// What the storage allows: page writes (write cycle + transfer), the read-back, the record.
        public var storageBytesPerSecond: Double
        /// What the link allows: LIBRARY_WRITE data bytes per second of frames.
        public var linkBytesPerSecond: Double
        public var bytesPerSecond: Double { Double(bytes) / seconds }
        public var boundBytesPerSecond: Double { min(storageBytesPerSecond, linkBytesPerSecond) }
        public var limitedBy: String { storageBytesPerSecond <= linkBytesPerSecond ? "storage" : "link" }
        public var fraction: Double { bytesPerSecond / boundBytesPerSecond }
    }

    public struct Result: Sendable {
        /// Call → first drive, ms, playing the preset played last (the device keeps it decoded).
        public var playLatencies: [Double] = []
        /// The same for a preset other than the last one played (read from storage first).
        public var storageReadLatencies: [Double] = []
        /// Events played, and those the device reported trimmed or dropped (a start cut short).
        public var events = 0
        public var cutEvents = 0
        public var flash: Flash?
        public var imageBytes = 0
    }

    /// A library of every Apple system preset (the bench reads no files).
    public static func image(profile: ActuatorProfile) throws -> [UInt8] {
        let entries = SystemPresets.all.filter { $0.romEffect == nil }.enumerated().map { k, preset in
            LibraryManifest.Entry(id: UInt16(k + 1), name: preset.name, source: .systemPreset(preset.name), trigger: nil, position: .unknown)
        }
        let manifest = LibraryManifest(name: "bench", version: 1, actuator: nil, entries: entries)
        return try LibraryBuilder(defaultProfile: profile).build(manifest: manifest, directory: ".").image.encode()
    }

    public static func run(seed: UInt64, trials: Int) throws -> Result {
        var result = Result()
        let crystal = BenchSetup.crystal(seed: seed)
        var configuration = VirtualDeviceFactory.configuration(for: .default, crystalErrorPPM: crystal.ppm, clockStart: crystal.start)
        let storage = LibraryStorage()
        configuration.storage = storage
        let rig = VirtualRig(
            profile: .default, link: BenchSetup.jitteredUSB(seed: seed), sessionConfiguration: BenchSetup.session(),
            deviceConfiguration: configuration)
        let engine = rig.makeEngine()
        try engine.start()
        engine.run(for: 0.5)
        let bytes = try image(profile: rig.profile)
        result.imageBytes = bytes.count

        let t0 = rig.pump.trueTime, d0 = rig.device.now
        try rig.session.writeLibrary(bytes)
        // The device's own time counts every bus transfer and write cycle it spent; the host's
        // clock may run behind it while the device is busy (the pump hands output over at once).
        let seconds = Double(max(rig.pump.trueTime - t0, rig.device.now - d0)) / 1e6
        // Storage: each 64-byte page costs its I²C transfer (2 address + 64 data bytes) and the
        // 5 ms write cycle; the read-back reads 16-byte lines; the record is one more page write.
        let pages = Double((bytes.count + 63) / 64)
        let pageTime = pages * (0.005 + Double(9 * 67 + 2) / 400_000)
        let readBack = Double((bytes.count + 15) / 16) * (Double(9 * 3 + 2) / 400_000 + Double(9 * 17 + 2) / 400_000)
        let record = 0.005 + Double(9 * 23 + 2) / 400_000
        let storageSeconds = pageTime + readBack + record
        // Link: usb-fs carries 8 packets of 64 B per 1 ms frame; a LIBRARY_WRITE frame is 64 B with 52 data bytes.
        let linkSeconds = Double((bytes.count + LibraryCommand.maxWriteBytes - 1) / LibraryCommand.maxWriteBytes) / 8 / 1_000
        result.flash = Flash(
            bytes: bytes.count, seconds: seconds, storageBytesPerSecond: Double(bytes.count) / storageSeconds,
            linkBytesPerSecond: Double(bytes.count) / linkSeconds)

        // The simulated device spent the flash's bus time (0.4 s of EEPROM write cycles) inside
        // frame handling, so its clock jumped ahead of the host's; let the clock model settle.
        engine.run(for: 3)
        var rng = SplitMix64(seed: seed ^ 0x11B)
        let stored = try engine.storedLibrary().image
        let id = UInt16(SystemPresets.all.filter { $0.romEffect == nil }.firstIndex { $0.name == "impact.heavy" }! + 1)
        func play(_ id: UInt16) throws -> Double? {
            engine.run(for: 0.05 + Double(rng.next() % 150) / 1_000)
            guard let preset = stored.preset(id: id) else { return nil }
            let call = rig.pump.trueTime
            let started = try engine.playStoredPreset(preset, in: stored)
            engine.run(for: Double(stored.summaries().first { $0.id == id }?.durationMicroseconds ?? 0) / 1e6 + 0.05)
            let latency = rig.device.chip.trace.driveOnset(after: call).map { Double($0 - call) / 1e3 }
            for mark in started.marks {
                result.events += 1
                // Cut: trimmed or dropped by the device. A preset read from storage after its start
                // begins whole, later: reported late, but not cut.
                if let record = engine.onset(ofStoredPresetMark: mark),
                    record.status == .dropped || (record.status == .lateTrimmed && !record.startedWholeButLate)
                {
                    result.cutEvents += 1
                }
            }
            return latency
        }
        for _ in 0..<trials { if let l = try play(id) { result.playLatencies.append(l) } }
        // Each a different preset from the last: the device reads it from its EEPROM first.
        let ids = stored.presets.map(\.id)
        for k in 0..<trials { if let l = try play(ids[(k * 7 + 1) % ids.count]) { result.storageReadLatencies.append(l) } }
        return result
    }
}
