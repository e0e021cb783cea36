import XCTest

@testable import ThrumSim

/// The chip model's waveform sequencer: MODE 0 + GO plays approximate ROM envelopes.
final class ROMSequencerTests: XCTestCase {
    func play(_ effects: [UInt8], on chip: DRV2605LModel) -> UInt64 {
        let t = chip.time + 1_000
        chip.write(bytes: [0x01, 0x00], at: t)                    // MODE: internal trigger
        chip.write(bytes: [0x04] + effects + [0x00], at: t + 100) // WAV_FRM_SEQ1… then end
        chip.write(bytes: [0x0C, 0x01], at: t + 200)              // GO
        return t + 200
    }

    func testBuzzPlaysForItsLengthAndGoSelfClears() {
        let chip = SimTestSupport.rtpReadyChip()
        let go = play([14], on: chip)  // Strong Buzz, ≈ 300 ms in Thrum's approximation
        XCTAssertEqual(chip.read(register: 0x0C, count: 1, at: go + 150_000), .success([1]))
        XCTAssertEqual(chip.activity, .driving)
        XCTAssertGreaterThan(SimTestSupport.meanEnvelope(chip, from: go + 50_000, to: go + 250_000), 0.1)
        XCTAssertEqual(chip.read(register: 0x0C, count: 1, at: go + 301_000), .success([0]))
        chip.advance(to: go + 400_000)
        XCTAssertLessThan(SimTestSupport.meanEnvelope(chip, from: go + 370_000, to: go + 400_000), 0.02,
                          "the loop brakes to a stop after the effect")
    }

    func testStrengthScalesTheEnvelope() {
        let strong = SimTestSupport.rtpReadyChip()
        let weak = SimTestSupport.rtpReadyChip()
        let a = play([47], on: strong)  // Buzz 1 – 100 %
        let b = play([51], on: weak)    // Buzz 5 – 20 %
        let ea = SimTestSupport.meanEnvelope(strong.advanced(to: a + 250_000), from: a + 100_000, to: a + 240_000)
        let eb = SimTestSupport.meanEnvelope(weak.advanced(to: b + 250_000), from: b + 100_000, to: b + 240_000)
        XCTAssertEqual(eb / ea, 0.2, accuracy: 0.06)
    }

    func testGoZeroCancelsAndWaitSlotsPause() {
        let chip = SimTestSupport.rtpReadyChip()
        let go = play([118], on: chip)  // Long Buzz for Programmatic Stopping
        chip.write(bytes: [0x0C, 0x00], at: go + 50_000)
        XCTAssertEqual(chip.peek(0x0C), 0)
        chip.advance(to: go + 120_000)
        XCTAssertLessThan(SimTestSupport.meanEnvelope(chip, from: go + 100_000, to: go + 120_000), 0.02)

        // click, 100 ms wait, click: GO stays set through the pause
        let chip2 = SimTestSupport.rtpReadyChip()
        let go2 = play([1, 0x80 | 10, 1], on: chip2)
        XCTAssertEqual(chip2.read(register: 0x0C, count: 1, at: go2 + 110_000), .success([1]))
        XCTAssertEqual(chip2.read(register: 0x0C, count: 1, at: go2 + 141_000), .success([0]))
    }

    func testEveryEffectHasAnEnvelope() {
        for id in UInt8(1)...123 {
            let w = ROMWaveform.effect(id)
            XCTAssertNotNil(w, "\(id)")
            XCTAssertGreaterThan(w?.durationMicros ?? 0, 0)
        }
        XCTAssertNil(ROMWaveform.effect(0))
        XCTAssertNil(ROMWaveform.effect(124))
    }
}

extension DRV2605LModel {
    fileprivate func advanced(to t: UInt64) -> DRV2605LModel {
        advance(to: t)
        return self
    }
}
