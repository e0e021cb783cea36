import XCTest
import ThrumPattern
@testable import ThrumCompiler

final class RendererTests: XCTestCase {
    func testColumnsAndCSV() {
        let pat = pattern([continuous(0.1, 0.3, intensity: 0.8, sharpness: 0.7), transient(0.2, sharpness: 0.2)],
                          parameters: [.init(parameterID: .hapticSharpnessControl, value: 0.1, relativeTime: 0)])
        let r = EnvelopeRenderer(profile: .default).render(pat, sampleRate: 1000)
        XCTAssertEqual(r.time.count, r.intensity.count)
        XCTAssertEqual(r.time.count, r.sharpness.count)
        XCTAssertEqual(r.time.count, r.drive.count)
        XCTAssertEqual(r.time.count, r.acceleration.count)
        XCTAssertLessThan(r.time[0], 0.1)
        XCTAssertEqual(r.time[1] - r.time[0], 0.001, accuracy: 1e-12)
        func at(_ col: [Double], _ t: Double) -> Double { col[r.time.firstIndex { $0 >= t - 1e-9 }!] }
        XCTAssertEqual(at(r.intensity, 0.15), 0.8, accuracy: 1e-6)        // requested, at requested time
        XCTAssertEqual(at(r.sharpness, 0.15), 0.8, accuracy: 1e-6)        // 0.7 + 0.1
        XCTAssertEqual(at(r.intensity, 0.05), 0)
        XCTAssertEqual(at(r.sharpness, 0.05), 0)
        XCTAssertEqual(at(r.drive, 0.3), 204.0 / 255, accuracy: 1e-9)
        XCTAssertEqual(at(r.acceleration, 0.3), 0.8, accuracy: 0.01)      // settled
        XCTAssertGreaterThan(r.drive.firstIndex { $0 > 0 }!, 0)
        // The drive leads the requested intensity (pre-shift).
        XCTAssertLessThan(r.drive.firstIndex { $0 > 0 }!, r.intensity.firstIndex { $0 > 0 }!)
        let csv = r.csv()
        XCTAssertTrue(csv.hasPrefix("time_s,intensity,sharpness,drive,acceleration\n"))
        XCTAssertEqual(csv.split(separator: "\n").count, r.count + 1)
    }

    func testPredictorRisesAndBrakes() {
        let resp = ActuatorResponse(profile: .default)
        let drive = [Double](repeating: 1, count: 200) + [Double](repeating: 0, count: 200)
        let a = EnvelopePredictor(response: resp).predict(drive: drive, sampleRate: 1000)
        // Rise to 50 % takes τ·ln(ρ/(ρ − 0.5)) plus the update latency.
        let t50 = Double(a.firstIndex { $0 >= 0.5 }!) / 1000
        XCTAssertEqual(t50, resp.riseTime(to: 0.5) + resp.updateLatency, accuracy: 0.0015)
        XCTAssertEqual(a[199], 1, accuracy: 1e-9)
        // Braking stops it in fallTime(1 → 0) ≈ τ·ln((1 + ρ)/ρ).
        let stop = Double(a[200...].firstIndex { $0 <= 0 }! - 200) / 1000
        XCTAssertEqual(stop, resp.fallTime(from: 1) + resp.updateLatency, accuracy: 0.0025)
    }
}
