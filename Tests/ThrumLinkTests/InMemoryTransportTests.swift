import Foundation
import XCTest

@testable import ThrumLink

final class InMemoryTransportTests: XCTestCase {
    func testPairCarriesBytesBothWaysAndRecordsWrites() throws {
        let (a, b) = InMemoryTransport.makePair()
        XCTAssertEqual(a.endpointName, "memory:a")
        try a.write([1, 2])
        try a.write([3])
        try b.write([9])
        XCTAssertEqual(b.queuedCount, 3)
        XCTAssertEqual(try b.read(maxCount: 2, timeout: .seconds(5)), [1, 2])
        XCTAssertEqual(try b.read(maxCount: 10, timeout: .seconds(5)), [3])
        XCTAssertEqual(try a.read(maxCount: 10, timeout: .seconds(5)), [9])
        XCTAssertEqual(a.writes, [[1, 2], [3]])
        XCTAssertEqual(a.writtenBytes, [1, 2, 3])
        XCTAssertEqual(b.writtenBytes, [9])
    }

    func testReadReturnsImmediatelyWhenDataIsQueued() throws {
        let (a, b) = InMemoryTransport.makePair()
        try a.write([7])
        // A day-long timeout: the test would hang if read waited instead of returning.
        XCTAssertEqual(try b.read(maxCount: 8, timeout: .seconds(86_400)), [7])
    }

    func testReadTimesOutEmpty() throws {
        let (_, b) = InMemoryTransport.makePair()
        XCTAssertEqual(try b.read(maxCount: 8, timeout: .milliseconds(10)), [])
        XCTAssertEqual(try b.read(maxCount: 8, timeout: .zero), [])
    }

    func testWaitingReaderWakesOnWrite() throws {
        let (a, b) = InMemoryTransport.makePair()
        let started = DispatchSemaphore(value: 0)
        let writer = Thread {
            started.wait()
            try? a.write([5, 6])
        }
        writer.start()
        started.signal()
        XCTAssertEqual(try b.read(maxCount: 8, timeout: .seconds(30)), [5, 6])
    }

    func testClosingOneEndDrainsThenDisconnectsTheOther() throws {
        let (a, b) = InMemoryTransport.makePair()
        try a.write([1])
        a.close()
        a.close()
        XCTAssertEqual(try b.read(maxCount: 8, timeout: .seconds(5)), [1])
        XCTAssertThrowsError(try b.read(maxCount: 8, timeout: .seconds(5))) {
            XCTAssertEqual($0 as? TransportError, .disconnected)
        }
        XCTAssertThrowsError(try b.write([2])) { XCTAssertEqual($0 as? TransportError, .disconnected) }
        XCTAssertThrowsError(try a.write([2])) { XCTAssertEqual($0 as? TransportError, .closed) }
        XCTAssertThrowsError(try a.read(maxCount: 1, timeout: .zero)) { XCTAssertEqual($0 as? TransportError, .closed) }
    }

    func testCloseWakesAWaitingReaderOnTheOtherEnd() throws {
        let (a, b) = InMemoryTransport.makePair()
        let closer = Thread { a.close() }
        closer.start()
        XCTAssertThrowsError(try b.read(maxCount: 8, timeout: .seconds(30))) {
            XCTAssertEqual($0 as? TransportError, .disconnected)
        }
    }

    func testConcurrentWritersLoseNothing() throws {
        let (a, b) = InMemoryTransport.makePair()
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            for _ in 0..<100 { try? a.write([UInt8(i)]) }
        }
        var received: [UInt8] = []
        while received.count < 800 { received += try b.read(maxCount: 1000, timeout: .seconds(5)) }
        XCTAssertEqual(received.count, 800)
        for i in 0..<8 { XCTAssertEqual(received.filter { $0 == UInt8(i) }.count, 100) }
    }
}
