import ThrumBench
import XCTest

/// The library bench rows, in virtual time: a flash within 70 % of the limiting rate (storage or
/// link) and play-by-id starts on the realistic USB model.
final class LibraryBenchTests: XCTestCase {
    func testFlashRateAndPlayByIdLatency() throws {
        let r = try LibraryBench.run(seed: 7, trials: 12)
        let flash = try XCTUnwrap(r.flash)
        print(String(format: "library bench: image %d B, flash %.0f B/s in %.3f s, storage allows %.0f, link %.0f, %.4f of the %@ limit; play-by-id p50 %.2f ms",
                     r.imageBytes, flash.bytesPerSecond, flash.seconds, flash.storageBytesPerSecond, flash.linkBytesPerSecond, flash.fraction,
                     flash.limitedBy, r.playLatencies.sorted()[r.playLatencies.count / 2]))
        XCTAssertEqual(flash.limitedBy, "storage", "an EEPROM page write cycle is far slower than a USB full-speed frame")
        XCTAssertGreaterThanOrEqual(flash.fraction, 0.7)
        XCTAssertLessThanOrEqual(flash.fraction, 1.0, "never faster than the storage allows: the model counts every write cycle")
        XCTAssertEqual(r.playLatencies.count, 12, "every play by id drove the chip")
        XCTAssertEqual(r.storageReadLatencies.count, 12, "every play of a preset read from storage drove the chip")
        print(String(format: "library bench: from storage p50 %.2f ms; %d of %d events cut", r.storageReadLatencies.sorted()[6], r.cutEvents, r.events))
        XCTAssertGreaterThan(r.events, 24)
        XCTAssertEqual(r.cutEvents, 0, "no stored preset event starts trimmed or dropped")
    }
}

/// The split of wire bytes between transients and continuous segments, for the stream as sent
/// today and for the compact representation stored libraries use.
final class WireSplitBenchTests: XCTestCase {
    func testCompactRepresentationBeatsTheStream() throws {
        let r = WireSplitBench.run(patterns: try BenchPatterns.all())
        print(String(format: "wire split: %d transients: stream %.1f B each, compact %.1f B (+ %d B of shapes once); %d segments: stream %.1f B each, compact %.1f B",
                     r.transients, r.streamPerTransient ?? .nan, r.compactPerTransient ?? .nan, r.shapeBytes, r.segments,
                     r.streamPerSegment ?? .nan, r.compactPerSegment ?? .nan))
        XCTAssertGreaterThan(r.transients, 10)
        XCTAssertGreaterThan(r.segments, 10)
        XCTAssertLessThanOrEqual(try XCTUnwrap(r.compactPerTransient), 8, "a transient is a few bytes once its shape is known")
        XCTAssertLessThan(try XCTUnwrap(r.compactPerSegment), try XCTUnwrap(r.streamPerSegment))
    }

    /// The compact stream on the wire (protocol version 2) meets the targets over the set.
    func testCompactStreamMeetsTheTargets() throws {
        let r = WireSplitBench.run(patterns: try BenchPatterns.all())
        print(String(format: "compact stream: %.2f B per transient (%d SHAPEs), %.2f B per segment",
                     r.wirePerTransient ?? .nan, r.shapesDefined, r.wirePerSegment ?? .nan))
        XCTAssertLessThanOrEqual(try XCTUnwrap(r.wirePerTransient), 8)
        XCTAssertLessThanOrEqual(try XCTUnwrap(r.wirePerSegment), 4)
        XCTAssertGreaterThan(r.shapesDefined, 0)
        let all = WireBytesBench.run(patterns: try BenchPatterns.all())
        XCTAssertLessThan(all.compactBytes, all.bytes / 2, "the compact stream takes less than half the SEGMENT bytes")
    }
}
