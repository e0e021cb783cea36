import ThrumTime
import ThrumWire

/// A minimal device written from PROTOCOL.md §2 for link tests: it decodes host frames, follows
/// the §2.1 table, ACKs every valid frame with its own drifting clock, answers IDENTIFY and keeps a
/// segment queue for credits. It is not the C firmware.
final class FakeDevice {
    /// Device µs at host time zero (64-bit; the wire carries the low 32 bits).
    var clockOffset: UInt64
    /// Device clock rate error relative to the host.
    var driftPPM: Double
    var queueSlots: Int
    /// When true the device swallows everything and answers nothing.
    var silent = false
    /// Each ONSET rides again in this many later frames without new reports, as the firmware
    /// repeats them (PROTOCOL.md §3.2); 0: never.
    var onsetRepeats = 0
    private var echo: [DeviceMessage] = []
    private var echoLeft = 0

    private(set) var nextSeq: UInt8 = 0
    private(set) var executed: [HostMessage] = []
    private(set) var receivedFrames: [Frame] = []
    /// When each of ``receivedFrames`` arrived (host time).
    private(set) var receivedTimes: [HostTime] = []
    private(set) var flowControlRejections = 0
    private(set) var cuts = 0
    private(set) var rejectedFrames = 0
    private(set) var duplicatesOrGaps = 0
    private(set) var decoder = FrameDecoder(direction: .hostToDevice)
    /// Queued entries (extended device µs), in order of start.
    private var queued: [(start: UInt64, end: UInt64)] = []
    private var frameCounter: UInt8 = 0
    private var lastRx: (ctrl: UInt8, seq: UInt8, time: UInt32) = (0, 0, 0)

    let identity = DeviceIdentity(
        protocolVersion: 0, fwMajor: 0, fwMinor: 1, fwPatch: 0, deviceId: 42, clockHz: 1_000_000, queueSlots: 8,
        rxBuffer: 256, maxPayload: 58, driverId: 7)

    init(clockOffset: UInt64 = 5_000_000, driftPPM: Double = 0, queueSlots: Int = 8) {
        self.clockOffset = clockOffset
        self.driftPPM = driftPPM
        self.queueSlots = queueSlots
    }

    /// The true device time (64-bit µs) at host time `t`.
    func deviceTime(at t: HostTime) -> UInt64 {
        UInt64(Double(clockOffset) + (1 + driftPPM * 1e-6) * (Double(t.nanoseconds) / 1e3))
    }

    var freeSlots: Int { queueSlots - queued.count }

    /// Handles bytes that arrived at host time `t`; returns the device's reply frames, one per
    /// valid host frame.
    func receive(_ bytes: [UInt8], at t: HostTime) -> [[UInt8]] {
        let now = deviceTime(at: t)
        queued.removeAll { $0.end <= now }
        var replies: [[UInt8]] = []
        for frame in decoder.push(bytes) {
            receivedFrames.append(frame)
            receivedTimes.append(t)
            guard !silent else { continue }
            lastRx = (frame.ctrl, frame.seq, UInt32(truncatingIfNeeded: now))
            var extra: [DeviceMessage] = []
            if let messages = try? HostMessage.parsePayload(frame.payload) {
                extra = handle(frame, messages, now: now)
            } else {
                rejectedFrames += 1
            }
            var messages: [DeviceMessage] = [
                .ack(Acknowledgement(
                    nextSeq: nextSeq, rxCtrl: lastRx.ctrl, rxSeq: lastRx.seq, rxTime: lastRx.time,
                    credits: UInt32(freeSlots)))
            ]
            let onsets = extra.filter { if case .onset = $0 { true } else { false } }
            if !onsets.isEmpty {
                if echoLeft == 0 { echo = [] }
                echo += onsets
                echoLeft = onsetRepeats
                messages += extra
            } else if extra.isEmpty, echoLeft > 0 {
                messages += echo
                echoLeft -= 1
            } else {
                messages += extra
            }
            replies.append(Frame(direction: .deviceToHost, seq: frameCounter, payload: DeviceMessage.encodePayload(messages)).encode())
            frameCounter &+= 1
        }
        return replies
    }

    private func handle(_ frame: Frame, _ messages: [HostMessage], now: UInt64) -> [DeviceMessage] {
        if frame.flags.contains(.unseq) {
            guard messages.allSatisfy(\.isAnyLane) else {
                rejectedFrames += 1
                return []
            }
            return execute(messages, now: now)
        }
        if frame.flags.contains(.resync) { nextSeq = frame.seq }
        guard frame.seq == nextSeq else {
            duplicatesOrGaps += 1
            return []
        }
        // §2.4: a CUT earlier in the payload frees the slots it removes for the SEGMENTs after it.
        var free = freeSlots
        var cutQueue = queued
        var fits = true
        for message in messages {
            switch message {
            case .segment:
                free -= 1
                if free < 0 { fits = false }
                cutQueue.append((0, 0))
            case .cut(let at):
                let at64 = DeviceTimeExtenderProxy.extend(at, near: now)
                let before = cutQueue.count
                cutQueue.removeAll { $0.start >= at64 && $0.start > now }
                free += before - cutQueue.count
            default: break
            }
        }
        guard fits else {
            flowControlRejections += 1
            return [.fault(FaultReport(code: 6, detail: UInt32(frame.seq)))]
        }
        nextSeq &+= 1
        return execute(messages, now: now)
    }

    private func execute(_ messages: [HostMessage], now: UInt64) -> [DeviceMessage] {
        var replies: [DeviceMessage] = []
        for message in messages {
            switch message {
            case .identify: replies.append(.identifyReply(identity))
            case .stop: queued.removeAll()
            case .cut(let at):
                // §4.8: entries not yet started from `at` on go; the one before ends at `at`.
                let at64 = DeviceTimeExtenderProxy.extend(at, near: now)
                queued.removeAll { $0.start >= at64 && $0.start > now }
                if let last = queued.indices.last, queued[last].end > at64 { queued[last].end = max(at64, now) }
                cuts += 1
            case .segment(let s):
                let start = DeviceTimeExtenderProxy.extend(s.start, near: now)
                queued.append((start, max(start, now) + UInt64(s.duration)))
                if s.event != 0 {
                    replies.append(.onset(OnsetReport(event: s.event, time: s.start, status: 0)))
                }
            default: break
            }
            executed.append(message)
        }
        return replies
    }
}

/// Wrap-safe extension used by the fake device (independent of the code under test).
enum DeviceTimeExtenderProxy {
    static func extend(_ t: UInt32, near reference: UInt64) -> UInt64 {
        let delta = Int64(Int32(bitPattern: t &- UInt32(truncatingIfNeeded: reference)))
        return UInt64(Int64(reference) + delta)
    }
}
