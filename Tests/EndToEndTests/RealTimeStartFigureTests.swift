import Foundation
import ThrumEngine
import ThrumLink
import ThrumPattern
import ThrumTime
import ThrumWire
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A figure, not a test (runs only with THRUM_MEASURE_START=1): how long a prepared start called
/// from the app's thread takes to put its GO on the wire, on a real-time engine over a pty to
/// `thrum sim`, with the run thread waiting apart from the lock (the transport can be woken)
/// and, for comparison, holding it through its wait (the same pty behind a plain transport);
/// and the process's CPU time while the engine idles. Printed, never asserted: it depends on the
/// machine.
final class RealTimeStartFigureTests: XCTestCase {
    /// Forwards to a pty transport and notes when a GO is written.
    class Forwarding: ByteTransport, @unchecked Sendable {
        let inner: PseudoTerminalTransport
        let clock = MonotonicClock()
        private let lock = NSLock()
        private var lastGo: HostTime?
        /// GOs the run thread wrote (the rest: the caller).
        var goByRunThread = 0
        var endpointName: String { inner.endpointName }
        init(_ inner: PseudoTerminalTransport) { self.inner = inner }
        func write(_ bytes: [UInt8]) throws(TransportError) {
            try inner.write(bytes)
            let now = clock.now()
            var decoder = FrameDecoder(direction: .hostToDevice)
            let messages = decoder.push(bytes).flatMap { (try? HostMessage.parsePayload($0.payload)) ?? [] }
            if messages.contains(where: { if case .go = $0 { return true } else { return false } }) {
                lock.lock()
                lastGo = now
                if SharedDevice.isRunThread { goByRunThread += 1 }
                lock.unlock()
            }
        }
        func read(maxCount: Int, timeout: HostDuration) throws(TransportError) -> [UInt8] {
            try inner.read(maxCount: maxCount, timeout: timeout)
        }
        func close() { inner.close() }
        func takeGo() -> HostTime? {
            lock.lock()
            defer { lock.unlock() }
            defer { lastGo = nil }
            return lastGo
        }
    }

    final class Wakeable: Forwarding, WakeableTransport, @unchecked Sendable {
        func waitUntilReadable(timeout: HostDuration, orWoken wake: WakeSignal) throws(TransportError) -> Bool {
            try inner.waitUntilReadable(timeout: timeout, orWoken: wake)
        }
    }

    private func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    private func measure(wakeable: Bool) throws -> (
        latencies: [Double], idleCPU: Double, returns: [Double], byRunThread: Int
    ) {
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let pty = try PseudoTerminalTransport(path: simulator.ptyPath)
        let transport = wakeable ? Wakeable(pty) : Forwarding(pty)
        let engine = HapticEngine(
            session: DeviceSession(pump: TransportPump(transport: transport), endpointName: "pty"))
        try engine.start()
        let pattern = try HapticPattern(
            events: [
                HapticEvent(
                    eventType: .hapticTransient,
                    parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 1)],
                    relativeTime: 0)
            ], parameters: [])
        // Idle CPU: the engine started, nothing playing, 3 s (after the startup probing).
        usleep(2_500_000)
        let cpu0 = cpuSeconds()
        usleep(3_000_000)
        let idleCPU = (cpuSeconds() - cpu0) / 3
        var latencies: [Double] = []
        var returns: [Double] = []
        for k in 0..<40 {
            try engine.prepare(pattern)
            let player = try engine.makePlayer(with: pattern)
            _ = transport.takeGo()
            // Spread the calls over the run thread's cycle.
            usleep(UInt32(3_000 + (k * 977) % 5_000))
            let called = transport.clock.now()
            try player.start(atTime: HapticTimeImmediate)
            returns.append(Double((transport.clock.now() - called).nanoseconds) / 1000)
            var go: HostTime?
            for _ in 0..<2000 where go == nil {
                go = transport.takeGo()
                if go == nil { usleep(100) }
            }
            if let go { latencies.append(Double((go - called).nanoseconds) / 1000) }
            usleep(60_000)
        }
        engine.stop()
        return (latencies, idleCPU, returns, transport.goByRunThread)
    }

    func testStartLatencyFromAnotherThreadFigure() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["THRUM_MEASURE_START"] == "1", "a figure, on request")
        for wakeable in [false, true] {
            let (latencies, cpu, returns, byRunThread) = try measure(wakeable: wakeable)
            let r = returns.sorted()
            let sorted = latencies.sorted()
            func q(_ p: Double) -> Double {
                sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))]
            }
            print(
                "FIGURE \(wakeable ? "waits apart" : "holds the lock")",
                "n=\(sorted.count) call→GO µs: min \(q(0)) p10 \(q(0.1)) median \(q(0.5)) p90 \(q(0.9)) max \(sorted.last ?? .nan)",
                String(format: "idle CPU %.1f%%", cpu * 100),
                "call→return µs: median \(r.isEmpty ? .nan : r[r.count / 2]) p90 \(r.isEmpty ? .nan : r[r.count * 9 / 10])",
                "GOs written by the run thread: \(byRunThread)")
        }
    }
}
