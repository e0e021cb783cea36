import Foundation
import ThrumTime
import XCTest

@testable import ThrumLink

/// Real pseudo-terminals: bytes cross in both directions unchanged, timeouts return empty, and
/// hang-ups surface as `.disconnected`. Waits that expect data use generous timeouts (they return
/// as soon as data arrives); waits that expect nothing use short ones, which cannot fail on a
/// slow machine.
final class PseudoTerminalTransportTests: XCTestCase {
    /// Reads until `count` bytes have arrived (a pty may deliver them in pieces).
    private func read(_ count: Int, from transport: any ByteTransport) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let clock = MonotonicClock()
        let deadline = clock.now() + .seconds(10)
        while bytes.count < count && clock.now() < deadline {
            bytes += try transport.read(maxCount: count - bytes.count, timeout: .seconds(5))
        }
        return bytes
    }

    func testRoundTripBothWays() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        XCTAssertTrue(pty.devicePath.hasPrefix("/dev/pts/"), pty.devicePath)
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        defer { client.close() }

        try client.write([0x54, 0x48, 0x52, 0x55, 0x4D])
        XCTAssertEqual(try read(5, from: pty.master), [0x54, 0x48, 0x52, 0x55, 0x4D])
        try pty.master.write([1, 2, 3])
        XCTAssertEqual(try read(3, from: client), [1, 2, 3])
    }

    func testRawModePassesEveryByteValueUnchanged() throws {
        // Cooked mode would eat ^C, ^D, ^S/^Q, turn CR into LF and echo: raw mode must not.
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        defer { client.close() }
        let all = (0...255).map { UInt8($0) }
        try client.write(all)
        XCTAssertEqual(try read(256, from: pty.master), all)
        try pty.master.write(all)
        XCTAssertEqual(try read(256, from: client), all)
        XCTAssertEqual(try client.read(maxCount: 16, timeout: .milliseconds(20)), [], "no echo")
    }

    func testReadTimesOutEmpty() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        defer { client.close() }
        XCTAssertEqual(try pty.master.read(maxCount: 16, timeout: .milliseconds(20)), [])
        XCTAssertEqual(try client.read(maxCount: 16, timeout: .zero), [])
    }

    func testLargeWriteCompletesWhileThePeerReads() throws {
        // Far more than a pty buffers (about 4 KiB on Linux), so the writer meets EAGAIN and waits.
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        defer { client.close() }
        let payload = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let master = pty.master
        let writer = Thread {
            do { try master.write(payload) } catch { XCTFail("write failed: \(error)") }
        }
        writer.start()
        XCTAssertEqual(try read(payload.count, from: client), payload)
    }

    func testClientSeesHangUpWhenThePseudoTerminalCloses() throws {
        let pty = try PseudoTerminal()
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        defer { client.close() }
        pty.close()
        XCTAssertThrowsError(try client.read(maxCount: 16, timeout: .seconds(5))) {
            XCTAssertEqual($0 as? TransportError, .disconnected)
        }
    }

    func testMasterStaysQuietWhenAClientLeavesBecauseTheSlaveIsHeld() throws {
        let pty = try PseudoTerminal(keepsDeviceSideOpen: true)
        defer { pty.close() }
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        client.close()
        XCTAssertEqual(try pty.master.read(maxCount: 16, timeout: .milliseconds(20)), [])
    }

    func testMasterSeesHangUpWhenTheSlaveIsNotHeld() throws {
        let pty = try PseudoTerminal(keepsDeviceSideOpen: false)
        defer { pty.close() }
        // With no slave descriptor open anywhere, the master reports a hang-up at once.
        XCTAssertThrowsError(try pty.master.read(maxCount: 16, timeout: .seconds(5))) {
            XCTAssertEqual($0 as? TransportError, .disconnected)
        }
        // A client connecting and talking clears it, and leaving brings it back.
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        try client.write([42])
        XCTAssertEqual(try read(1, from: pty.master), [42])
        client.close()
        XCTAssertThrowsError(try pty.master.read(maxCount: 16, timeout: .seconds(5))) {
            XCTAssertEqual($0 as? TransportError, .disconnected)
        }
    }

    func testANewClientDoesNotReadBytesWrittenBeforeItOpened() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        try pty.master.write(Array("stale".utf8))
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        defer { client.close() }
        try pty.master.write(Array("fresh".utf8))
        XCTAssertEqual(try read(5, from: client), Array("fresh".utf8))
    }

    func testClosedTransportThrowsClosed() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let client = try PseudoTerminalTransport(path: pty.devicePath)
        client.close()
        client.close()
        XCTAssertThrowsError(try client.read(maxCount: 1, timeout: .zero)) {
            XCTAssertEqual($0 as? TransportError, .closed)
        }
        XCTAssertThrowsError(try client.write([1])) { XCTAssertEqual($0 as? TransportError, .closed) }
    }

    func testOpeningMissingOrNonTerminalPaths() throws {
        XCTAssertThrowsError(try PseudoTerminalTransport(path: "/dev/does-not-exist")) {
            XCTAssertEqual($0 as? TransportError, .notFound(path: "/dev/does-not-exist"))
        }
        XCTAssertThrowsError(try PseudoTerminalTransport(path: "/dev/null")) {
            XCTAssertEqual($0 as? TransportError, .configurationFailed(path: "/dev/null", reason: "not a terminal"))
        }
    }

    func testASecondOpenerOfARealPtyGetsPortBusy() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let first = try PseudoTerminalTransport(path: pty.devicePath)
        XCTAssertThrowsError(try PseudoTerminalTransport(path: pty.devicePath)) { error in
            guard case .busy(let path, _) = error as? TransportError else {
                return XCTFail("expected port busy, got \(error)")
            }
            XCTAssertEqual(path, pty.devicePath)
            XCTAssertTrue("\(error)".hasPrefix("port busy: \(pty.devicePath)"), "\(error)")
        }
        // The first opener is unaffected, and closing it frees the port (TIOCEXCL lifted too, so
        // a non-root opener is not locked out while the simulator keeps its side open).
        try pty.master.write([7])
        XCTAssertEqual(try read(1, from: first), [7])
        first.close()
        let second = try PseudoTerminalTransport(path: pty.devicePath)
        second.close()
    }

    func testTheHolderOfAPathIsFoundInProc() throws {
        #if os(Linux)
        // This process is excluded; a child holding the file is named by PID and command.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-holder-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("held").path
        FileManager.default.createFile(atPath: file, contents: Data())
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "exec 3<\"$0\"; echo ready; read line", file]
        let toChild = Pipe(), fromChild = Pipe()
        child.standardInput = toChild
        child.standardOutput = fromChild
        try child.run()
        defer {
            try? toChild.fileHandleForWriting.close()
            child.waitUntilExit()
        }
        _ = fromChild.fileHandleForReading.availableData  // "ready": the file is open
        let holders = Platform.processesHolding(file)
        XCTAssertEqual(holders, ["PID \(child.processIdentifier) (sh)"])
        #endif
    }

    func testTheProcessHoldingTheLockIsNamedFromProcLocks() throws {
        #if os(Linux)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/flock") else { throw XCTSkip("no flock(1)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thrum-locker-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("port").path
        FileManager.default.createFile(atPath: file, contents: Data())
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        child.arguments = ["-x", file, "/bin/sh", "-c", "echo ready; read line"]
        let toChild = Pipe(), fromChild = Pipe()
        child.standardInput = toChild
        child.standardOutput = fromChild
        try child.run()
        defer {
            try? toChild.fileHandleForWriting.close()
            child.waitUntilExit()
        }
        _ = fromChild.fileHandleForReading.availableData  // "ready": the lock is held
        XCTAssertEqual(Platform.processesLocking(file), ["PID \(child.processIdentifier) (flock)"])
        #endif
    }
}
