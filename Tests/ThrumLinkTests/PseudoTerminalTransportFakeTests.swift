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
                .poll(10, events: pollIn, timeoutMilliseconds: 100),
                .poll(10, events: pollIn, timeoutMilliseconds: 100),
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
                .poll(10, events: pollIn, timeoutMilliseconds: 5), .read(10, count: 8),
                .poll(10, events: pollIn, timeoutMilliseconds: 5), .read(10, count: 8),
            ])
    }

    func testReadTimeoutReturnsEmptyAfterOnePoll() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.resetCalls()
        XCTAssertEqual(try transport.read(maxCount: 8, timeout: .milliseconds(250)), [])
        XCTAssertEqual(system.calls, [.poll(10, events: pollIn, timeoutMilliseconds: 250)])
    }

    func testTimeoutsRoundUpToWholeMillisecondsAndZeroDoesNotWait() throws {
        let system = RecordingTermiosSystem()
        let transport = try open(system)
        system.resetCalls()
        _ = try transport.read(maxCount: 8, timeout: .microseconds(1))
        _ = try transport.read(maxCount: 8, timeout: .zero)
        XCTAssertEqual(
            system.calls,
            [.poll(10, events: pollIn, timeoutMilliseconds: 1), .poll(10, events: pollIn, timeoutMilliseconds: 0)])
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
                .poll(10, events: pollOut, timeoutMilliseconds: 300), .write(10, [3, 4, 5], socket: false),
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
