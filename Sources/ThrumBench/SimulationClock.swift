#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ThrumTime

/// A clock file that cannot be used: missing, too short, or not written by the harness.
public struct SimulationClockError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The clock file's path.
    public var path: String
    /// What was wrong, and what was expected.
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// The AVR simulation's clock as a ``HostClock``: host time read from the simulated CPU.
///
/// The harness (`hardware/avrsim`, `--clock-file PATH`) publishes its CPU cycle count on every
/// instruction in a 32-byte file mapped shared (layout in `hardware/avrsim/sim_clock.h`). A host
/// (engine, link, clock model) that reads its time here lives on the simulation's timeline: the
/// pseudo-terminal's delays are measured in simulated time, the simulator's lag behind the wall
/// clock no longer shows as device jitter, and a register write's completion (simulated time)
/// maps to host time exactly (``hostMicros(simulatedMicros:)``).
///
/// So that the host still has a clock to learn, host time is not the device's crystal: it is
/// `origin + simulated time × (1 + driftPPM / 10⁶)`, an offset and a drift of the host's
/// oscillator against the AVR's (which counts simulated time exactly).
///
/// Once the harness has exited (the file's stopped flag), the clock runs on from where the
/// simulation stopped at the rate of `afterStop` (the wall clock), so that a host's timeouts on it
/// still expire instead of waiting on a clock that will never move.
///
/// The file is a runtime path (the bench makes it in `$TMPDIR`); nothing here reads it before
/// ``init(path:origin:driftPPM:afterStop:)`` is called with it.
public final class SimulationClock: HostClock, @unchecked Sendable {
    // @unchecked: the mapping is set once in init and released in deinit; the harness's cycle
    // count is read with a single aligned 64-bit load (single-copy atomic on x86-64 and AArch64)
    // that the harness writes with one release store; `stop` is guarded by `lock`.

    /// Host time at simulated t = 0.
    public let origin: HostTime
    /// How fast the host's clock runs against the simulated CPU's, parts per million.
    public let driftPPM: Double
    /// The simulated CPU's frequency (Hz) from the file's header.
    public let frequencyHz: UInt32
    /// The file's path.
    public let path: String

    private let page: UnsafeMutableRawPointer
    private let afterStop: any HostClock
    private let lock = NSLock()
    /// Where the simulation's time ended, and `afterStop`'s reading when that was first seen.
    private var stop: (host: HostTime, seen: HostTime)?
    private static let size = 32
    private static let magic = Array("THRMCLK1".utf8)
    private static let cyclesOffset = 16
    private static let stateOffset = 24

    /// Maps the clock file the harness created (`avrsim --clock-file PATH`); `afterStop` is the
    /// clock that moves time on once the harness has exited.
    /// - Throws: ``SimulationClockError`` when the file is missing, shorter than 32 bytes, or does
    ///   not start with the harness's magic and layout version 1 and a non-zero frequency.
    public init(
        path: String, origin: HostTime, driftPPM: Double, afterStop: any HostClock = MonotonicClock()
    ) throws(SimulationClockError) {
        self.path = path
        self.afterStop = afterStop
        self.origin = origin
        self.driftPPM = driftPPM
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw SimulationClockError(path: path, reason: "cannot open the clock file: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) >= Self.size else {
            throw SimulationClockError(path: path, reason: "expected a \(Self.size)-byte clock file (avrsim --clock-file), got \(info.st_size) bytes")
        }
        let mapped: UnsafeMutableRawPointer? = mmap(nil, Self.size, PROT_READ, MAP_SHARED, fd, 0)
        guard let map = mapped, map != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw SimulationClockError(path: path, reason: "cannot map the clock file: \(String(cString: strerror(errno)))")
        }
        let header = UnsafeRawBufferPointer(start: map, count: Self.size)
        let version = header.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        let frequency = header.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
        guard Array(header[0..<8]) == Self.magic else {
            munmap(map, Self.size)
            throw SimulationClockError(path: path, reason: "expected the magic 'THRMCLK1' at offset 0 (a clock file avrsim --clock-file writes)")
        }
        guard UInt32(littleEndian: version) == 1 else {
            munmap(map, Self.size)
            throw SimulationClockError(path: path, reason: "layout version \(UInt32(littleEndian: version)) at offset 8; this reader knows version 1")
        }
        guard UInt32(littleEndian: frequency) > 0 else {
            munmap(map, Self.size)
            throw SimulationClockError(path: path, reason: "CPU frequency 0 Hz at offset 12; expected the simulated CPU's clock")
        }
        page = map
        frequencyHz = UInt32(littleEndian: frequency)
    }

    deinit { munmap(page, Self.size) }

    /// CPU cycles the simulation has run.
    public var cycles: UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(page).load(fromByteOffset: Self.cyclesOffset, as: UInt64.self))
    }

    /// Simulated time, µs (cycles / frequency).
    public var simulatedMicros: Double { Double(cycles) * 1e6 / Double(frequencyHz) }

    /// Whether the harness has exited (its clock will not move again).
    public var isStopped: Bool {
        UInt32(littleEndian: UnsafeRawPointer(page).load(fromByteOffset: Self.stateOffset, as: UInt32.self)) != 0
    }

    public func now() -> HostTime {
        // The flag first: a stopped harness's count is final, so the time read after it is its end.
        let stopped = isStopped
        let simulated = HostTime(nanoseconds: origin.nanoseconds + Int64((simulatedMicros * 1e3 * scale).rounded()))
        guard stopped else { return simulated }
        let wall = afterStop.now()
        lock.lock()
        defer { lock.unlock() }
        if stop == nil { stop = (simulated, wall) }
        let (end, seen) = stop!
        return end + max(wall - seen, .zero)
    }

    /// Host time (µs on this clock's timeline) of simulated time `simulatedMicros`: where a
    /// register write in the harness's trace falls for the host.
    public func hostMicros(simulatedMicros: Double) -> Double {
        Double(origin.nanoseconds) / 1e3 + simulatedMicros * scale
    }

    /// Simulated time (µs) of host time `host`: the inverse of ``hostMicros(simulatedMicros:)``.
    public func simulatedMicros(host: HostTime) -> Double {
        Double(host.nanoseconds - origin.nanoseconds) / 1e3 / scale
    }

    private var scale: Double { 1 + driftPPM / 1e6 }
}
