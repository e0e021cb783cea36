import ThrumTime
import XCTest

@testable import ThrumLink

/// The wait a run thread makes without its lock (``WakeableTransport``), over a real
/// pseudo-terminal: bytes end it (and are still there to read), a signal ends it even when made
/// before the wait began (no lost wake-up), a drained signal no longer does, and a closed
/// transport refuses to wait. The waits given are long (60 s): a wait that did not end would
/// hang the test, so each outcome is decided by what ended it, never by how long it took.
final class WakeableWaitTests: XCTestCase {
    func testBytesEndTheWaitAndStayToBeRead() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        defer { client.close() }
        let wake = WakeSignal()
        try pty.master.write([7, 8])
        XCTAssertTrue(try client.waitUntilReadable(timeout: .seconds(60), orWoken: wake))
        XCTAssertEqual(try client.read(maxCount: 16, timeout: .zero), [7, 8])
    }

    func testASignalMadeBeforeTheWaitStillEndsItUntilDrained() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        defer { client.close() }
        let wake = WakeSignal()
        XCTAssertGreaterThanOrEqual(wake.descriptor, 0)
        XCTAssertFalse(wake.isSignalled)
        wake.signal()
        wake.signal()
        XCTAssertTrue(wake.isSignalled)
        XCTAssertFalse(try client.waitUntilReadable(timeout: .seconds(60), orWoken: wake), "woken, not readable")
        // Still pending (a wait does not consume it): the next one ends too.
        XCTAssertFalse(try client.waitUntilReadable(timeout: .seconds(60), orWoken: wake))
        wake.drain()
        XCTAssertFalse(wake.isSignalled)
        // Drained: a zero wait only looks and finds nothing.
        XCTAssertFalse(try client.waitUntilReadable(timeout: .zero, orWoken: wake))
    }

    func testASignalFromAnotherThreadEndsAWaitInProgress() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        defer { client.close() }
        let wake = WakeSignal()
        let waiting = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable {
            let client: PseudoTerminalTransport
            var readable: Bool?
            init(_ client: PseudoTerminalTransport) { self.client = client }
        }
        let box = Box(client)
        Thread {
            waiting.signal()
            box.readable = try? box.client.waitUntilReadable(timeout: .seconds(60), orWoken: wake)
            done.signal()
        }.start()
        waiting.wait()
        wake.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(box.readable, false)
    }

    func testAClosedTransportDoesNotWait() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        client.close()
        XCTAssertThrowsError(try client.waitUntilReadable(timeout: .seconds(60), orWoken: WakeSignal())) {
            XCTAssertEqual($0 as? TransportError, .closed)
        }
    }

    /// The pump's split of ``TransportPump/run(_:until:)``: a transport that cannot be woken
    /// (in memory) makes no wait apart.
    func testAPumpOverAnInMemoryTransportDoesNotWaitApart() throws {
        let (a, _) = InMemoryTransport.makePair()
        let pump = TransportPump(transport: a)
        XCTAssertFalse(pump.waitsApart)
        XCTAssertFalse(try pump.waitForInput(until: pump.clock.now() + .seconds(60), orWoken: WakeSignal()))
    }
}
