import XCTest
import Foundation
@testable import ThrumSim

/// The actuator physics against the closed-form facts of reference §5.1 and the figures of §5.3.
final class LRAModelTests: XCTestCase {
    let p = LRAParameters.referenceExample
    let dt = 20e-6

    /// Drives a sine of `rms` volts at f₀ for `seconds`, recording the acceleration envelope every ms.
    func driveSine(_ lra: inout LRAModel, rms: Double, seconds: Double) -> [Double] {
        var envelope: [Double] = []
        let steps = Int(seconds / dt)
        let w = p.angularResonance
        for n in 0..<steps {
            let t = lra.elapsed + dt / 2
            lra.step(voltage: rms * 2.0.squareRoot() * sin(w * t), duration: dt)
            if n % 50 == 49 { envelope.append(lra.accelerationAmplitudeG) }
        }
        return envelope
    }

    func coast(_ lra: inout LRAModel, seconds: Double) -> [Double] {
        var envelope: [Double] = []
        for n in 0..<Int(seconds / dt) {
            lra.stepOpenCircuit(duration: dt)
            if n % 50 == 49 { envelope.append(lra.accelerationAmplitudeG) }
        }
        return envelope
    }

    func testDerivedQuantitiesMatchReference53() {
        XCTAssertEqual(p.springConstant, 1659, accuracy: 2)
        XCTAssertEqual(p.mechanicalDamping, 0.0644, accuracy: 0.0005)
        XCTAssertEqual(p.impedanceAtResonance, 26.5, accuracy: 0.1)
        XCTAssertEqual(p.electricalDamping, 0.0067, accuracy: 0.0001)
        XCTAssertEqual(p.freeTimeConstant, 0.031, accuracy: 0.0005)
    }

    func testRatedSineSteadyStateMatchesReference() {
        var lra = LRAModel(parameters: p)
        let env = driveSine(&lra, rms: 1.5, seconds: 0.4)
        let steady = env.last!
        // §5.3: ≈ 0.65 G peak on a 100 g jig, back-EMF ≈ 0.2 V peak.
        XCTAssertEqual(steady, 0.65, accuracy: 0.03)
        XCTAssertEqual(lra.backEMFAmplitude, p.steadyBackEMF(sinePeakVolts: 1.5 * 2.0.squareRoot()), accuracy: 0.006)
        XCTAssertEqual(lra.backEMFAmplitude, 0.2, accuracy: 0.01)
    }

    func testRatedSineRiseAndCoastStopMatchReference() {
        var lra = LRAModel(parameters: p)
        let rise = driveSine(&lra, rms: 1.5, seconds: 0.4)
        let steady = rise.last!
        let rise90 = Double(rise.firstIndex { $0 >= 0.9 * steady }! + 1)
        let stop = coast(&lra, seconds: 0.2)
        let stop10 = Double(stop.firstIndex { $0 <= 0.1 * steady }! + 1)
        print("LRA alone, rated sine: rise to 90 % \(rise90) ms, coast to 10 % \(stop10) ms")
        XCTAssertEqual(rise90, 58, accuracy: 10)   // §5.3 ≈ 58 ms ("several τ")
        XCTAssertEqual(stop10, 70, accuracy: 5)    // §5.3 ≈ 70 ms
    }

    func testFreeRingDownMatchesTau() {
        var lra = LRAModel(parameters: p)
        _ = driveSine(&lra, rms: 1.5, seconds: 0.2)
        let env = coast(&lra, seconds: 0.1)
        // Envelope at 10 ms and 60 ms after release: ratio e^{-50 ms/τ}.
        let tau = 0.050 / log(env[9] / env[59])
        XCTAssertEqual(tau, p.freeTimeConstant, accuracy: 0.1 * p.freeTimeConstant)
        XCTAssertEqual(tau, 2 * p.mechanicalQ / p.angularResonance, accuracy: 0.01 * p.freeTimeConstant)
    }

    func testOpenCircuitCarriesNoCurrentAndShortedCoilDampsMore() {
        var open = LRAModel(parameters: p)
        var shorted = LRAModel(parameters: p)
        _ = driveSine(&open, rms: 1.5, seconds: 0.1)
        _ = driveSine(&shorted, rms: 1.5, seconds: 0.1)
        let a0 = open.accelerationAmplitudeG
        _ = coast(&open, seconds: 0.03)
        for _ in 0..<1500 { shorted.step(voltage: 0, duration: dt) }
        XCTAssertEqual(open.current, 0)
        XCTAssertNotEqual(shorted.current, 0)
        XCTAssertLessThan(shorted.accelerationAmplitudeG, open.accelerationAmplitudeG)
        XCTAssertLessThan(open.accelerationAmplitudeG, a0)
    }

    func testLongStepsAreSubdivided() {
        var a = LRAModel(parameters: p)
        var b = LRAModel(parameters: p)
        a.step(voltage: 1, duration: 0.001)
        for _ in 0..<50 { b.step(voltage: 1, duration: 20e-6) }
        XCTAssertEqual(a.position, b.position, accuracy: 1e-12)
        XCTAssertEqual(a.elapsed, 0.001, accuracy: 1e-12)
    }
}
