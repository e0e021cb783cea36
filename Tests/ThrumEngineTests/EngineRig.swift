import ThrumCompiler
@testable import ThrumEngine
import ThrumHarness
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTestSupport
import ThrumTime
import XCTest

/// A link that can be cut: everything written after `cut` is lost.
final class CuttableLink: LinkModel {
    var cutAt: UInt64 = .max
    var inner = FixedLatencyLink(latency: 1_000)
    func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        time >= cutAt ? nil : inner.deliver(&bytes, writtenAt: time, direction: direction)
    }
}

/// The engine on ThrumHarness's `VirtualRig` (the rig `thrum`, the end-to-end tests and the bench
/// use), over a link the tests can cut. Engine µs = host µs = the chip trace's µs.
final class EngineRig {
    let profile = ActuatorProfile.default
    let rig: VirtualRig
    let link = CuttableLink()
    let engine: HapticEngine

    var device: VirtualDevice { rig.device }
    var clock: ManualClock { rig.clock }
    var pump: SimulatedPump { rig.pump }
    var session: DeviceSession { engine.session }

    init(configuration: HapticEngine.Configuration = .init(), session: DeviceSession.Configuration = .init()) {
        rig = VirtualRig(profile: profile, link: link, sessionConfiguration: session)
        engine = rig.makeEngine(configuration: configuration)
    }

    var now: Double { engine.currentTime }

    /// When `record`'s event really started, from the chip (VirtualRig.trueOnset), comparable
    /// with its `requestedTime`; fails the test when the report's bound does not hold it.
    func trueOnset(_ record: OnsetRecord, file: StaticString = #filePath, line: UInt = #line) -> Double? {
        let truth = rig.trueOnset(of: record)
        if let truth, let range = record.driveOnsetRange {
            let drive = truth - record.preShift
            XCTAssertTrue(
                range.lowerBound - 1e-6 <= drive && drive <= range.upperBound + 1e-6,
                "the reported bound \(range) misses the true drive onset \(drive)", file: file, line: line)
        }
        return truth
    }

    /// Peak drive amplitude (RTP_INPUT) the chip got in engine time [from, to).
    func peakRTP(from: Double, to: Double) -> UInt8 {
        device.chip.trace.samples(from: UInt64(from * 1e6), to: UInt64(to * 1e6)).map(\.rtpInput).max() ?? 0
    }

    /// RTP_INPUT register writes in [from, to), (time s, value).
    func rtpWrites(from: Double, to: Double) -> [(Double, UInt8)] {
        device.chip.trace.registerWrites.filter {
            $0.register == 0x02 && Double($0.time) >= from * 1e6 && Double($0.time) < to * 1e6
        }
        .map { (Double($0.time) / 1e6, $0.value) }
    }

    /// Peak acceleration envelope (G) in engine time [from, to).
    func peakG(from: Double, to: Double) -> Double {
        device.chip.trace.peakAcceleration(from: UInt64(max(0, from) * 1e6), to: UInt64(to * 1e6))
    }
}

// The engine tests' defaults on the shared builders: crisp transients, continuous events
// without a sharpness, four beats 100 ms apart.
func transient(_ t: Double, intensity: Float = 1, sharpness: Float = 0.8) -> HapticEvent {
    TestPatterns.transient(at: t, intensity: intensity, sharpness: sharpness)
}

func continuous(_ t: Double, duration: Double, intensity: Float = 1) -> HapticEvent {
    TestPatterns.continuous(at: t, duration: duration, intensity: intensity)
}

func metronome(beats: Int = 4, interval: Double = 0.1) -> HapticPattern {
    TestPatterns.metronome(beats: beats, interval: interval)
}
