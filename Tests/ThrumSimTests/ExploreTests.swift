import XCTest
@testable import ThrumSim

final class ExploreTests: XCTestCase {
    func testExplore() {
        let chip = SimTestSupport.rtpReadyChip()
        print("cal", chip.lastCalibration as Any, "fs", chip.backEMFFullScale)
        let t0 = chip.time
        chip.write(bytes: [0x02, 255], at: t0)
        chip.advance(to: t0 + 150_000)
        chip.write(bytes: [0x02, 0], at: chip.time)
        chip.advance(to: chip.time + 100_000)
        for (i, s) in chip.trace.samples(from: t0, to: chip.time).enumerated() where i % 3 == 0 {
            print((s.time - t0) / 1000, String(format: "%.3f V %.3f G env %.3f G", s.drivePeakVolts, s.accelerationPeakG, s.accelerationEnvelopeG), s.activity)
        }
        print("onsets", chip.trace.driveOnsets.map { Int($0) - Int(t0) })
    }
}
