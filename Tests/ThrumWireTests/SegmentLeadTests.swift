import ThrumWire
import XCTest

/// How a marked ramp up from 0 is led (`SegmentCommand.startLead`, `SegmentCommand.led`), checked
/// against the device's own rule for when a segment first drives (`firstDriveOffset`, the
/// firmware's `drive_at`, PROTOCOL.md §4.1) for every `to` and durations up to the 1 s limit.
final class SegmentLeadTests: XCTestCase {
    static let limit = ProtocolConstants.segmentMaxDurationMicroseconds

    /// Durations: every one to 300 µs, then a spread up to the limit, and those around where
    /// a lengthened ramp passes it (1 s × (2 to − 1) / (2 to)).
    static func durations(to: UInt8) -> [UInt32] {
        let edge = UInt32(UInt64(limit) * (2 * UInt64(to) - 1) / (2 * UInt64(to)))
        return Array(1...300) + [499_999, 500_000, 500_001, 600_000, 970_000, 999_999, limit]
            + stride(from: UInt32(1_000), through: limit, by: 49_999) + (edge - 2...min(edge + 2, limit))
    }

    func testTheLeadIsTheLeastFixedPointOfTheLengthenedRampsCrossing() {
        for to in UInt8(1)...255 {
            for d in Self.durations(to: to) {
                let lead = SegmentCommand.startLead(duration: d, from: 0, to: to)
                let crossing = SegmentCommand.firstDriveOffset(duration: d, from: 0, to: to)
                guard crossing > 0 else {
                    XCTAssertEqual(lead, 0, "to \(to) over \(d) µs drives at once")
                    continue
                }
                // The lengthened ramp first drives exactly where the ramp was meant to begin...
                XCTAssertEqual(SegmentCommand.firstDriveOffset(duration: d + lead, from: 0, to: to), lead, "to \(to) over \(d) µs")
                // ... and no shorter lead does (f(L) − L never grows, so one step back suffices).
                XCTAssertGreaterThan(
                    SegmentCommand.firstDriveOffset(duration: d + lead - 1, from: 0, to: to), lead - 1, "to \(to) over \(d) µs: not the least")
                XCTAssertGreaterThanOrEqual(lead, crossing)
                XCTAssertLessThanOrEqual(lead, d)
            }
        }
        // to = 1: the ramp to 1 doubled, its crossing at the middle.
        XCTAssertEqual(SegmentCommand.startLead(duration: 600_000, from: 0, to: 1), 600_000)
        // The figure of docs/timing.md: to 26 over 1 s; the crossing led it by 19 231 µs.
        XCTAssertEqual(SegmentCommand.startLead(duration: 1_000_000, from: 0, to: 26), 19_608)
        XCTAssertEqual(SegmentCommand.firstDriveOffset(duration: 1_000_000, from: 0, to: 26), 19_231)
    }

    func testLedRampsFitTheDeviceAndFirstDriveOnTheirStart() {
        for to in UInt8(1)...255 {
            for d in Self.durations(to: to) {
                let led = SegmentCommand.led(duration: d, from: 0, to: to)
                let what = { "to \(to) over \(d) µs: \(led)" }
                // The end is kept, nothing is longer than a segment may be.
                XCTAssertEqual(UInt64(led.markedDuration) + UInt64(led.restDuration), UInt64(d) + UInt64(led.lead), what())
                XCTAssertLessThanOrEqual(led.markedDuration, Self.limit, what())
                XCTAssertLessThanOrEqual(led.restDuration, Self.limit, what())
                // The marked part first drives its lead after it starts: on the ramp's start.
                XCTAssertEqual(SegmentCommand.firstDriveOffset(duration: led.markedDuration, from: 0, to: led.markedTo), led.lead, what())
                let lead = SegmentCommand.startLead(duration: d, from: 0, to: to)
                if UInt64(d) + UInt64(lead) <= UInt64(Self.limit) {
                    XCTAssertEqual(led, SegmentCommand.Led(lead: lead, markedDuration: d + lead, markedTo: to, restDuration: 0), what())
                } else {
                    // Split at the middle: the marked part ends at the ramp's value there.
                    XCTAssertEqual(led.restDuration, d - d / 2, what())
                    let middle = Double(to) * Double(d / 2) / Double(d)
                    XCTAssertLessThanOrEqual(abs(Double(led.markedTo) - max(1, middle)), 0.5, what())
                    XCTAssertGreaterThan(led.lead, 0, what())
                }
            }
        }
    }

    func testSegmentsThatDriveAtOnceAndExtremesAreSentAsTheyAre() {
        let whole = SegmentCommand.Led(whole: 700_000, to: 0)
        XCTAssertEqual(SegmentCommand.led(duration: 700_000, from: 0, to: 0), whole, "all zero: its write of 0 is its onset")
        XCTAssertEqual(SegmentCommand.led(duration: 700_000, from: 3, to: 90), SegmentCommand.Led(whole: 700_000, to: 90), "from 3")
        XCTAssertEqual(SegmentCommand.led(duration: 1, from: 0, to: 1), SegmentCommand.Led(whole: 1, to: 1), "no crossing inside")
        XCTAssertEqual(SegmentCommand.startLead(duration: 0, from: 0, to: 9), 0)
        // Far past the limit (no caller sends that): no overflow, and nothing it cannot keep.
        XCTAssertEqual(SegmentCommand.startLead(duration: .max, from: 0, to: 1), .max)
        XCTAssertEqual(SegmentCommand.startLead(duration: .max, from: 0, to: 255), UInt32((UInt64(UInt32.max) + 508) / 509))
        XCTAssertEqual(SegmentCommand.led(duration: .max, from: 0, to: 1), SegmentCommand.Led(whole: .max, to: 1))
    }
}
