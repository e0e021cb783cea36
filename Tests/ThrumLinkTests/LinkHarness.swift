import ThrumLink
import ThrumTime
import ThrumWire

/// What happens to one frame on the simulated wire.
enum FrameFate { case deliver, drop, corrupt }

/// Runs a ``LinkSession`` against a ``FakeDevice`` in virtual time over a simulated serial link
/// with delay, jitter, loss and corruption. Bytes never overtake each other in one direction.
final class LinkHarness {
    let clock = ManualClock(start: HostTime(nanoseconds: 1_000_000_000))
    let session: LinkSession
    let device: FakeDevice
    var hostToDeviceDelay: HostDuration = .microseconds(500)
    var deviceToHostDelay: HostDuration = .microseconds(500)
    /// Host → device time per byte, as on a UART (frames queue behind each other's bytes).
    var hostToDeviceByteTime: HostDuration = .zero
    /// The time one host frame occupies the line to the device: frames queue behind each other
    /// (zero: any number at once).
    var hostToDeviceFrameTime: HostDuration = .zero
    /// Extra delay per frame, uniform in 0...jitter, each direction.
    var jitter: HostDuration = .zero
    /// Decides each host frame's fate; the argument counts host frames from 0.
    var hostFrameFate: (Frame, Int) -> FrameFate = { _, _ in .deliver }
    /// Decides each device frame's fate; the argument counts device frames from 0.
    var deviceFrameFate: (Frame, Int) -> FrameFate = { _, _ in .deliver }
    private(set) var hostFramesSent = 0
    private(set) var deviceFramesSent = 0
    private(set) var maxSequencedInFlight = 0

    private var rng = SplitMix64(seed: 99)
    private var inFlight: [(time: HostTime, toDevice: Bool, bytes: [UInt8])] = []
    private var lastToDevice = HostTime.zero
    private var lastToHost = HostTime.zero
    private var splitter = FrameDecoder(direction: .hostToDevice)

    init(device: FakeDevice = FakeDevice(), configuration: LinkConfiguration = .init()) {
        self.device = device
        session = LinkSession(clock: clock, configuration: configuration)
    }

    var now: HostTime { clock.now() }

    /// Runs until `time`: delivers bytes, runs the session's timers, writes its output.
    func run(until time: HostTime) {
        for _ in 0..<1_000_000 {
            transmit()
            var next = time
            if let first = inFlight.first?.time { next = min(next, first) }
            if let deadline = session.nextDeadline { next = min(next, max(deadline, now)) }
            clock.advance(to: next)
            deliverDue()
            session.poll()
            transmit()
            if now >= time && inFlight.first.map({ $0.time > now }) ?? true
                && (session.nextDeadline.map { $0 > now } ?? true)
            {
                return
            }
        }
        fatalError("harness did not settle")
    }

    func run(for duration: HostDuration) { run(until: now + duration) }

    /// Connects and runs until the session reports connected (or `limit` passes).
    func connect(limit: HostDuration = .seconds(2)) {
        session.connect()
        let end = now + limit
        while now < end {
            run(for: .milliseconds(1))
            if case .connected = session.state { return }
        }
    }

    private func jittered(_ base: HostDuration) -> HostDuration {
        guard jitter.nanoseconds > 0 else { return base }
        return base + HostDuration(nanoseconds: Int64(rng.next() % UInt64(jitter.nanoseconds + 1)))
    }

    private func transmit() {
        let bytes = session.takeOutgoing()
        guard !bytes.isEmpty else { return }
        for frame in splitter.push(bytes) {
            var wire = frame.encode()
            let fate = hostFrameFate(frame, hostFramesSent)
            hostFramesSent += 1
            if fate == .drop { continue }
            if fate == .corrupt { wire[wire.count / 2] ^= 0x10 }
            let at = max(now + jittered(hostToDeviceDelay), lastToDevice + hostToDeviceFrameTime)
                + hostToDeviceByteTime * Int64(wire.count)
            lastToDevice = at
            schedule(at, toDevice: true, wire)
        }
        maxSequencedInFlight = max(maxSequencedInFlight, session.framesInFlight)
    }

    private func schedule(_ time: HostTime, toDevice: Bool, _ bytes: [UInt8]) {
        let index = inFlight.firstIndex { $0.time > time } ?? inFlight.endIndex
        inFlight.insert((time, toDevice, bytes), at: index)
    }

    private func deliverDue() {
        while let first = inFlight.first, first.time <= now {
            inFlight.removeFirst()
            if first.toDevice {
                for reply in device.receive(first.bytes, at: now) {
                    var wire = reply
                    let frame = FrameDecoderOnce.deviceFrame(reply)
                    let fate = deviceFrameFate(frame, deviceFramesSent)
                    deviceFramesSent += 1
                    if fate == .drop { continue }
                    if fate == .corrupt { wire[wire.count / 2] ^= 0x10 }
                    let at = max(now + jittered(deviceToHostDelay), lastToHost)
                    lastToHost = at
                    schedule(at, toDevice: false, wire)
                }
            } else {
                session.receive(first.bytes)
            }
        }
    }
}

enum FrameDecoderOnce {
    static func deviceFrame(_ bytes: [UInt8]) -> Frame {
        var decoder = FrameDecoder(direction: .deviceToHost)
        return decoder.push(bytes)[0]
    }
}
