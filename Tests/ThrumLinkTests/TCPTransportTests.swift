import Foundation
import ThrumTime
import XCTest

@testable import ThrumLink

/// TCP over loopback against a listener made here; the accepted socket is wrapped in the same
/// descriptor channel the transports use.
final class TCPTransportTests: XCTestCase {
    #if canImport(Glibc)
    /// A listening socket on 127.0.0.1 with a kernel-chosen port.
    private final class Listener {
        let fd: CInt
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Platform.streamSocket, 0)
            guard fd >= 0 else { throw XCTSkip("no sockets here") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0, listen(fd, 1) == 0 else { throw XCTSkip("cannot listen on loopback") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.fd = fd
            self.port = Int(UInt16(bigEndian: address.sin_port))
        }

        func accept() -> DescriptorChannel {
            let client = Glibc.accept(fd, nil, nil)
            return DescriptorChannel(
                adopting: client, name: "server", system: RealTermiosSystem(), clock: MonotonicClock(),
                isSocket: true,
                writeTimeout: .seconds(5))
        }

        func close() { _ = Glibc.close(fd) }
    }
    #endif

    private func read(_ count: Int, _ body: (Int) throws -> [UInt8]) rethrows -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let chunk = try body(count - bytes.count)
            if chunk.isEmpty { break }
            bytes += chunk
        }
        return bytes
    }

    func testRoundTripAndPeerClose() throws {
        #if canImport(Glibc)
        let listener = try Listener()
        defer { listener.close() }
        let client = try TCPTransport(host: "127.0.0.1", port: listener.port)
        defer { client.close() }
        XCTAssertEqual(client.endpointName, "127.0.0.1:\(listener.port)")
        let server = listener.accept()

        try client.write([1, 2, 3])
        XCTAssertEqual(try read(3) { try server.read(maxCount: $0, timeout: .seconds(5)) }, [1, 2, 3])
        try server.write([4, 5])
        XCTAssertEqual(try read(2) { try client.read(maxCount: $0, timeout: .seconds(5)) }, [4, 5])
        XCTAssertEqual(try client.read(maxCount: 8, timeout: .milliseconds(10)), [])

        server.close()
        XCTAssertThrowsError(try client.read(maxCount: 8, timeout: .seconds(5))) {
            XCTAssertEqual($0 as? TransportError, .disconnected)
        }
        #else
        throw XCTSkip("Linux only")
        #endif
    }

    func testRefusedConnectionIsOpenFailed() throws {
        #if canImport(Glibc)
        let listener = try Listener()
        let port = listener.port
        listener.close()
        XCTAssertThrowsError(try TCPTransport(host: "127.0.0.1", port: port, connectTimeout: .seconds(5))) {
            error in
            guard case .openFailed(let path, let reason) = error as? TransportError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(path, "127.0.0.1:\(port)")
            XCTAssertTrue(reason.contains("refused"), reason)
        }
        #else
        throw XCTSkip("Linux only")
        #endif
    }

    func testWritesGoThroughSendWithoutSIGPIPE() throws {
        let system = RecordingTermiosSystem()
        let channel = DescriptorChannel(
            adopting: 5, name: "fake", system: system, clock: ManualClock(), isSocket: true, writeTimeout: .seconds(1))
        system.writeResults = [.failure(.brokenPipe)]
        XCTAssertThrowsError(try channel.write([1])) { XCTAssertEqual($0 as? TransportError, .disconnected) }
        XCTAssertEqual(system.calls, [.write(5, [1], socket: true)])
    }

    func testFactoryOpensTCPAddresses() throws {
        #if canImport(Glibc)
        let listener = try Listener()
        defer { listener.close() }
        let transport = try openTransport(path: "tcp://127.0.0.1:\(listener.port)", baud: 115_200)
        defer { transport.close() }
        XCTAssertTrue(transport is TCPTransport)
        #else
        throw XCTSkip("Linux only")
        #endif
    }

    func testAnUnresolvableHostSaysSoNotNoSuchPort() {
        // `.invalid` is reserved (RFC 6761): it never resolves, with or without a network.
        XCTAssertThrowsError(try TCPTransport(host: "no-such-rig.invalid", port: 5555, connectTimeout: .seconds(1))) { error in
            guard case .hostNotFound(let host, let reason) = error as? TransportError else {
                return XCTFail("expected hostNotFound, got \(error)")
            }
            XCTAssertEqual(host, "no-such-rig.invalid")
            XCTAssertFalse(reason.isEmpty)
            XCTAssertTrue("\(error)".hasPrefix("cannot resolve host 'no-such-rig.invalid': "), "\(error)")
            XCTAssertFalse("\(error)".contains("no such port"))
        }
    }
}
