import XCTest
import ThrumPattern
@testable import ThrumCompiler
final class DebugTests: XCTestCase {
    func testDebug() {
        let curve = HapticParameterCurve(parameterID: .hapticIntensityControl,
                                         controlPoints: [.init(relativeTime: 0.2, value: 0.4), .init(relativeTime: 0.4, value: 0.8)],
                                         relativeTime: 0.5)
        let pat = pattern([continuous(0, 2)], curves: [curve])
        let tr = HapticControls(pat).intensity
        for t in [0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.5] { print(t, tr.value(at: t)) }
        print(tr.breakpoints(from: 0, to: 2))
        let p = plainCompiler().compile(pat)
        for s in p.segments { print(s) }
    }
}
