import Foundation
import ThrumLink
import ThrumTime
import ThrumWire

/// What `thrum monitor` learns from the bytes it forwards between a host and a device: it decodes
/// the frames of both directions (without taking part in the protocol; a session's frames too, by
/// the key of the CLAIM it forwarded) and keeps link
/// statistics, its own clock model (a host frame's forwarding time, the device's `rx_time` for it
/// in the ACK, the ACK's arrival), the queue depth from the credits, the driver's state,
/// calibration, faults and the recent onsets. No I/O and no clock of its own: callers pass the
/// time of each chunk.
struct LinkMonitor {
    struct Onset {
        var event: UInt32
        var deviceTime: DeviceTime
        var status: String
        var seenAt: HostTime
    }

    private(set) var hostDecoder = FrameDecoder(direction: .hostToDevice)
    private(set) var deviceDecoder = FrameDecoder(direction: .deviceToHost)
    private(set) var hostFrames = 0
    private(set) var hostBytes = 0
    private(set) var sequencedFrames = 0
    private(set) var retransmissions = 0
    private(set) var segments = 0
    private(set) var deviceFrames = 0
    private(set) var deviceBytes = 0
    private(set) var identity: DeviceIdentity?
    private(set) var credits: UInt32?
    private(set) var powerState: StateReport?
    private(set) var calibration: CalibrationReport?
    private(set) var calibratedSinceReset: Bool?
    /// The driver's calibration came from RESTORE_CALIBRATION (CAPABILITIES `calibrated` 2).
    private(set) var restoredSinceReset = false
    private(set) var faults: [FaultReport] = []
    private(set) var onsets: [Onset] = []
    private(set) var lastRoundTrip: HostDuration?
    private(set) var clock = ClockModel()
    private(set) var lastActivity: HostTime?
    /// When each (ctrl, seq) host frame was last forwarded.
    private var sentAt: [UInt16: HostTime] = [:]
    /// Shortest interval between two clock samples.
    static let sampleInterval = HostDuration.milliseconds(50)
    private var lastSampleAt: HostTime?
    /// The last ACK's (rx_ctrl, rx_seq, rx_time).
    private var lastReceipt: (UInt8, UInt8, UInt32)?
    /// The last sequenced host frames (seq, payload), to recognise a retransmission.
    private var recentSequenced: [(UInt8, [UInt8])] = []

    /// Bytes the host sent, forwarded to the device at `time`.
    mutating func hostSent(_ bytes: [UInt8], at time: HostTime) {
        hostBytes += bytes.count
        lastActivity = time
        for frame in hostDecoder.push(bytes) {
            hostFrames += 1
            sentAt[UInt16(frame.ctrl) << 8 | UInt16(frame.seq)] = time
            if !frame.flags.contains(.unseq) {
                sequencedFrames += 1
                if recentSequenced.contains(where: { $0.0 == frame.seq && $0.1 == frame.payload }) {
                    retransmissions += 1
                }
                recentSequenced.append((frame.seq, frame.payload))
                if recentSequenced.count > 32 { recentSequenced.removeFirst() }
            }
            if let messages = try? HostMessage.parsePayload(frame.payload) {
                for message in messages {
                    switch message {
                    case .segment: segments += 1
                    case .identify: clock = ClockModel()  // a new connection: a fresh fit (the device may have reset)
                    case .claim(let session):
                        // the host's session (PROTOCOL.md §3.8): its frames, both ways, start their
                        // CRC from its key; the CLAIM itself travels plain, so the monitor learns it
                        let key = CRC16.sessionKey(session)
                        hostDecoder.keys = [key]
                        deviceDecoder.keys = [key]
                    default: break
                    }
                }
            }
        }
    }

    /// Bytes the device sent, forwarded to the host at `time`.
    mutating func deviceSent(_ bytes: [UInt8], at time: HostTime) {
        deviceBytes += bytes.count
        lastActivity = time
        for frame in deviceDecoder.push(bytes) {
            deviceFrames += 1
            guard let messages = try? DeviceMessage.parsePayload(frame.payload) else { continue }
            for message in messages {
                switch message {
                case .ack(let ack):
                    credits = ack.credits
                    // Every device frame repeats the ACK of the last host frame received; only the
                    // first one after a new receipt is a clock sample.
                    let receipt = (ack.rxCtrl, ack.rxSeq, ack.rxTime)
                    defer { lastReceipt = receipt }
                    guard lastReceipt.map({ $0 != receipt }) ?? true else { continue }
                    let key = UInt16(ack.rxCtrl) << 8 | UInt16(ack.rxSeq)
                    if ack.rxCtrl != 0, let sent = sentAt.removeValue(forKey: key) {
                        lastRoundTrip = time - sent
                        // At most one sample per `sampleInterval`: the fit is the costly part, and
                        // a display needs no more.
                        if lastSampleAt.map({ time - $0 >= Self.sampleInterval }) ?? true {
                            clock.addSample(hostSend: sent, hostReceive: time, deviceReceive: DeviceTime32(rawValue: ack.rxTime))
                            lastSampleAt = time
                        }
                    }
                case .identifyReply(let reply): identity = reply
                case .capabilities(let c):
                    calibratedSinceReset = c.calibrated
                    restoredSinceReset = c.calibration == .restored
                case .state(let s): powerState = s
                case .calibrationResult(let r):
                    calibration = r
                    calibratedSinceReset = r.passed
                    restoredSinceReset = false
                case .fault(let f):
                    faults.append(f)
                    if faults.count > 16 { faults.removeFirst() }
                case .onset(let o):
                    let status =
                        o.knownStatus.map { s -> String in
                            switch s {
                            case .onTime: return "on_time"
                            case .lateTrimmed: return "late_trimmed"
                            case .dropped: return "dropped"
                            }
                        } ?? "status \(o.status)"
                    let onset = Onset(event: o.event, deviceTime: clock.extend(DeviceTime32(rawValue: o.time)), status: status, seenAt: time)
                    // the device repeats each ONSET in a few later frames (PROTOCOL.md §3.2)
                    guard !onsets.contains(where: { $0.event == onset.event && $0.deviceTime == onset.deviceTime && $0.status == status })
                    else { break }
                    onsets.append(onset)
                    if onsets.count > 64 { onsets.removeFirst() }
                case .library:
                    break  // library replies answer `thrum flash` / `library list`; triggers show as onsets
                case .frameTime:
                    break  // USB start-of-frame times feed the host's fit, not this display
                case .departure:
                    break  // ACK departures feed the host's clock model, not this display
                case .session:
                    break  // a session's reports travel in its key: this display sees plain frames only
                }
            }
        }
    }

    /// Segment queue slots in use, from the last ACK's credits and IDENTIFY_REPLY's queue size.
    var queueDepth: Int? {
        guard let identity, let credits else { return nil }
        return Int(identity.queueSlots) - Int(credits)
    }

    /// The screen: one string per line, at most `width` characters each.
    func screen(port: String, bridge: String, now: HostTime, refreshHz: Double, width: Int, onsetLines: Int) -> [String]
    {
        var lines: [String] = []
        func line(_ text: String) { lines.append(String(text.prefix(width))) }
        line(
            "thrum monitor — \(port)   bridge \(bridge)   refresh \(String(format: "%.1f", refreshHz)) Hz   q or Ctrl-C quits"
        )
        line("")
        if let identity {
            line(
                "device   \(DeviceDescription.driverName(Int(identity.driverId))), firmware \(DeviceDescription.firmware(identity)), "
                    + "protocol \(identity.protocolVersion), id \(DeviceDescription.hex(identity.deviceId)), queue \(identity.queueSlots) slots"
            )
        } else {
            line("device   not identified yet (run `thrum play --port \(bridge)` or another client through the bridge)")
        }
        let idle = lastActivity.map { String(format: "%.1f s ago", (now - $0).seconds) } ?? "never"
        line(
            "link     host→device \(hostFrames) frames (\(sequencedFrames) sequenced, \(retransmissions) retransmitted), \(hostBytes) B, \(segments) segments"
        )
        line(
            "         device→host \(deviceFrames) frames, \(deviceBytes) B; CRC errors \(hostDecoder.badFrames) host, \(deviceDecoder.badFrames) device; last traffic \(idle)"
        )
        if clock.sampleCount > 0 {
            let device = Double(clock.deviceTime(at: now).microseconds)
            let bounds = clock.bounds(at: now)
            let half = Double((bounds.upperBound - bounds.lowerBound).microseconds) / 2
            let offset = device - Double(now.nanoseconds) / 1e3
            line(
                String(
                    format: "clock    offset %+.3f ms ± %.0f µs, drift %+.1f ppm, %d samples, round trip %.2f ms",
                    offset / 1e3, half, clock.driftPPM, clock.sampleCount, (lastRoundTrip?.seconds ?? 0) * 1e3))
        } else {
            line("clock    no samples yet")
        }
        line(
            "queue    "
                + (queueDepth.map { "\($0) of \(identity!.queueSlots) slots in use (credits \(credits!))" } ?? "unknown")
        )
        var driver = "driver   "
        if let s = powerState {
            let state = s.knownState.map { "\($0)" } ?? "state \(s.state)"
            let cause = s.knownCause.map { "\($0)" } ?? "cause \(s.cause)"
            driver += "\(state) (\(cause))"
        } else {
            driver += "no STATE seen"
        }
        if let c = calibration {
            driver +=
                "; calibration " + (c.passed ? "passed" : "FAILED")
                + (c.resonanceHz.map { String(format: ", %.1f Hz", $0) } ?? "")
        } else if let calibrated = calibratedSinceReset {
            driver +=
                !calibrated
                ? "; not calibrated since reset"
                : restoredSinceReset ? "; calibration restored since reset" : "; calibrated since reset"
        }
        line(driver)
        line(
            "faults   "
                + (faults.isEmpty
                    ? "none" : faults.suffix(4).map { "\($0.code) (\($0.meaning))" }.joined(separator: "; ")))
        line("")
        line("recent onsets (device time, s)")
        for o in onsets.suffix(onsetLines).reversed() {
            line(String(format: "  event %6u  %14.6f  %@", o.event, o.deviceTime.seconds, o.status))
        }
        return lines
    }
}
