import Foundation
import ThrumTestSupport
import ThrumTime
import XCTest

@testable import ThrumPattern

/// Damaged input never crashes the reader: it loads or fails with a located PatternError.
final class RobustnessTests: XCTestCase {
    private func loadOrLocatedError(_ bytes: [UInt8], _ label: String) {
        do {
            _ = try HapticPattern(data: bytes, sourceName: "t.ahap")
        } catch {
            let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).count
            XCTAssertTrue((1...lines).contains(error.line) || error.line == 0, "\(label): \(error)")
            XCTAssertGreaterThanOrEqual(error.column, error.line == 0 ? 0 : 1, label)
            XCTAssertFalse(error.message.isEmpty, label)
        }
    }

    func testEveryPrefixOfAFileFailsWithAPosition() throws {
        let bytes = try [UInt8](Data(contentsOf: Fixtures.ahap("out-of-range.ahap")))
        for n in 0..<bytes.count {
            let prefix = Array(bytes[0..<n])
            do {
                _ = try HapticPattern(data: prefix, sourceName: "t.ahap")
                // Only the whole document minus trailing whitespace can load.
                XCTAssertTrue(bytes[n...].allSatisfy { $0 == 0x0A || $0 == 0x20 || $0 == 0x0D }, "prefix \(n) loaded")
            } catch {
                XCTAssertEqual(error.code, .invalidPatternData, "prefix \(n)")
                loadOrLocatedError(prefix, "prefix \(n)")
            }
        }
    }

    func testByteMutationsNeverCrash() throws {
        let original = try [UInt8](Data(contentsOf: Fixtures.ahap("audio-events.ahap")))
        var rng = SplitMix64(seed: 0xB0_1A6)
        func next() -> UInt64 { rng.next() }
        let alphabet = Array("{}[],:\"-.0123456789eE \\tnfu".utf8) + [0x00, 0xC3, 0xFF]
        for i in 0..<400 {
            var bytes = original
            for _ in 0..<(1 + Int(next() % 3)) {
                let at = Int(next() % UInt64(bytes.count))
                switch next() % 3 {
                case 0: bytes[at] = alphabet[Int(next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[Int(next() % UInt64(alphabet.count))], at: at)
                }
            }
            loadOrLocatedError(bytes, "mutation \(i)")
        }
    }
}
