import XCTest
@testable import ThrumSim

/// I²C access and register semantics of the DRV2605L model (reference §1).
final class RegisterFileTests: XCTestCase {
    func readAll(_ chip: DRV2605LModel, at t: UInt64) -> [UInt8] {
        guard case .success(let bytes) = chip.read(register: 0, count: DRV2605LRegister.count, at: t) else {
            XCTFail("read failed"); return []
        }
        return bytes
    }

    func testResetValuesAreThoseOfTheDRV2605L() {
        let chip = DRV2605LModel()
        let r = readAll(chip, at: 0)
        let expected: [UInt8: UInt8] = [
            0x00: 0xE0, 0x01: 0x40, 0x02: 0x00, 0x03: 0x01, 0x04: 0x01, 0x05: 0x00, 0x0C: 0x00,
            0x11: 0x05, 0x12: 0x19, 0x13: 0xFF, 0x14: 0x19, 0x15: 0xFF,
            0x16: 0x3E, 0x17: 0x8C, 0x18: 0x0C, 0x19: 0x6C, 0x1A: 0x36, 0x1B: 0x93, 0x1C: 0xF5,
            0x1D: 0xA0, 0x1E: 0x20, 0x1F: 0x80, 0x20: 0x33, 0x21: 0x00, 0x22: 0x00,
        ]
        for (reg, value) in expected { XCTAssertEqual(r[Int(reg)], value, "register 0x\(String(reg, radix: 16))") }
        XCTAssertEqual(chip.activity, .off)
    }

    func testWrongAddressIsNotAcknowledged() {
        let chip = DRV2605LModel()
        XCTAssertEqual(chip.write(address: 0x5B, bytes: [0x01, 0x00], at: 10), -6)
        XCTAssertEqual(chip.read(address: 0x48, register: 0, count: 1, at: 20), .failure(.noDevice(address: 0x48)))
        XCTAssertEqual(I2CError.noDevice(address: 0x48).errno, -6)
        XCTAssertEqual(chip.peek(0x01), 0x40, "a NACKed write changes nothing")
        XCTAssertTrue(chip.trace.registerWrites.isEmpty)
        XCTAssertEqual(chip.write(bytes: [], at: 30), -22)
    }

    func testAutoIncrementWriteAndRead() {
        let chip = DRV2605LModel()
        XCTAssertEqual(chip.write(bytes: [0x16, 0x53, 0x85, 0x09], at: 100), 0)
        XCTAssertEqual(chip.read(register: 0x16, count: 3, at: 200), .success([0x53, 0x85, 0x09]))
        XCTAssertEqual(chip.trace.registerWrites.map(\.register), [0x16, 0x17, 0x18])
        XCTAssertEqual(chip.trace.registerWrites.map(\.time), [100, 100, 100])
        XCTAssertEqual(chip.read(register: 0x30, count: 2, at: 300), .success([0, 0]), "beyond the map reads 0")
    }

    func testReadOnlyRegistersIgnoreWrites() {
        let chip = DRV2605LModel()
        chip.write(bytes: [0x00, 0x00], at: 10)
        chip.write(bytes: [0x21, 0x55, 0x66], at: 20)
        XCTAssertEqual(chip.peek(0x00), 0xE0)
        XCTAssertEqual(chip.peek(0x21), 0)
        XCTAssertEqual(chip.peek(0x22), 0)
    }

    func testDevResetRestoresEveryRegister() {
        let chip = DRV2605LModel()
        let before = readAll(chip, at: 0)
        chip.write(bytes: [0x01, 0x05], at: 100)
        chip.write(bytes: [0x16, 0x50, 0x90, 0x01, 0x02, 0xB6, 0x13, 0x75, 0x08, 0x30, 0x00, 0x2A], at: 200)
        chip.write(bytes: [0x02, 0xFF], at: 300)
        chip.advance(to: 20_000)
        XCTAssertEqual(chip.activity, .driving)
        chip.write(bytes: [0x01, 0x80], at: 20_000)
        XCTAssertEqual(readAll(chip, at: 20_100), before, "DEV_RESET self-clears and restores the defaults")
        XCTAssertEqual(chip.activity, .off)
    }

    func testStandbyIgnoresRTP() {
        let chip = DRV2605LModel()
        chip.write(bytes: [0x1A, 0xB6], at: 10)      // LRA
        chip.write(bytes: [0x01, 0x45], at: 20)      // RTP mode but STANDBY still set (§6 pitfall 5)
        chip.write(bytes: [0x02, 0x7F], at: 30)
        chip.advance(to: 50_000)
        XCTAssertTrue(chip.trace.driveOnsets.isEmpty)
        XCTAssertEqual(chip.trace.peakAcceleration(from: 0, to: 50_000), 0)
        XCTAssertEqual(chip.activity, .off)
    }

    func testStandbyStopsDrivingAtOnce() {
        let chip = SimTestSupport.rtpReadyChip()
        let t0 = chip.time
        chip.write(bytes: [0x02, 0xFF], at: t0)
        chip.advance(to: t0 + 50_000)
        chip.write(bytes: [0x01, 0x45], at: t0 + 50_000)
        chip.advance(to: t0 + 60_000)
        XCTAssertEqual(chip.activity, .off)
        XCTAssertEqual(chip.trace.driveEnvelope(from: t0 + 50_000, to: t0 + 60_000).map(\.volts).max(), 0)
    }

    func testStatusReadClearsDiagResult() {
        let chip = SimTestSupport.rtpReadyChip(parameters: CalibrationTests.absurd)
        XCTAssertEqual(chip.read(register: 0, count: 1, at: chip.time), .success([0xE8]))
        XCTAssertEqual(chip.read(register: 0, count: 1, at: chip.time), .success([0xE0]))
    }

    func testPeriodAndVBATAreLiveOnlyWhileDriving() {
        let chip = SimTestSupport.rtpReadyChip()
        let t0 = chip.time
        chip.write(bytes: [0x02, 0xC0], at: t0)
        chip.advance(to: t0 + 100_000)
        guard case .success(let r) = chip.read(register: 0x21, count: 2, at: chip.time) else { return XCTFail() }
        XCTAssertEqual(r[0], DRV2605LFormulas.vbatCode(supplyVolts: 5.0))
        XCTAssertEqual(r[0], 228)
        // 205 Hz → 4.878 ms / 98.46 µs = 49.5; the tracker may land on either side.
        XCTAssertTrue((49...50).contains(r[1]), "LRA_PERIOD \(r[1])")
        XCTAssertEqual(1 / (Double(r[1]) * DRV2605LFormulas.periodLSB), 205, accuracy: 5)
    }
}
