import XCTest
@testable import ThrumSim

/// Simulation speed is reported, not asserted (timing depends on the machine); only the
/// result of the run is checked.
final class SimulationSpeedTests: XCTestCase {
    func testOneSecondOfDeviceTime() {
        let chip = SimTestSupport.rtpReadyChip()
        let t0 = chip.time
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            // A 1 kHz RTP stream, as a naive host would send: a ramp up and down every 100 ms.
            for ms in 0..<1000 {
                let phase = ms % 100
                let value = UInt8(phase < 50 ? phase * 5 : (100 - phase) * 5)
                chip.write(bytes: [0x02, value], at: t0 + UInt64(ms) * 1000)
            }
            chip.advance(to: t0 + 1_000_000)
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        print(String(format: "1 s of device time simulated in %.1f ms of wall time (%.0f× real time)",
                     seconds * 1000, 1 / seconds))
        XCTAssertEqual(chip.time, t0 + 1_000_000)
        XCTAssertTrue((999...1000).contains(chip.trace.samples(from: t0, to: t0 + 1_000_000).count))
        XCTAssertGreaterThan(chip.trace.peakAcceleration(from: t0, to: t0 + 1_000_000), 0.2)
    }
}
