import XCTest
import Foundation
@testable import ThrumSim

/// Fitting datasheet numbers to the lumped model (reference §5.1).
final class LRAParametersTests: XCTestCase {
    let ref = LRAParameters.referenceExample

    func testFitFromCurrentRecoversReferenceSet() throws {
        let z = ref.impedanceAtResonance
        let fitted = try LRAParameters.fit(
            resonanceHz: 205, ratedVoltageRMS: 1.5, ratedCurrentRMS: 1.5 / z, dcResistance: 24,
            stopTime10Percent: ref.freeTimeConstant * log(10.0))
        XCTAssertEqual(fitted.mechanicalQ, 20, accuracy: 0.01)
        XCTAssertEqual(fitted.forceFactor, 0.4, accuracy: 0.001)
        XCTAssertEqual(fitted.coilResistance, 24)
    }

    func testFitFromAccelerationRecoversReferenceSet() throws {
        // Steady acceleration of the reference set at 1.5 V_rms sine, from the closed form.
        let u = ref.steadyBackEMF(sinePeakVolts: 1.5 * 2.0.squareRoot()) / ref.forceFactor
        let g = ref.caseAccelerationG(velocityAmplitude: u)
        let fitted = try LRAParameters.fit(
            resonanceHz: 205, ratedVoltageRMS: 1.5, ratedAccelerationGPeak: g, dcResistance: 24,
            stopTime10Percent: ref.freeTimeConstant * log(10.0))
        XCTAssertEqual(fitted.forceFactor, 0.4, accuracy: 0.001)
    }

    func testFitRejectsBadInput() {
        XCTAssertThrowsError(try LRAParameters.fit(
            resonanceHz: 205, ratedVoltageRMS: 1.5, dcResistance: 24, stopTime10Percent: 0.07)) {
            XCTAssertEqual($0 as? LRAFitError, .forceFactorUndetermined)
        }
        XCTAssertThrowsError(try LRAParameters.fit(
            resonanceHz: 205, ratedVoltageRMS: 1.5, ratedCurrentRMS: 0.1, dcResistance: 24, stopTime10Percent: 0.07))
        XCTAssertThrowsError(try LRAParameters.fit(
            resonanceHz: -1, ratedVoltageRMS: 1.5, ratedCurrentRMS: 0.05, dcResistance: 24, stopTime10Percent: 0.07))
    }

    func testCodableRoundTrip() throws {
        let data = try JSONEncoder().encode(ref)
        XCTAssertEqual(try JSONDecoder().decode(LRAParameters.self, from: data), ref)
    }
}
