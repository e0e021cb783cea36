import ThrumTime
import ThrumWire
import XCTest

@testable import ThrumLink

/// Over a real pseudo-terminal: a reply read after the pump's wait ended because it arrived is
/// marked as having woken the reader (its receive time includes a wake-up); one that was already
/// waiting when the host looked is not. Decided by what ended the wait, not by how long it took.
final class ReaderWokenTests: XCTestCase {
    /// Moves what the host wrote to the fake device and writes the device's replies back.
    private static func serve(_ pty: PseudoTerminal, _ device: FakeDevice, clock: MonotonicClock) throws {
        let bytes = try pty.master.read(maxCount: 4096, timeout: .seconds(5))
        for reply in device.receive(bytes, at: clock.now()) { try pty.master.write(reply) }
    }

    func testAReplyThatEndsTheWaitWokeTheReaderAndOneAlreadyThereDidNot() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        defer { client.close() }
        let clock = MonotonicClock()
        let device = FakeDevice()
        let session = LinkSession(clock: clock)
        let pump = TransportPump(transport: client, clock: clock)
        XCTAssertTrue(pump.waitsApart)
        let wake = WakeSignal()

        // Connect: the IDENTIFY's reply is written before the host reads, so it was waiting.
        session.connect()
        try pump.flush(session)
        try Self.serve(pty, device, clock: clock)
        Thread.sleep(forTimeInterval: 0.01)
        try pump.exchange(session)
        guard case .connected = session.state else { return XCTFail("not connected: \(session.state)") }
        XCTAssertEqual(session.clock.samples.last?.readerWoken, false)

        // A sequenced frame whose ACK comes while the host sleeps in its wait.
        session.send(.ping)
        try pump.flush(session)
        let served = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable {
            let pty: PseudoTerminal, device: FakeDevice, clock: MonotonicClock
            var failure: Error?
            init(_ pty: PseudoTerminal, _ device: FakeDevice, _ clock: MonotonicClock) { (self.pty, self.device, self.clock) = (pty, device, clock) }
        }
        let box = Box(pty, device, clock)
        Thread {
            Thread.sleep(forTimeInterval: 0.05)
            do {
                try Self.serve(box.pty, box.device, clock: box.clock)
            } catch {
                box.failure = error
            }
            served.signal()
        }.start()
        let before = session.clock.sampleCount
        XCTAssertTrue(try pump.waitForInput(until: clock.now() + .seconds(60), orWoken: wake), "the reply ended the wait")
        served.wait()
        XCTAssertNil(box.failure)
        try pump.exchange(session)
        XCTAssertEqual(session.clock.sampleCount, before + 1)
        XCTAssertEqual(session.clock.samples.last?.readerWoken, true)

        // The next exchange without a wait: the flag was taken by the read it described.
        session.send(.ping)
        try pump.flush(session)
        try Self.serve(pty, device, clock: clock)
        Thread.sleep(forTimeInterval: 0.01)
        try pump.exchange(session)
        XCTAssertEqual(session.clock.samples.last?.readerWoken, false)
    }
}
