import Foundation
import ThrumTime
import XCTest

@testable import ThrumLink

/// The pseudo-terminal transport against the recording fake: exact system-call sequences and
/// every error path, with no real descriptors and no waiting.
final class PseudoTerminalTransportFakeTests: XCTestCase {
    typealias Call = RecordingTermiosSystem.Call
    let path = "/dev/pts/7"
    let pollIn = Platform.pollIn
    let pollOut = Platform.pollOut
    let pollHup = Platform.pollHup

    private func open(_ system: RecordingTermiosSystem, writeTimeout: HostDuration = .milliseconds(500))
        throws(TransportError) -> PseudoTerminalTransport
    {
        try PseudoTerminalTransport(path: path, writeTimeout: writeTimeout, system: system, clock: ManualClock())
    }

    private func assertThrows<T>(
        _ expected: TransportError, file: StaticString = #filePath, line: UInt = #line,
        _ body: () throws(TransportError) -> T
    ) {
        do {
            _ = try body()
            XCTFail("expected \(expected)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, file: file, line: line)
        }
    }

    func testOpenPutsTheTerminalInRawModeAndFlushes() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        XCTAssertEqual(
            system.calls,
            [
                .open(path, flags: Platform.terminalOpenFlags), .lockExclusively(10), .setTerminalExclusive(10),
                .getAttributes(10), .setAttributes(10, raw: true), .discardPending(10),
            ])
        XCTAssertEqual(transport.endpointName, path)
        transport.close()
        transport.close()
        XCTAssertEqual(Array(system.calls.suffix(2)), [.clearTerminalExclusive(10), .close(10)], "TIOCEXCL lifted before close")
        XCTAssertEqual(system.calls.filter { $0 == .close(10) }.count, 1, "closing twice closes once")
    }

    func testOpenFlagsAreReadWriteNoControllingTerminalNonBlocking() {
        XCTAssertEqual(Platform.terminalOpenFlags, O_RDWR | O_NOCTTY | O_NONBLOCK)
    }

    func testOpenENOENTIsNotFound() {
        let system = RecordingTermiosSystem()
        system.openResults = [.failure(.noSuchFile)]
        assertThrows(.notFound(path: path)) { () throws(TransportError) in try open(system) }
        XCTAssertEqual(system.calls, [.open(path, flags: Platform.terminalOpenFlags)])
    }

    func testOpenEACCESIsOpenFailedWithTheSystemMessage() {
        let system = RecordingTermiosSystem()
        system.openResults = [.failure(.permissionDenied)]
        assertThrows(.openFailed(path: path, reason: SystemErrno.permissionDenied.description)) {
            () throws(TransportError) in try open(system)
        }
        XCTAssertTrue(SystemErrno.permissionDenied.description.contains("Permission denied"))
    }

    func testNotATerminalIsAConfigurationErrorAndClosesTheDescriptor() {
        let system = RecordingTermiosSystem()
        system.getAttributesResults = [.failure(.notATerminal)]
        assertThrows(.configurationFailed(path: path, reason: "not a terminal")) { () throws(TransportError) in
            try open(system)
        }
        XCTAssertEqual(
            system.calls,
            [
                .open(path, flags: Platform.terminalOpenFlags), .lockExclusively(10), .setTerminalExclusive(10), .getAttributes(10),
                .clearTerminalExclusive(10), .close(10),
            ])
    }

    func testAHeldLockIsPortBusyNamingTheHolderAndClosesTheDescriptor() {
        let system = RecordingTermiosSystem()
        system.lockResults = [.failure(.wouldBlock)]
        system.holders = ["PID 4242 (thrum)"]
        assertThrows(.busy(path: path, holder: "held by PID 4242 (thrum)")) { () throws(TransportError) in try open(system) }
        XCTAssertEqual(
            system.calls,
            [.open(path, flags: Platform.terminalOpenFlags), .lockExclusively(10), .close(10), .processesHolding(path)])
        XCTAssertEqual(
            TransportError.busy(path: path, holder: "held by PID 4242 (thrum)").description,
            "port busy: /dev/pts/7 is open in another process (held by PID 4242 (thrum))")
    }

    func testOpenEBUSYFromTIOCEXCLIsPortBusyEvenWhenNobodyCanBeNamed() {
        let system = RecordingTermiosSystem()
        system.openResults = [.failure(.busy)]
        assertThrows(.busy(path: path, holder: nil)) { () throws(TransportError) in try open(system) }
        XCTAssertEqual(system.calls, [.open(path, flags: Platform.terminalOpenFlags), .processesHolding(path)])
        XCTAssertEqual(TransportError.busy(path: path, holder: nil).description, "port busy: /dev/pts/7 is open in another process")
    }

    func testATerminalRefusingTIOCEXCLIsStillOpenedUnderTheLock() throws {
        let system = RecordingTermiosSystem()
        system.exclusiveResults = [.failure(.notATerminal)]
        let transport = try open(system)
        XCTAssertEqual(Array(system.calls.prefix(3)), [.open(path, flags: Platform.terminalOpenFlags), .lockExclusively(10), .setTerminalExclusive(10)])
        transport.close()
    }

    func testReadRetriesAnInterruptedPollWithTheSameTimeout() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.resetCalls()
        system.pollResults = [.failure(.interrupted), .success(pollIn)]
        system.readResults = [.success([1, 2, 3])]
        XCTAssertEqual(try transport.read(maxCount: 64, timeout: .milliseconds(100)), [1, 2, 3])
        XCTAssertEqual(
            system.calls,
            [
                .poll(10, events: pollIn, timeout: .milliseconds(100)),
                .poll(10, events: pollIn, timeout: .milliseconds(100)),
                .read(10, count: 64),
            ])
    }

    func testReadRetriesAnInterruptedRead() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.resetCalls()
        system.pollResults = [.success(pollIn), .success(pollIn)]
        system.readResults = [.failure(.interrupted), .success([9])]
        XCTAssertEqual(try transport.read(maxCount: 8, timeout: .milliseconds(5)), [9])
        XCTAssertEqual(
            system.calls,
            [
                .poll(10, events: pollIn, timeout: .milliseconds(5)), .read(10, count: 8),
                .poll(10, events: pollIn, timeout: .milliseconds(5)), .read(10, count: 8),
            ])
    }

    func testReadTimeoutReturnsEmptyAfterOnePoll() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.resetCalls()
        XCTAssertEqual(try transport.read(maxCount: 8, timeout: .milliseconds(250)), [])
        XCTAssertEqual(system.calls, [.poll(10, events: pollIn, timeout: .milliseconds(250))])
    }

    func testTimeoutsAreTheRemainingTimeToTheNanosecondAndZeroDoesNotWait() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.resetCalls()
        _ = try transport.read(maxCount: 8, timeout: .microseconds(1))
        _ = try transport.read(maxCount: 8, timeout: .microseconds(200))
        _ = try transport.read(maxCount: 8, timeout: HostDuration(nanoseconds: 1_234_567))
        _ = try transport.read(maxCount: 8, timeout: .zero)
        _ = try transport.read(maxCount: 8, timeout: .microseconds(-5))
        XCTAssertEqual(
            system.calls,
            [
                .poll(10, events: pollIn, timeout: .microseconds(1)),
                .poll(10, events: pollIn, timeout: .microseconds(200)),
                .poll(10, events: pollIn, timeout: HostDuration(nanoseconds: 1_234_567)),
                .poll(10, events: pollIn, timeout: .zero), .poll(10, events: pollIn, timeout: .zero),
            ])
    }

    /// The transport and the fake on one clock that each wait moves on, so each wait's timeout
    /// must be what is left of the read's.
    private func openOnClock(_ system: RecordingTermiosSystem) throws(TransportError) -> PseudoTerminalTransport {
        let clock = ManualClock(start: HostTime(nanoseconds: 7_000_000_000))
        system.clock = clock
        return try PseudoTerminalTransport(path: path, writeTimeout: .milliseconds(500), system: system, clock: clock)
    }

    func testAnInterruptedWaitResumesWithTheTimeLeft() throws {
        let system = RecordingTermiosSystem()
        let transport = try openOnClock(system)
        system.resetCalls()
        // Interrupted after 130.25 µs, then again after 19.75 µs; the third wait times out.
        system.pollResults = [.failure(.interrupted), .failure(.interrupted)]
        system.pollElapsed = [HostDuration(nanoseconds: 130_250), .microseconds(19)]
        let start = system.clock!.now()
        XCTAssertEqual(try transport.read(maxCount: 8, timeout: .microseconds(200)), [])
        XCTAssertEqual(
            system.calls,
            [
                .poll(10, events: pollIn, timeout: .microseconds(200)),
                .poll(10, events: pollIn, timeout: HostDuration(nanoseconds: 69_750)),
                .poll(10, events: pollIn, timeout: HostDuration(nanoseconds: 50_750)),
            ])
        XCTAssertEqual(system.clock!.now() - start, .microseconds(200))
    }

    func testAnInterruptionAfterTheDeadlineLooksOnceWithoutWaiting() throws {
        let system = RecordingTermiosSystem()
        let transport = try openOnClock(system)
        system.resetCalls()
        system.pollResults = [.failure(.interrupted), .success(pollIn)]
        system.pollElapsed = [.microseconds(450)]
        system.readResults = [.success([7, 8])]
        XCTAssertEqual(try transport.read(maxCount: 8, timeout: .microseconds(300)), [7, 8])
        XCTAssertEqual(
            system.calls,
            [
                .poll(10, events: pollIn, timeout: .microseconds(300)), .poll(10, events: pollIn, timeout: .zero),
                .read(10, count: 8),
            ])
    }

    func testASpuriousWakeUpWaitsAgainForWhatIsLeft() throws {
        let system = RecordingTermiosSystem()
        let transport = try openOnClock(system)
        system.resetCalls()
        // Readable after 40 µs, but the read finds nothing (EAGAIN): wait the other 160 µs.
        system.pollResults = [.success(pollIn)]
        system.pollElapsed = [.microseconds(40)]
        XCTAssertEqual(try transport.read(maxCount: 8, timeout: .microseconds(200)), [])
        XCTAssertEqual(
            system.calls,
            [
                .poll(10, events: pollIn, timeout: .microseconds(200)), .read(10, count: 8),
                .poll(10, events: pollIn, timeout: .microseconds(160)),
            ])
    }

    func testAWriteWaitingForRoomWaitsTheTimeLeftOfItsTimeout() throws {
        let system = RecordingTermiosSystem()
        let transport = try openOnClock(system)
        system.resetCalls()
        // Two bytes taken, then EAGAIN; room after 1.5 ms; then EAGAIN again and an interrupted wait.
        system.writeResults = [.success(2), .failure(.wouldBlock), .success(1), .failure(.wouldBlock), .success(1)]
        system.pollResults = [.success(pollOut), .failure(.interrupted), .success(pollOut)]
        system.pollElapsed = [.microseconds(1_500), HostDuration(nanoseconds: 2_000_001), .zero]
        try transport.write([1, 2, 3, 4])
        XCTAssertEqual(
            system.calls,
            [
                .write(10, [1, 2, 3, 4], socket: false), .write(10, [3, 4], socket: false),
                .poll(10, events: pollOut, timeout: .milliseconds(500)), .write(10, [3, 4], socket: false),
                .write(10, [4], socket: false),
                .poll(10, events: pollOut, timeout: .microseconds(498_500)),
                .poll(10, events: pollOut, timeout: HostDuration(nanoseconds: 496_499_999)),
                .write(10, [4], socket: false),
            ])
    }

    func testHangUpWithEIOIsDisconnected() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.pollResults = [.success(pollHup)]
        system.readResults = [.failure(.ioError)]
        assertThrows(.disconnected) { () throws(TransportError) in
            try transport.read(maxCount: 8, timeout: .milliseconds(10))
        }
    }

    func testEndOfFileIsDisconnected() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.pollResults = [.success(pollIn)]
        system.readResults = [.success([])]
        assertThrows(.disconnected) { () throws(TransportError) in
            try transport.read(maxCount: 8, timeout: .milliseconds(10))
        }
    }

    func testHangUpWithNothingToReadIsDisconnected() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.pollResults = [.success(pollHup)]
        system.readResults = [.failure(.wouldBlock)]
        assertThrows(.disconnected) { () throws(TransportError) in
            try transport.read(maxCount: 8, timeout: .milliseconds(10))
        }
    }

    func testBytesQueuedBeforeAHangUpAreStillDelivered() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.pollResults = [.success(pollIn | pollHup), .success(pollHup)]
        system.readResults = [.success([7, 7]), .failure(.ioError)]
        XCTAssertEqual(try transport.read(maxCount: 8, timeout: .milliseconds(10)), [7, 7])
        assertThrows(.disconnected) { () throws(TransportError) in
            try transport.read(maxCount: 8, timeout: .milliseconds(10))
        }
    }

    func testOtherReadErrorsAreIOFailures() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.pollResults = [.success(pollIn)]
        system.readResults = [.failure(.badDescriptor)]
        assertThrows(.ioFailed(reason: "read from \(path): \(SystemErrno.badDescriptor)")) {
            () throws(TransportError) in
            try transport.read(maxCount: 8, timeout: .milliseconds(10))
        }
    }

    func testWriteFinishesAPartialWriteAfterWaitingOnEAGAIN() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system, writeTimeout: .milliseconds(300))
        system.resetCalls()
        system.writeResults = [.success(2), .failure(.wouldBlock), .success(3)]
        system.pollResults = [.success(pollOut)]
        try transport.write([1, 2, 3, 4, 5])
        XCTAssertEqual(
            system.calls,
            [
                .write(10, [1, 2, 3, 4, 5], socket: false), .write(10, [3, 4, 5], socket: false),
                .poll(10, events: pollOut, timeout: .milliseconds(300)), .write(10, [3, 4, 5], socket: false),
            ])
    }

    func testWriteRetriesEINTR() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.resetCalls()
        system.writeResults = [.failure(.interrupted), .success(2)]
        try transport.write([1, 2])
        XCTAssertEqual(system.calls, [.write(10, [1, 2], socket: false), .write(10, [1, 2], socket: false)])
    }

    func testWriteEIOIsDisconnected() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.writeResults = [.failure(.ioError)]
        assertThrows(.disconnected) { () throws(TransportError) in try transport.write([1]) }
    }

    func testWriteThatNeverFindsRoomTimesOut() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.writeResults = [.success(1), .failure(.wouldBlock)]
        system.pollResults = [.success(0)]
        do {
            try transport.write([1, 2, 3])
            XCTFail("expected a timeout")
        } catch {
            guard case .ioFailed(let reason) = error else { return XCTFail("unexpected \(error)") }
            XCTAssertTrue(reason.contains("timed out"), reason)
            XCTAssertTrue(reason.contains("1 of 3 bytes"), reason)
        }
    }

    func testCallsAfterCloseFailWithClosedAndTouchNothing() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        transport.close()
        system.resetCalls()
        assertThrows(.closed) { () throws(TransportError) in try transport.read(maxCount: 8, timeout: .zero) }
        assertThrows(.closed) { () throws(TransportError) in try transport.write([1]) }
        XCTAssertEqual(system.calls, [])
    }

    // MARK: PseudoTerminal

    func testPseudoTerminalCreationSequenceKeepsTheSlaveOpen() throws {
        let system = RecordingTermiosSystem()
        let pty = try PseudoTerminal(
            keepsDeviceSideOpen: true, writeTimeout: .seconds(1), system: system, clock: ManualClock())
        XCTAssertEqual(pty.devicePath, "/dev/pts/42")
        XCTAssertEqual(
            system.calls,
            [
                .openMaster(flags: Platform.pseudoTerminalMasterFlags), .grant(10), .unlock(10), .slavePath(10),
                .open("/dev/pts/42", flags: Platform.terminalOpenFlags), .getAttributes(11),
                .setAttributes(11, raw: true), .getAttributes(10), .setAttributes(10, raw: true),
            ])
        system.resetCalls()
        pty.close()
        XCTAssertEqual(system.calls, [.close(10), .close(11)])
    }

    func testPseudoTerminalThatDoesNotKeepTheSlaveClosesItAtOnce() throws {
        let system = RecordingTermiosSystem()
        let pty = try PseudoTerminal(
            keepsDeviceSideOpen: false, writeTimeout: .seconds(1), system: system, clock: ManualClock())
        XCTAssertEqual(system.calls.last, .close(11))
        system.resetCalls()
        pty.close()
        XCTAssertEqual(system.calls, [.close(10)])
    }

    func testPseudoTerminalFailureClosesTheMaster() {
        let system = RecordingTermiosSystem()
        system.unlockResults = [.failure(.permissionDenied)]
        assertThrows(.openFailed(path: "/dev/ptmx", reason: "unlockpt: \(SystemErrno.permissionDenied)")) {
            () throws(TransportError) in
            try PseudoTerminal(
                keepsDeviceSideOpen: true, writeTimeout: .seconds(1), system: system, clock: ManualClock())
        }
        XCTAssertEqual(
            system.calls, [.openMaster(flags: Platform.pseudoTerminalMasterFlags), .grant(10), .unlock(10), .close(10)])
    }

    func testPseudoTerminalRawModeFailureClosesBothSides() {
        let system = RecordingTermiosSystem()
        system.setAttributesResults = [.success(()), .failure(.ioError)]
        assertThrows(.openFailed(path: "/dev/ptmx", reason: "raw mode on master: \(SystemErrno.ioError)")) {
            () throws(TransportError) in
            try PseudoTerminal(
                keepsDeviceSideOpen: true, writeTimeout: .seconds(1), system: system, clock: ManualClock())
        }
        XCTAssertEqual(Array(system.calls.suffix(2)), [.close(11), .close(10)])
    }
}
