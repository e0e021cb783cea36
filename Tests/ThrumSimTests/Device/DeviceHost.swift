import ThrumSim
import ThrumWire

/// A minimal host for driving a ``VirtualDevice`` directly in tests: numbers sequenced frames,
/// sends any-lane ones, and decodes everything the device says back.
final class DeviceHost {
    let device: VirtualDevice
    private var seq: UInt8 = 0
    private var started = false
    private var decoder = FrameDecoder(direction: .deviceToHost)
    /// Every message the device sent, with the true time it was collected, in order.
    private(set) var received: [(time: UInt64, message: DeviceMessage)] = []
    /// ONSETs the device sent again (dropped from ``received``).
    private(set) var repeatedOnsets = 0

    init(_ device: VirtualDevice) { self.device = device }

    /// Sends messages in one sequenced frame (the first one carries RESYNC).
    func send(_ messages: [HostMessage]) {
        let frame = Frame(
            direction: .hostToDevice, flags: started ? [] : .resync, seq: seq,
            payload: HostMessage.encodePayload(messages))
        started = true
        seq &+= 1
        device.receive(frame.encode())
        collect()
    }

    /// Sends messages in one UNSEQ frame.
    func sendAnyLane(_ messages: [HostMessage]) {
        let frame = Frame(direction: .hostToDevice, flags: .unseq, seq: 0, payload: HostMessage.encodePayload(messages))
        device.receive(frame.encode())
        collect()
    }

    /// Runs the device to true time `t`, pinging every 100 ms so the watchdog stays fed, and
    /// collecting output as the firmware produces it.
    func run(to t: UInt64) {
        while device.now < t {
            let next = max(device.now + 1, min(t, device.nextFirmwarePass + 1, (device.now / 100_000 + 1) * 100_000))
            device.advance(to: next)
            collect()
            if device.now % 100_000 == 0 { sendAnyLane([.ping]) }
        }
    }

    /// Device time now.
    var clock: UInt32 { device.deviceClock(atTrueTime: device.now) }

    private func collect() {
        let bytes = device.takeOutput()
        guard !bytes.isEmpty else { return }
        for frame in decoder.push(bytes) {
            for m in (try? DeviceMessage.parsePayload(frame.payload)) ?? [] {
                // the firmware repeats each ONSET in a few later frames (PROTOCOL.md §3.2); a host
                // keeps the first
                if case .onset(let o) = m, onsets.contains(o) {
                    repeatedOnsets += 1
                    continue
                }
                received.append((device.now, m))
            }
        }
    }

    var onsets: [OnsetReport] {
        received.compactMap { if case .onset(let o) = $0.message { o } else { nil } }
    }
    var calibrations: [CalibrationReport] {
        received.compactMap { if case .calibrationResult(let c) = $0.message { c } else { nil } }
    }
    var states: [StateReport] {
        received.compactMap { if case .state(let s) = $0.message { s } else { nil } }
    }
    var faults: [FaultReport] {
        received.compactMap { if case .fault(let f) = $0.message { f } else { nil } }
    }
}
