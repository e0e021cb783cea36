import ThrumTime
import XCTest

@testable import ThrumLink

/// The serial port transport's read wait (``SerialPortReading``) against the recording fake: the
/// wait on the port's descriptor asks for exactly the time left, EINTR resumes with what is left,
/// a zero timeout only reads, and the outcomes on time-outs, hang-ups and errors are those of
/// `sp_blocking_read_next` and the transport before it.
final class SerialPortReadingTests: XCTestCase {
    let handle: CInt = 5
    let pollIn = Platform.pollIn
    let pollHup = Platform.pollHup

    /// A fake system and a clock each wait moves on.
    private func makeWaiter() -> (RecordingTermiosSystem, DescriptorWait) {
        let system = RecordingTermiosSystem()
        let clock = ManualClock(start: HostTime(nanoseconds: 3_000_000_000))
        system.clock = clock
        return (system, DescriptorWait(system: system, clock: clock))
    }

    /// `readNow` answering from a script, counting its calls.
    private final class Reads {
        var script: [Result<Int, TransportError>]
        var calls = 0
        init(_ script: [Result<Int, TransportError>]) { self.script = script }
        func next() -> Result<Int, TransportError> {
            calls += 1
            return script.isEmpty ? .success(0) : script.removeFirst()
        }
    }

    private func read(
        _ waiter: DescriptorWait, timeout: HostDuration, reads: Reads, nodeExists: Bool = true
    ) throws(TransportError) -> Int {
        try SerialPortReading.read(
            handle: handle, timeout: timeout, waiter: waiter, name: "/dev/ttyUSB0", readNow: { reads.next() },
            nodeExists: { nodeExists })
    }

    private func assertThrows(
        _ expected: TransportError, file: StaticString = #filePath, line: UInt = #line,
        _ body: () throws(TransportError) -> Int
    ) {
        do {
            let n = try body()
            XCTFail("expected \(expected), read \(n)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, file: file, line: line)
        }
    }

    func testAZeroTimeoutReadsOnceWithoutWaiting() throws {
        let (system, waiter) = makeWaiter()
        let reads = Reads([.success(3)])
        XCTAssertEqual(try read(waiter, timeout: .zero, reads: reads), 3)
        XCTAssertEqual(try read(waiter, timeout: .microseconds(-1), reads: reads), 0)
        XCTAssertEqual(system.calls, [])
        XCTAssertEqual(reads.calls, 2)
    }

    func testTheWaitIsTheTimeoutToTheNanosecondAndBytesEndItAtOnce() throws {
        let (system, waiter) = makeWaiter()
        system.pollResults = [.success(pollIn)]
        system.pollElapsed = [.microseconds(120)]
        let reads = Reads([.success(4)])
        XCTAssertEqual(try read(waiter, timeout: HostDuration(nanoseconds: 200_001), reads: reads), 4)
        XCTAssertEqual(system.calls, [.poll(handle, events: pollIn, timeout: HostDuration(nanoseconds: 200_001))])
        XCTAssertEqual(reads.calls, 1)
    }

    func testAnInterruptedWaitResumesWithTheTimeLeft() throws {
        let (system, waiter) = makeWaiter()
        system.pollResults = [.failure(.interrupted), .success(pollIn)]
        system.pollElapsed = [.microseconds(333), .microseconds(10)]
        let reads = Reads([.success(1)])
        XCTAssertEqual(try read(waiter, timeout: .milliseconds(1), reads: reads), 1)
        XCTAssertEqual(
            system.calls,
            [
                .poll(handle, events: pollIn, timeout: .milliseconds(1)),
                .poll(handle, events: pollIn, timeout: .microseconds(667)),
            ])
    }

    func testATimeoutReturnsNothingWhileTheNodeIsThereAndDisconnectsOnceItIsGone() throws {
        let (system, waiter) = makeWaiter()
        let reads = Reads([])
        XCTAssertEqual(try read(waiter, timeout: .microseconds(250), reads: reads), 0)
        assertThrows(.disconnected) { () throws(TransportError) -> Int in
            try read(waiter, timeout: .microseconds(250), reads: reads, nodeExists: false)
        }
        XCTAssertEqual(
            system.calls,
            [
                .poll(handle, events: pollIn, timeout: .microseconds(250)),
                .poll(handle, events: pollIn, timeout: .microseconds(250)),
            ])
        XCTAssertEqual(reads.calls, 0)
    }

    func testASpuriousWakeUpWaitsAgainForWhatIsLeft() throws {
        let (system, waiter) = makeWaiter()
        system.pollResults = [.success(pollIn)]
        system.pollElapsed = [.microseconds(90)]
        let reads = Reads([.success(0)])
        XCTAssertEqual(try read(waiter, timeout: .microseconds(300), reads: reads), 0)
        XCTAssertEqual(
            system.calls,
            [
                .poll(handle, events: pollIn, timeout: .microseconds(300)),
                .poll(handle, events: pollIn, timeout: .microseconds(210)),
            ])
    }

    func testAHungUpTerminalWithItsNodeSleepsOutTheTimeoutInsteadOfSpinning() throws {
        let (system, waiter) = makeWaiter()
        system.pollResults = [.success(pollHup)]
        system.pollElapsed = [.microseconds(5)]
        let start = waiter.clock.now()
        let reads = Reads([.success(0)])
        XCTAssertEqual(try read(waiter, timeout: .milliseconds(2), reads: reads), 0)
        // One look, one read, then a wait on no descriptor for the rest: no busy loop on POLLHUP.
        XCTAssertEqual(
            system.calls,
            [
                .poll(handle, events: pollIn, timeout: .milliseconds(2)),
                .poll(-1, events: 0, timeout: .microseconds(1_995)),
            ])
        XCTAssertEqual(waiter.clock.now() - start, .milliseconds(2))
    }

    func testAHungUpPortWhoseNodeIsGoneIsDisconnectedAtOnce() {
        let (system, waiter) = makeWaiter()
        system.pollResults = [.success(pollHup)]
        system.pollElapsed = [.microseconds(5)]
        let reads = Reads([.success(0)])
        assertThrows(.disconnected) { () throws(TransportError) -> Int in
            try read(waiter, timeout: .milliseconds(2), reads: reads, nodeExists: false)
        }
        XCTAssertEqual(system.calls, [.poll(handle, events: pollIn, timeout: .milliseconds(2))])
    }

    func testTheReadsErrorsPassThrough() {
        let (system, waiter) = makeWaiter()
        system.pollResults = [.success(pollIn), .success(pollIn)]
        let reads = Reads([.failure(.disconnected), .failure(.ioFailed(reason: "sp_nonblocking_read: x"))])
        assertThrows(.disconnected) { () throws(TransportError) -> Int in
            try read(waiter, timeout: .milliseconds(1), reads: reads)
        }
        assertThrows(.ioFailed(reason: "sp_nonblocking_read: x")) { () throws(TransportError) -> Int in
            try read(waiter, timeout: .milliseconds(1), reads: reads)
        }
    }

    func testAFailedWaitIsAnIOErrorNamingThePortOrADisconnection() {
        let (system, waiter) = makeWaiter()
        system.pollResults = [.failure(.badDescriptor), .failure(.ioError), .success(Platform.pollNval)]
        let reads = Reads([])
        assertThrows(.ioFailed(reason: "poll on /dev/ttyUSB0: \(SystemErrno.badDescriptor)")) {
            () throws(TransportError) -> Int in try read(waiter, timeout: .milliseconds(1), reads: reads)
        }
        assertThrows(.disconnected) { () throws(TransportError) -> Int in
            try read(waiter, timeout: .milliseconds(1), reads: reads)
        }
        assertThrows(.ioFailed(reason: "poll on /dev/ttyUSB0: descriptor not open")) {
            () throws(TransportError) -> Int in try read(waiter, timeout: .milliseconds(1), reads: reads)
        }
        XCTAssertEqual(reads.calls, 0)
    }
}
