import ThrumSim
import ThrumTime
import XCTest

/// The delivery law of each link model, in virtual time.
final class LinkModelTests: XCTestCase {
    private func deliver<L: LinkModel>(_ link: inout L, _ count: Int, at time: UInt64, _ direction: LinkDirection = .hostToDevice) -> UInt64? {
        var bytes = [UInt8](repeating: 0x55, count: count)
        return link.deliver(&bytes, writtenAt: time, direction: direction)
    }

    func testUsbOutDataArrivesAtTheNextFrameBoundary() {
        var link = UsbFullSpeedLink()
        XCTAssertEqual(deliver(&link, 10, at: 0), 1_000)
        XCTAssertEqual(deliver(&link, 10, at: 1_000), 2_000, "written on a boundary: misses that frame")
        XCTAssertEqual(deliver(&link, 10, at: 1_001), 2_000)
        XCTAssertEqual(deliver(&link, 10, at: 2_999), 3_000)
    }

    func testUsbFramesRunOnTheHostControllersClockAndTheDeviceSeesEachStart() {
        // 25 ppm fast: frame 40 000 starts 1 µs sooner than 40 000 host milliseconds.
        var link = UsbFullSpeedLink(frameClockPPM: 25)
        XCTAssertEqual(link.start(ofFrame: 40_000), 39_999_000)
        XCTAssertEqual(link.frame(containing: 39_998_999), 39_999)
        XCTAssertEqual(link.frame(containing: 39_999_000), 40_000)
        let sof = try! XCTUnwrap(link.startOfFrame(atOrBefore: 39_999_500))
        XCTAssertEqual(sof.number, UInt16(40_000 % 2_048))
        XCTAssertEqual(sof.time, 39_999_000)
        // OUT data lands at the start of the next frame of that grid, IN data at its poll.
        XCTAssertEqual(deliver(&link, 10, at: 39_998_999), 39_999_000)
        XCTAssertEqual(deliver(&link, 10, at: 39_999_000, .deviceToHost), link.start(ofFrame: 40_001))
        XCTAssertEqual(link.start(ofFrame: 40_001), 40_000_000)
        // Serial links show the device no frames; a wrapped link shows its base's.
        XCTAssertNil(UartLink(baud: 115_200).startOfFrame(atOrBefore: 5_000))
        let jittered = JitteredLink(base: UsbFullSpeedLink(), jitter: .uniform(500...8_000), seed: 1)
        XCTAssertEqual(jittered.startOfFrame(atOrBefore: 2_048_500)?.number, 0)
        XCTAssertEqual(jittered.startOfFrame(atOrBefore: 2_048_500)?.time, 2_048_000)
    }

    func testUsbInDataWaitsForThePollAndEachFrameCarriesLimitedPackets() {
        var link = UsbFullSpeedLink(packetsPerFrame: 2, inPollOffset: 100)
        XCTAssertEqual(deliver(&link, 8, at: 50, .deviceToHost), 100)
        XCTAssertEqual(deliver(&link, 8, at: 100, .deviceToHost), 1_100)
        // Two packets fit in the frame at 2 100; 200 bytes (4 packets) spill into the next frame.
        XCTAssertEqual(deliver(&link, 200, at: 1_500, .deviceToHost), 3_100)
        XCTAssertEqual(deliver(&link, 1, at: 1_500, .deviceToHost), 4_100, "bytes keep their order")
        // The other direction has its own packets.
        XCTAssertEqual(deliver(&link, 64, at: 1_500), 2_000)
    }

    func testUartDeliversWhenTheLastByteIsShiftedIn() {
        var link = UartLink(baud: 115_200)
        XCTAssertEqual(link.byteTime, 86.805, accuracy: 0.001)
        XCTAssertEqual(deliver(&link, 10, at: 1_000), 1_869)  // 868.06 µs, rounded up
        XCTAssertEqual(deliver(&link, 1, at: 1_000), 1_955, "a chunk waits for the busy line")
        XCTAssertEqual(deliver(&link, 1, at: 1_000, .deviceToHost), 1_087, "directions are independent")
    }

    func testFtdiHoldsDeviceBytesUntilTheLatencyTimerOrAFullBuffer() {
        var link = FtdiLink(uart: UartLink(baud: 1_000_000), latencyTimer: 16_000)
        // 10 bytes (10 µs on the line) wait for the 16 ms timer, then the next USB frame.
        XCTAssertEqual(deliver(&link, 10, at: 0, .deviceToHost), 17_000)
        // A full buffer (62 bytes) goes at once; the 8 left over wait for the timer again.
        var fresh = FtdiLink(uart: UartLink(baud: 1_000_000), latencyTimer: 16_000)
        XCTAssertEqual(deliver(&fresh, 70, at: 0, .deviceToHost), 1_000)
        XCTAssertEqual(deliver(&fresh, 10, at: 2_000, .deviceToHost), 17_000)
        // Host → device: next frame, then the UART.
        XCTAssertEqual(deliver(&link, 10, at: 500), 1_100)
    }

    func testFtdiLatencyTimerTicksFromTheLastTransferSoAShortReplyWaitsOnlyForTheNextTick() {
        // AN232B-04: the timer measures the time since data was last sent and restarts at every
        // transfer, status-only ones included, so an idle bridge ticks every 16 ms.
        var link = FtdiLink(uart: UartLink(baud: 1_000_000), latencyTimer: 16_000)
        XCTAssertEqual(deliver(&link, 10, at: 12_000, .deviceToHost), 17_000, "waits 4 ms for the tick at 16 ms, not 16 ms")
        XCTAssertEqual(deliver(&link, 10, at: 40_000, .deviceToHost), 49_000, "ticks at 32 and 48 ms (status bytes only at 32)")
        var shifted = FtdiLink(uart: UartLink(baud: 1_000_000), latencyTimer: 16_000, timerPhase: 5_000)
        XCTAssertEqual(deliver(&shifted, 10, at: 0, .deviceToHost), 6_000, "the bridge's timer is not in step with the host")
    }

    func testCh340HandsBytesOverAfterTheLineIdlesAndAtFullPackets() {
        var link = Ch340Link(uart: UartLink(baud: 115_200))
        XCTAssertEqual(link.idleTimeout, 174, "two character times at 115 200 baud")
        // 10 bytes: 868 µs on the line, + 174 µs idle = 1 042 µs, then the next IN poll (2 ms).
        XCTAssertEqual(deliver(&link, 10, at: 0, .deviceToHost), 2_000)
        // A full 32-byte packet goes without the idle wait: 2 778 µs on the line → poll at 3 ms...
        var full = Ch340Link(uart: UartLink(baud: 115_200))
        XCTAssertEqual(deliver(&full, 32, at: 0, .deviceToHost), 3_000)
        // Host → device: the next frame, then the UART.
        XCTAssertEqual(deliver(&full, 10, at: 500), 1_869)
    }

    func testUsbOutboundDataLandsInsideItsFrameInOrder() {
        var link = UsbFullSpeedLink(outboundLanding: .uniform(100...400), seed: 9)
        var arrivals: [UInt64] = []
        for k in 0..<200 { arrivals.append(deliver(&link, 8, at: UInt64(k) * 137)!) }
        for (k, a) in arrivals.enumerated() {
            let written = UInt64(k) * 137
            let frame = (written / 1_000 + 1) * 1_000
            XCTAssertGreaterThanOrEqual(a, frame + 100)
            XCTAssertLessThanOrEqual(a, frame + 400)
        }
        XCTAssertEqual(arrivals, arrivals.sorted(), "data never overtakes earlier data")
        XCTAssertGreaterThan(Set(arrivals.map { $0 % 1_000 }).count, 50, "landing points spread over the window")
    }

    func testUniformJitterStaysInBoundsAndCoversTheRange() {
        var rng = SplitMix64(seed: 7)
        let distribution = JitterDistribution.uniform(500...8_000)
        let draws = (0..<20_000).map { _ in distribution.sample(&rng) }
        XCTAssertGreaterThanOrEqual(draws.min()!, 500)
        XCTAssertLessThanOrEqual(draws.max()!, 8_000)
        XCTAssertLessThan(draws.min()!, 520)
        XCTAssertGreaterThan(draws.max()!, 7_980)
        let mean = Double(draws.reduce(0, +)) / Double(draws.count)
        XCTAssertEqual(mean, 4_250, accuracy: 60)
    }

    func testExponentialAndMixtureJitter() {
        var rng = SplitMix64(seed: 8)
        let exponential = JitterDistribution.exponential(minimum: 200, mean: 1_000, cap: 20_000)
        let draws = (0..<20_000).map { _ in exponential.sample(&rng) }
        XCTAssertGreaterThanOrEqual(draws.min()!, 200)
        XCTAssertLessThanOrEqual(draws.max()!, 20_000)
        XCTAssertEqual(Double(draws.reduce(0, +)) / Double(draws.count), 1_200, accuracy: 40)
        let mixture = JitterDistribution.mixture(body: .uniform(100...200), tail: .uniform(10_000...20_000), tailProbability: 0.05)
        let mixed = (0..<20_000).map { _ in mixture.sample(&rng) }
        let tail = mixed.filter { $0 >= 10_000 }.count
        XCTAssertEqual(Double(tail) / 20_000, 0.05, accuracy: 0.008)
        XCTAssertTrue(mixed.allSatisfy { (100...200).contains($0) || (10_000...20_000).contains($0) })
        XCTAssertEqual(mixture.lowerBound, 100)
        XCTAssertEqual(mixture.upperBound, 20_000)
    }

    func testJitterKeepsOrderAndActsWhereItIsPlaced() {
        var host = JitteredLink(base: FixedLatencyLink(latency: 100), jitter: .uniform(0...5_000), seed: 3)
        XCTAssertEqual(deliver(&host, 4, at: 0), 100, "host scheduling jitter leaves writes alone")
        var last: UInt64 = 0
        for t in stride(from: UInt64(0), to: 100_000, by: 300) {
            let arrival = deliver(&host, 4, at: t, .deviceToHost)!
            XCTAssertGreaterThanOrEqual(arrival, max(last, t + 100))
            XCTAssertLessThanOrEqual(arrival, max(last, t + 5_100))
            last = arrival
        }
        let wake = (0..<1_000).map { _ in host.hostWakeLatency(at: 0) }
        XCTAssertTrue(wake.allSatisfy { $0 <= 5_000 })
        XCTAssertGreaterThan(Set(wake).count, 500)

        var wire = JitteredLink(base: FixedLatencyLink(latency: 100), jitter: .uniform(1_000...1_000), placement: .wire)
        XCTAssertEqual(deliver(&wire, 4, at: 0), 1_100)
        XCTAssertEqual(wire.hostWakeLatency(at: 0), 0)
    }

    func testLossAndCorruptionRatesOverManyChunks() {
        var link = LossyLink(base: FixedLatencyLink(latency: 0), loss: 0.05, corruption: 0.05, seed: 11)
        var lost = 0, corrupted = 0
        let n = 40_000
        for i in 0..<n {
            var bytes = [UInt8](repeating: 0xA5, count: 16)
            if link.deliver(&bytes, writtenAt: UInt64(i), direction: i % 2 == 0 ? .hostToDevice : .deviceToHost) == nil {
                lost += 1
            } else if bytes != [UInt8](repeating: 0xA5, count: 16) {
                corrupted += 1
                // Exactly one bit flipped.
                XCTAssertEqual(bytes.map { ($0 ^ 0xA5).nonzeroBitCount }.reduce(0, +), 1)
            }
        }
        XCTAssertEqual(Double(lost) / Double(n), 0.05, accuracy: 0.005)
        XCTAssertEqual(Double(corrupted) / Double(n - lost), 0.05, accuracy: 0.005)
        XCTAssertEqual(link.lostChunks.values.reduce(0, +), lost)
        XCTAssertEqual(link.corruptedChunks.values.reduce(0, +), corrupted)
    }

    func testModelsAreDeterministicForASeed() {
        func run(seed: UInt64) -> [UInt64?] {
            var link = LossyLink(base: JitteredLink(base: UsbFullSpeedLink(), jitter: .uniform(500...8_000), placement: .wire, seed: seed),
                                 loss: 0.1, corruption: 0.1, seed: seed)
            return (0..<500).map { i in deliver(&link, 20, at: UInt64(i) * 700, i % 3 == 0 ? .deviceToHost : .hostToDevice) }
        }
        XCTAssertEqual(run(seed: 5), run(seed: 5))
        XCTAssertNotEqual(run(seed: 5), run(seed: 6))
        var a = SplitMix64(seed: 42), b = SplitMix64(seed: 42)
        XCTAssertEqual((0..<10).map { _ in a.next() }, (0..<10).map { _ in b.next() })
    }
}
