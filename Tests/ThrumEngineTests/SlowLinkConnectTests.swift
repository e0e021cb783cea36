@testable import ThrumEngine
import ThrumLink
import ThrumSim
import ThrumTime
import XCTest

/// Two hosts one after another on a 19 200-baud line, in virtual time (docs/timing.md, "Slow
/// lines"). Every ping costs the device a 15-byte ACK, 7.8 ms on such a line: pings every 2–5 ms
/// left a queue of answers that outlived the host, and the next host read it before its own
/// answers. Truth is the simulation's: the bytes the device wrote that the first host never read
/// (still on the line when it left), and the true time the second host took to connect.
final class SlowLinkConnectTests: XCTestCase {
    /// A 19 200-baud line that logs every chunk it carries: when it was written and when it
    /// arrived, each way.
    struct LoggedLine: LinkModel {
        var line: UartLink
        var chunks: [(direction: LinkDirection, written: UInt64, arrived: UInt64)] = []

        mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
            let arrival = line.deliver(&bytes, writtenAt: time, direction: direction)
            if let arrival { chunks.append((direction, time, arrival)) }
            return arrival
        }

        var lineByteTime: Double? { line.lineByteTime }
    }

    /// A 19 200-baud line behind a pseudo-terminal (`thrum sim --link baud=19200`): the host knows
    /// no rate, so only the count of unanswered pings paces it. With `hostSeesUart`, a serial port
    /// the host opened at that rate.
    private func slowPump(hostSeesUart: Bool) -> SimulatedPump {
        SimulatedPump(
            device: VirtualDevice(), clock: ManualClock(),
            link: LoggedLine(line: UartLink(baud: 19_200, hostSeesUart: hostSeesUart)))
    }

    /// A host as `thrum info` runs one: connect, prime the clock, keep the link (probing) for
    /// `stay`, release, leave.
    private func visit(_ pump: SimulatedPump, paced: Bool, stay: HostDuration = .milliseconds(400)) throws {
        var configuration = DeviceSessionConfiguration()
        if !paced {
            // what every host did before pacing: pings on their timers whatever came back
            configuration.link.maxPingsInFlight = .max
            configuration.link.clock.lineByteTime = 0
        }
        let host = DeviceSession(pump: pump, endpointName: "the slow line", configuration: configuration)
        try host.open()
        try host.synchronizeClock()
        try host.pumpFor(stay)
        host.release()
    }

    /// What the line did for the host connecting from `start` on (true ms from `start`).
    struct NextConnect {
        /// When the last byte the device wrote before this host's first frame reached it (the
        /// earlier host's answers, whenever that host sent the frames) arrived.
        var leftoversEnd: Double
        /// When this host was connected (claimed).
        var connected: Double
    }

    /// Connects a second host; returns what the line carried and when.
    private func connectNext(_ pump: SimulatedPump, configuration: DeviceSessionConfiguration = .init()) throws -> NextConnect {
        let next = DeviceSession(pump: pump, endpointName: "the slow line", configuration: configuration)
        let start = pump.trueTime
        try next.open()
        let connected = Double(pump.trueTime - start) / 1_000
        let chunks = (pump.link as! LoggedLine).chunks
        let firstFrame = try XCTUnwrap(chunks.first { $0.direction == .hostToDevice && $0.written >= start }).arrived
        let leftovers = chunks.filter { $0.direction == .deviceToHost && $0.written < firstFrame }.map(\.arrived)
        let end = max(start, leftovers.max() ?? start)
        return NextConnect(leftoversEnd: Double(end - start) / 1_000, connected: connected)
    }

    func testAPacedHostLeavesAtMostAFewAnswersAndTheNextConnectsAtOnce() throws {
        for seesUart in [false, true] {
            let pump = slowPump(hostSeesUart: seesUart)
            try visit(pump, paced: true)
            let next = try connectNext(pump)
            // six unanswered pings at most, 47 ms (the RELEASE's answer after them); at a known
            // rate, no ping went out before the last one's answer had time to cross
            XCTAssertLessThan(next.leftoversEnd, seesUart ? 25 : 60, "hostSeesUart \(seesUart)")
            // IDENTIFY, its reply and CAPABILITIES, CLAIM and SESSION: ≈ 55 ms at 19 200 baud
            XCTAssertLessThan(next.connected, next.leftoversEnd + 100, "hostSeesUart \(seesUart)")
        }
    }

    func testTheNextHostWaitsOutABacklogLongerThanFiveIdentifyTries() throws {
        // the defect as it was: a host pinging on its timers whatever came back leaves answers
        // queued (and pings still on their way out) for longer than IDENTIFY's five tries, 100 ms
        // apart: 1.37 s here
        let pump = slowPump(hostSeesUart: false)
        try visit(pump, paced: false)
        let next = try connectNext(pump)
        XCTAssertGreaterThan(next.leftoversEnd, 600)
        // connected as soon as its own answers, queued behind the old ones, came: the replies to
        // its five IDENTIFYs, then the CLAIM's
        XCTAssertGreaterThan(next.connected, next.leftoversEnd)
        XCTAssertLessThan(next.connected, next.leftoversEnd + 150)
    }

    func testADeviceBusyPastThePatienceFailsWithItsReason() throws {
        let pump = slowPump(hostSeesUart: false)
        try visit(pump, paced: false)
        var configuration = DeviceSessionConfiguration()
        configuration.link.identifyPatience = .milliseconds(300)
        XCTAssertThrowsError(try connectNext(pump, configuration: configuration)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("kept sending other frames"), message)
            XCTAssertTrue(message.contains("5 identify requests"), message)
        }
    }

    /// On the catalogue's fast links the pacing costs nothing: connecting and priming take the
    /// same true time, and the first second's probing takes (nearly) as many round trips, as with
    /// pings on their timers whatever came back. (A held ping's deadline that moved with the
    /// clock was never reached by a host that wakes late: no ping went out at all.)
    func testOnFastLinksThePacingCostsNeitherConnectTimeNorSamples() throws {
        for name in ["usb-fs", "ftdi-115200-1ms", "ftdi-115200-16ms", "ch340"] {
            let profile = try XCTUnwrap(LinkCatalogue.profile(named: name))
            var figures: [(connect: UInt64, samples: Int)] = []
            for paced in [false, true] {
                let pump = SimulatedPump(device: VirtualDevice(), clock: ManualClock(), link: profile.make(7))
                var configuration = DeviceSessionConfiguration()
                if !paced { configuration.link.maxPingsInFlight = .max }
                let host = DeviceSession(pump: pump, endpointName: name, configuration: configuration)
                try host.open()
                try host.synchronizeClock()
                let connect = pump.trueTime
                try host.pumpFor(.seconds(1))
                figures.append((connect, host.link.statistics.roundTripSamples))
            }
            XCTAssertLessThanOrEqual(figures[1].connect, figures[0].connect + 2_000, name)
            XCTAssertGreaterThan(Double(figures[1].samples), 0.9 * Double(figures[0].samples), name)
        }
    }
}
