import Foundation
import ThrumEngine
import ThrumLink
import ThrumPattern
import ThrumSim
import ThrumTime
import ThrumWire
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private func closeDescriptor(_ fd: CInt) { _ = close(fd) }
private func writeByte(_ fd: CInt) {
    var byte: UInt8 = 1
    _ = write(fd, &byte, 1)
}
private func readByte(_ fd: CInt) {
    var byte: UInt8 = 0
    _ = read(fd, &byte, 1)
}

/// The run thread of a real-time engine waits on its transport WITHOUT the engine's lock, and a
/// caller cuts that wait short: over a transport whose wait the test holds open (a virtual device
/// served in real time on the other end), a `start()` from another thread goes through and writes
/// its GO while the run thread is still inside the wait; a wake makes the run thread plan again
/// (an earlier deadline is honoured); `stop()` ends a wait and a released engine ends the thread.
/// No timing is asserted: the waits for the threads are bounded and generous.
final class RunThreadWaitTests: XCTestCase {
    /// The engine's end of an in-memory pipe, whose ``waitUntilReadable(timeout:orWoken:)`` the
    /// test can hold: a held wait blocks until ``release()`` (or, with `wakeEndsHeldWait`, until the
    /// engine signals its wake), whatever its timeout.
    final class GatedTransport: WakeableTransport, @unchecked Sendable {
        struct Write {
            var bytes: [UInt8]
            var onRunThread: Bool
            var duringHeldWait: Bool
        }
        let inner: InMemoryTransport
        var endpointName: String { "gated" }
        private let lock = NSLock()
        private var holding = false
        private var inHeldWait = false
        private var wakeEnds = false
        private var releasePipe: [CInt] = [-1, -1]
        private(set) var writes: [Write] = []
        /// The deadline (monotonic µs) each wait was given, in order, with whether it was held.
        private(set) var waits: [(deadline: HostTime, held: Bool)] = []
        /// Signalled when the run thread enters a held wait, and when it leaves one.
        let entered = DispatchSemaphore(value: 0)
        let left = DispatchSemaphore(value: 0)
        let clock = MonotonicClock()

        init(_ inner: InMemoryTransport) {
            self.inner = inner
            _ = pipe(&releasePipe)
        }

        deinit {
            closeDescriptor(releasePipe[0])
            closeDescriptor(releasePipe[1])
        }

        /// Holds the next waits until ``release()`` (and, when `wakeEnds`, until woken).
        func hold(wakeEnds: Bool) {
            lock.lock()
            holding = true
            self.wakeEnds = wakeEnds
            lock.unlock()
        }

        /// Lets the engine's wake end the wait being held.
        func allowWake() {
            lock.lock()
            wakeEnds = true
            lock.unlock()
            writeByte(releasePipe[1])
        }

        /// Ends the held wait and stops holding.
        func release() {
            lock.lock()
            holding = false
            lock.unlock()
            writeByte(releasePipe[1])
        }

        func write(_ bytes: [UInt8]) throws(TransportError) {
            lock.lock()
            writes.append(Write(bytes: bytes, onRunThread: SharedDevice.isRunThread, duringHeldWait: inHeldWait))
            lock.unlock()
            try inner.write(bytes)
        }

        func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] {
            try inner.read(maxCount: maxCount, timeout: timeout)
        }

        func close() { inner.close() }

        func waitUntilReadable(timeout: HostDuration, orWoken wake: WakeSignal) throws(TransportError) -> Bool {
            lock.lock()
            let held = holding
            let initiallyWakeable = wakeEnds
            waits.append((clock.now() + timeout, held))
            if held { inHeldWait = true }
            lock.unlock()
            if !held {
                // Not held: a short wait on the wake (the in-memory pipe has no descriptor); the
                // run thread plans again after it.
                var entry = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, CInt(min(max(timeout.nanoseconds / 1_000_000, 0), 1)))
                return false
            }
            entered.signal()
            var wakeable = initiallyWakeable
            while true {
                var entries = [pollfd(fd: releasePipe[0], events: Int16(POLLIN), revents: 0)]
                if wakeable { entries.append(pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)) }
                if poll(&entries, nfds_t(entries.count), -1) <= 0 { continue }
                if entries.count > 1 && entries[1].revents != 0 { break }
                readByte(releasePipe[0])
                lock.lock()
                let stillHeld = holding
                wakeable = wakeEnds
                lock.unlock()
                if !stillHeld { break }
            }
            lock.lock()
            inHeldWait = false
            lock.unlock()
            left.signal()
            return false
        }

        /// The host → device messages in `writes` matching `filter`.
        func messages(where filter: (Write) -> Bool) -> [HostMessage] {
            lock.lock()
            let all = writes
            lock.unlock()
            // A version-5 device's frames are keyed by the session the host claimed (PROTOCOL.md
            // §3.8): learn the key from the CLAIM, sent plain, to read them.
            var plain = FrameDecoder(direction: .hostToDevice)
            let claims = plain.push(all.flatMap(\.bytes)).flatMap { (try? HostMessage.parsePayload($0.payload)) ?? [] }
            var decoder = FrameDecoder(direction: .hostToDevice)
            for case .claim(let session) in claims { decoder.keys.append(CRC16.sessionKey(session)) }
            return decoder.push(all.filter(filter).flatMap(\.bytes)).flatMap { (try? HostMessage.parsePayload($0.payload)) ?? [] }
        }

        var waitLog: [(deadline: HostTime, held: Bool)] {
            lock.lock()
            defer { lock.unlock() }
            return waits
        }
    }

    /// A virtual device served in real time on its own thread, until `stop`.
    final class Server: @unchecked Sendable {
        let transport: InMemoryTransport
        private let lock = NSLock()
        private var stopping = false
        private let done = DispatchSemaphore(value: 0)

        init(_ transport: InMemoryTransport) {
            self.transport = transport
            let thread = Thread { [self] in
                let server = DeviceServer(device: VirtualDevice(), transport: transport)
                try? server.serve { self.shouldStop }
                done.signal()
            }
            thread.start()
        }

        private var shouldStop: Bool {
            lock.lock()
            defer { lock.unlock() }
            return stopping
        }

        func stop() {
            lock.lock()
            stopping = true
            lock.unlock()
            _ = done.wait(timeout: .now() + 10)
        }
    }

    /// An engine on real time over a ``GatedTransport`` to a served virtual device; the link pings
    /// at its idle interval from the start (no startup probing), so idle waits are long.
    private func makeEngine() throws -> (HapticEngine, GatedTransport, Server) {
        let (host, device) = InMemoryTransport.makePair()
        let server = Server(device)
        let gated = GatedTransport(host)
        var configuration = DeviceSession.Configuration()
        configuration.link.startupProbing = .zero
        let engine = HapticEngine(
            session: DeviceSession(
                pump: TransportPump(transport: gated), endpointName: "gated", configuration: configuration))
        XCTAssertEqual(engine.device.runMode, .realTime)
        try engine.start()
        return (engine, gated, server)
    }

    private func tap() throws -> HapticPattern {
        try HapticPattern(
            events: [
                HapticEvent(
                    eventType: .hapticTransient,
                    parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 1)],
                    relativeTime: 0)
            ], parameters: [])
    }

    /// While the run thread is inside its wait, a prepared start from another thread takes the
    /// lock and its GO is written (by the caller) before the wait is released.
    func testAStartFromAnotherThreadWritesItsGoWhileTheRunThreadWaits() throws {
        let (engine, gated, server) = try makeEngine()
        defer { server.stop() }
        let pattern = try tap()
        try engine.prepare(pattern)
        let player = try engine.makePlayer(with: pattern)
        gated.hold(wakeEnds: false)
        XCTAssertEqual(gated.entered.wait(timeout: .now() + 10), .success, "the run thread never waited")
        let started = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable {
            let player: any HapticPatternPlayer
            var error: Error?
            init(_ player: any HapticPatternPlayer) { self.player = player }
        }
        let box = Box(player)
        DispatchQueue.global().async {
            do { try box.player.start(atTime: HapticTimeImmediate) } catch { box.error = error }
            started.signal()
        }
        // Before the fix this call waited for the lock the run thread held through its wait.
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success, "start() did not get the lock during the wait")
        XCTAssertNil(box.error)
        let gos = gated.messages { $0.duringHeldWait && !$0.onRunThread }.filter {
            if case .go = $0 { return true }
            return false
        }
        XCTAssertEqual(gos.count, 1, "the GO was not written during the wait")
        gated.release()
        XCTAssertEqual(gated.left.wait(timeout: .now() + 10), .success)
        engine.stop()
    }

    /// A wake makes the run thread plan again: its wait for an idle deadline is cut short when a
    /// player is started to play sooner, and its next wait ends no later than that start.
    func testAWakeMakesTheRunThreadHonourAnEarlierDeadline() throws {
        let (engine, gated, server) = try makeEngine()
        defer { server.stop() }
        let player = try engine.makePlayer(with: try tap())
        // Hold a wait whose deadline is well after the tap to come (100 ms after its start: the tap
        // is over by then): that is the wait the start must cut short.
        // Waits are looked at until one qualifies or 20 s pass (not a count: under load a run of
        // short waits — a retransmission, an ACK late — can outlast any fixed number of them).
        var held: (index: Int, deadline: HostTime, start: Double)?
        let giveUp = Date().addingTimeInterval(20)
        var shortest = Double.infinity, longest = -Double.infinity
        while held == nil && Date() < giveUp {
            gated.hold(wakeEnds: false)
            XCTAssertEqual(gated.entered.wait(timeout: .now() + 10), .success, "the run thread never waited")
            let log = gated.waitLog
            let deadline = log[log.count - 1].deadline
            let startAt = engine.currentTime + 0.002
            let ahead = deadline.seconds - startAt
            shortest = min(shortest, ahead)
            longest = max(longest, ahead)
            if deadline > HostTime(seconds: startAt + 0.1) {
                held = (log.count - 1, deadline, startAt)
                break
            }
            gated.release()
            XCTAssertEqual(gated.left.wait(timeout: .now() + 10), .success)
        }
        let wait = try XCTUnwrap(
            held,
            "the run thread never waited past 100 ms after a start 2 ms ahead in 20 s (its deadlines were \(shortest)…\(longest) s past the start)")
        let startAt = wait.start
        let startHost = HostTime(seconds: startAt)
        // Now let the engine's wake end it.
        gated.allowWake()
        try player.start(atTime: startAt)
        XCTAssertEqual(gated.left.wait(timeout: .now() + 10), .success, "the wake did not end the wait")
        // The first wait planned after the wake (held again: it stays in the log).
        XCTAssertEqual(gated.entered.wait(timeout: .now() + 10), .success, "the run thread did not wait again")
        let after = gated.waitLog[wait.index + 1]
        // Planned again for the tap: the run thread wakes for its end, sooner than it meant to.
        XCTAssertLessThan(after.deadline, wait.deadline)
        XCTAssertLessThanOrEqual(after.deadline, startHost + .milliseconds(100))
        gated.release()
        engine.stop()
    }

    /// `stop()` from another thread ends the run thread's wait; once the engine is released the
    /// run thread lets its device go (and ends).
    func testStopEndsTheWaitAndReleasingTheEngineEndsTheThread() throws {
        var (engine, gated, server): (HapticEngine?, GatedTransport, Server) = try makeEngine()
        defer { server.stop() }
        weak var device = engine?.device
        gated.hold(wakeEnds: true)
        XCTAssertEqual(gated.entered.wait(timeout: .now() + 10), .success, "the run thread never waited")
        engine?.stop()
        XCTAssertEqual(gated.left.wait(timeout: .now() + 10), .success, "stop() did not end the wait")
        gated.release()
        engine = nil
        for _ in 0..<10_000 where device != nil { usleep(1000) }
        XCTAssertNil(device, "the run thread still holds the device")
    }
}
