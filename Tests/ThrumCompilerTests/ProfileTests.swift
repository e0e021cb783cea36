import Foundation
import ThrumTestSupport
import XCTest
@testable import ThrumCompiler

final class ProfileTests: XCTestCase {
    /// The worked register table of reference §2.1 (SAMPLE_TIME 300 µs).
    func testRegistersMatchWorkedTable() {
        // id: (RATED_VOLTAGE, OD_CLAMP, DRIVE_TIME, OL_LRA_PERIOD)
        let worked: [String: (UInt8, UInt8, UInt8, UInt8)] = [
            "pmd-c10-100": (0x53, 133, 24, 58),
            "vybronics-vg0832012": (0x46, 120, 16, 43),
            "lra0825": (0x2F, 80, 16, 42),
            "vybronics-vg0840001d": (0x54, 133, 24, 60),
            // SEMCO: the formula gives 60.65 → 61 (0x3D); the table's 0x3E is the reset default (1 LSB off).
            "semco-1030": (0x3D, 141, 19, 50),
        ]
        for p in ActuatorProfile.builtIn {
            guard let w = worked[p.id] else { return XCTFail("no worked values for \(p.id)") }
            let r = DriverRegisters.derive(from: p)
            XCTAssertEqual(r.ratedVoltage, w.0, "RATED_VOLTAGE \(p.id)")
            XCTAssertEqual(r.overdriveClamp, w.1, "OD_CLAMP \(p.id)")
            XCTAssertEqual(r.driveTime, w.2, "DRIVE_TIME \(p.id)")
            XCTAssertEqual(r.openLoopPeriod, w.3, "OL_LRA_PERIOD \(p.id)")
            XCTAssertEqual(r.sampleTime, 3)
        }
        // The unrounded values printed in the table.
        XCTAssertEqual(DriverRegisters.exactRatedVoltage(voltsRms: 2.0, resonanceHz: 175), 83.5, accuracy: 0.05)
        XCTAssertEqual(DriverRegisters.exactRatedVoltage(voltsRms: 1.5, resonanceHz: 205), 60.7, accuracy: 0.06)
        XCTAssertEqual(DriverRegisters.exactRatedVoltage(voltsRms: 1.8, resonanceHz: 235), 70.4, accuracy: 0.05)
        XCTAssertEqual(DriverRegisters.exactRatedVoltage(voltsRms: 1.2, resonanceHz: 240), 46.6, accuracy: 0.06)
        XCTAssertEqual(DriverRegisters.exactRatedVoltage(voltsRms: 2.0, resonanceHz: 170), 83.9, accuracy: 0.05)
        XCTAssertEqual(DriverRegisters.exactDriveTime(resonanceHz: 175), 23.6, accuracy: 0.05)
        XCTAssertEqual(DriverRegisters.exactDriveTime(resonanceHz: 205), 19.4, accuracy: 0.05)
        XCTAssertEqual(DriverRegisters.exactDriveTime(resonanceHz: 235), 16.3, accuracy: 0.05)
        XCTAssertEqual(DriverRegisters.exactDriveTime(resonanceHz: 240), 15.8, accuracy: 0.05)
        XCTAssertEqual(DriverRegisters.exactDriveTime(resonanceHz: 170), 24.4, accuracy: 0.05)
        // SEMCO's table value is the chip's reset default, within one LSB of the formula.
        let semco = DriverRegisters.derive(from: .semco1030)
        XCTAssertLessThanOrEqual(abs(Int(semco.ratedVoltage) - 0x3E), 1)
    }

    func testDefaultProfileIsC10Style() {
        XCTAssertEqual(ActuatorProfile.default.datasheet.resonanceHz, 175)
        XCTAssertEqual(ActuatorProfile.default.datasheet.ratedVoltageRms, 2.0)
        XCTAssertEqual(ActuatorProfile.builtIn.first, .default)
        XCTAssertGreaterThanOrEqual(ActuatorProfile.builtIn.count, 4)
        XCTAssertEqual(ActuatorProfile.builtIn(id: "semco-1030")?.datasheet.resonanceHz, 205)
    }

    static var actuatorsDirectory: URL {
        PackageRoot.file("hardware/actuators")
    }

    /// The JSON files and the embedded table are the same profiles. Set THRUM_WRITE_PROFILES=1
    /// to regenerate the JSON from the table.
    func testJSONMatchesEmbeddedTable() throws {
        let dir = Self.actuatorsDirectory
        if ProcessInfo.processInfo.environment["THRUM_WRITE_PROFILES"] != nil {
            for p in ActuatorProfile.builtIn {
                var data = try p.encodedJSON()
                data.append(0x0A)
                try data.write(to: dir.appendingPathComponent("\(p.id).json"))
            }
        }
        let loaded = try ActuatorProfile.loadAll(in: dir)
        XCTAssertEqual(loaded, ActuatorProfile.builtIn.sorted { $0.id < $1.id })
    }

    /// Every datasheet number carries a source; the model says which fields are estimates.
    func testEveryDatasheetNumberHasASource() throws {
        for p in ActuatorProfile.builtIn {
            let data = try JSONSerialization.jsonObject(with: try p.encodedJSON()) as? [String: Any]
            let sheet = data?["datasheet"] as? [String: Any] ?? [:]
            for key in sheet.keys {
                XCTAssertNotNil(p.sources["datasheet.\(key)"], "\(p.id): no source for datasheet.\(key)")
            }
            XCTAssertNotNil(p.sources["driver.overdriveClampVoltsPeak"], p.id)
            let known: Set<String> = ["mechanicalQ", "resistanceOhms", "inductanceMillihenries", "movingMassGrams", "forceFactor"]
            XCTAssertTrue(Set(p.physical.estimated).isSubset(of: known), p.id)
            XCTAssertEqual(p.physical.resonanceHz, p.datasheet.resonanceHz)
        }
    }

    /// Q from stop time (reference §5.2): 55 ms at 170 Hz ≈ 13, 80 ms at 235 Hz ≈ 26.
    func testQFromStopTime() {
        for p in [ActuatorProfile.vybronicsVG0840001D, .vybronicsVG0832012] {
            let t10 = p.datasheet.fallTimeMilliseconds! / 1000
            let q = Double.pi * p.datasheet.resonanceHz * t10 / log(10)
            XCTAssertEqual(p.physical.mechanicalQ, q, accuracy: 0.1, p.id)
        }
        // The VG0840001D force factor fits Z(f0) = 2.0 V / 68 mA.
        let v = ActuatorProfile.vybronicsVG0840001D.physical
        XCTAssertEqual(v.impedanceAtResonance, 2.0 / 0.068, accuracy: 0.3)
    }

    func testResponseModelIsPlausible() {
        for p in ActuatorProfile.builtIn {
            let r = ActuatorResponse(profile: p)
            // Reference §5: τ ≈ 15–40 ms; the clamp gives some overdrive.
            XCTAssertGreaterThan(r.timeConstant, 0.010, p.id)
            XCTAssertLessThan(r.timeConstant, 0.045, p.id)
            XCTAssertGreaterThan(r.overdriveRatio, 1, p.id)
            XCTAssertEqual(r.updateLatency, 0.5 / p.datasheet.resonanceHz, accuracy: 1e-12)
        }
    }
}
