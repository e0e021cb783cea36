import ThrumLink
import ThrumSim
import ThrumTime
import ThrumWire
import XCTest

/// `thrum monitor`'s bridge between a client and the virtual device (the real firmware core), in
/// virtual time, with the interleaving that a loaded machine makes now and then: the device's
/// answer to a chunk is forwarded (by the bridge's other thread) while the client's thread is
/// still inside its write of that chunk.
final class MonitorBridgeTests: XCTestCase {
    /// The device's end of the bridge: a write hands the bytes to the virtual device, runs it until
    /// it has answered, and forwards the answer through the bridge before the write returns.
    final class AnsweringDevice: ByteTransport {
        let device = VirtualDevice()
        let bridge: MonitorBridge
        let client: Sink
        /// Every byte the device sent.
        private(set) var sent: [UInt8] = []

        init(bridge: MonitorBridge, client: Sink) {
            self.bridge = bridge
            self.client = client
        }

        var endpointName: String { "virtual device" }
        func write(_ bytes: [UInt8]) throws(TransportError) {
            device.receive(bytes)
            var answer: [UInt8] = []
            let end = device.now + 20_000
            while answer.isEmpty && device.now < end {
                device.advance(to: device.now + 100)
                answer = device.takeOutput()
            }
            sent += answer
            try bridge.forwardFromDevice(answer, to: client)
        }
        func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] { [] }
        func close() {}
    }

    /// The client's end: keeps what reaches it.
    final class Sink: ByteTransport {
        private(set) var received: [UInt8] = []
        var endpointName: String { "client" }
        func write(_ bytes: [UInt8]) throws(TransportError) { received += bytes }
        func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] { [] }
        func close() {}
    }

    /// A host claims the device, plays a ping in its session and releases it; a second host then
    /// claims it from a session it had taken over. Each CLAIM's answer comes in the new key
    /// before the client's write returns (the first: "CRC errors 0 host, 1 device" after a
    /// normal play in MonitorTests, when the monitor read the client's chunk after writing it);
    /// a takeover's SESSION taken comes in the old key, which the device's decoder keeps and so
    /// must the monitor's.
    func testAnswersInANewSessionsKeyPassTheMonitorsCRCCheck() throws {
        let bridge = MonitorBridge(clock: ManualClock())
        let client = Sink()
        let device = AnsweringDevice(bridge: bridge, client: client)
        let first: UInt32 = 0x1234_5678
        let second: UInt32 = 0x0BAD_F00D
        func send(_ messages: [HostMessage], flags: FrameFlags = .unseq, seq: UInt8 = 0, session: UInt32? = nil) throws
        {
            let frame = Frame(
                direction: .hostToDevice, flags: flags, seq: seq, payload: HostMessage.encodePayload(messages))
            let bytes = session.map { frame.encode(key: CRC16.sessionKey($0)) } ?? frame.encode()
            try bridge.forwardFromClient(bytes, to: device)
        }
        try send([.identify])
        try send([.claim(session: first)])
        try send([.ping], flags: .resync, seq: 7, session: first)
        try send([.claim(session: second)])  // a second host takes the device over
        try send([.ping], session: second)
        try send([.release], session: second)
        try send([.identify])

        // Truth: the device's bytes, decoded knowing both keys from the start.
        var truth = FrameDecoder(direction: .deviceToHost)
        truth.keys = [CRC16.sessionKey(first), CRC16.sessionKey(second)]
        let frames = truth.push(device.sent)
        let keys = truth.lastKeys
        XCTAssertEqual(truth.badFrames, 0)
        XCTAssertEqual(truth.bufferedCount, 0)
        XCTAssertEqual(keys.filter { $0 == CRC16.sessionKey(first) }.count, 3, "claimed, the ping's ACK, taken")
        XCTAssertGreaterThanOrEqual(keys.filter { $0 == CRC16.sessionKey(second) }.count, 3, "claimed, ping, release")
        XCTAssertEqual(client.received, device.sent, "the bridge forwards every byte unchanged")
        XCTAssertEqual(device.device.firmwareStatistics.bad_frames, 0, "the device took every client frame")

        let monitor = bridge.snapshot
        XCTAssertEqual(monitor.deviceDecoder.badFrames, 0, "device frames that failed the monitor's CRC check")
        XCTAssertEqual(monitor.hostDecoder.badFrames, 0, "host frames that failed the monitor's CRC check")
        XCTAssertEqual(monitor.deviceFrames, frames.count)
        XCTAssertEqual(monitor.hostFrames, 7)
        XCTAssertNotNil(monitor.identity)
    }
}
