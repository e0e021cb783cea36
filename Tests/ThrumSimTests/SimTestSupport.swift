import XCTest
@testable import ThrumSim

/// Shared set-up for the chip and actuator tests.
enum SimTestSupport {
    /// A chip out of standby, set up the way our firmware sets up an LRA:
    /// LRA closed loop, brake 3×, loop gain high, unsigned unidirectional RTP, mode 5.
    static func rtpReadyChip(
        parameters: LRAParameters = .referenceExample, calibrate: Bool = true,
        feedback: UInt8 = 0xA8, // LRA, 3× brake, high loop gain
        configuration: DRV2605LConfiguration = DRV2605LConfiguration()
    ) -> DRV2605LModel {
        let chip = DRV2605LModel(actuator: parameters, configuration: configuration)
        var t: UInt64 = 1_000
        func w(_ bytes: [UInt8]) { XCTAssertEqual(chip.write(bytes: bytes, at: t), 0); t += 100 }
        w([0x01, 0x07])                 // MODE: auto-cal, out of standby
        w([0x1A, feedback])
        w([0x1C, 0x75])                 // CONTROL2: unidirectional, stabiliser, 300 µs sample
        w([0x1D, 0x08])                 // CONTROL3: closed loop, unsigned RTP
        if calibrate {
            w([0x0C, 0x01])
            chip.advance(to: t + 2_000_000)
            t = chip.time
        }
        w([0x02, 0x00])
        w([0x01, 0x05])                 // RTP mode
        chip.advance(to: t + 200_000)
        return chip
    }

    /// Mean of the acceleration envelope over [from, to).
    static func meanEnvelope(_ chip: DRV2605LModel, from: UInt64, to: UInt64) -> Double {
        let s = chip.trace.samples(from: from, to: to)
        return s.reduce(0) { $0 + $1.accelerationEnvelopeG } / Double(max(1, s.count))
    }
}
