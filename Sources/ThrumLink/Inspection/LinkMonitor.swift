import ThrumTime
import ThrumWire

/// What `thrum monitor` learns from the bytes it forwards between a host and a device: it decodes
/// the frames of both directions (without taking part in the protocol; a session's frames too, by
/// the key of the last CLAIM it forwarded and of the session that CLAIM took over) and keeps link
/// statistics, its own clock model (a host frame's forwarding time, the device's `rx_time` for it
/// in the ACK, the ACK's arrival), the queue depth from the credits, the driver's state,
/// calibration, faults and the recent onsets. No I/O and no clock of its own: callers pass the
/// time of each chunk, and pass a host chunk before the device can answer it (``MonitorBridge``
/// does): the answer to a CLAIM comes in the new session's key, which only the CLAIM tells.
public struct LinkMonitor: Sendable {
    /// An ONSET the device reported, once (the device repeats each in a few later frames).
    public struct Onset: Sendable, Equatable {
        /// The event id the host gave it.
        public var event: UInt32
        /// When it began, on the device's clock extended past its 32-bit wrap.
        public var deviceTime: DeviceTime
        /// `on_time`, `late_trimmed`, `dropped` or `status N`.
        public var status: String
        /// When the monitor forwarded the frame that carried it.
        public var seenAt: HostTime
    }

    /// The decoder of the host's bytes (its `badFrames`: host frames that failed the CRC).
    public private(set) var hostDecoder = FrameDecoder(direction: .hostToDevice)
    /// The decoder of the device's bytes (its `badFrames`: device frames that failed the CRC).
    public private(set) var deviceDecoder = FrameDecoder(direction: .deviceToHost)
    /// Valid host frames forwarded.
    public private(set) var hostFrames = 0
    /// Bytes the host sent.
    public private(set) var hostBytes = 0
    /// Host frames without `UNSEQ`.
    public private(set) var sequencedFrames = 0
    /// Sequenced host frames that repeat one of the last 32 (same SEQ and payload).
    public private(set) var retransmissions = 0
    /// SEGMENT messages the host sent.
    public private(set) var segments = 0
    /// Valid device frames forwarded.
    public private(set) var deviceFrames = 0
    /// Bytes the device sent.
    public private(set) var deviceBytes = 0
    /// The last IDENTIFY_REPLY.
    public private(set) var identity: DeviceIdentity?
    /// The last ACK's free segment queue slots.
    public private(set) var credits: UInt32?
    /// The last STATE.
    public private(set) var powerState: StateReport?
    /// The last CALIBRATION_RESULT.
    public private(set) var calibration: CalibrationReport?
    /// Whether the driver was calibrated since the device's reset (CAPABILITIES, CALIBRATION_RESULT).
    public private(set) var calibratedSinceReset: Bool?
    /// The driver's calibration came from RESTORE_CALIBRATION (CAPABILITIES `calibrated` 2).
    public private(set) var restoredSinceReset = false
    /// The last 16 FAULTs, oldest first.
    public private(set) var faults: [FaultReport] = []
    /// The last 64 onsets, in the order reported.
    public private(set) var onsets: [Onset] = []
    /// The last host frame's forwarding → the forwarding of the ACK that named it.
    public private(set) var lastRoundTrip: HostDuration?
    /// The monitor's own model of the device's clock.
    public private(set) var clock = ClockModel()
    /// When bytes last passed either way.
    public private(set) var lastActivity: HostTime?
    /// When each (ctrl, seq) host frame was last forwarded.
    private var sentAt: [UInt16: HostTime] = [:]
    /// Shortest interval between two clock samples.
    public static let sampleInterval = HostDuration.milliseconds(50)
    private var lastSampleAt: HostTime?
    /// The last ACK's (rx_ctrl, rx_seq, rx_time).
    private var lastReceipt: (UInt8, UInt8, UInt32)?
    /// The last sequenced host frames (seq, payload), to recognise a retransmission.
    private var recentSequenced: [(UInt8, [UInt8])] = []

    /// A monitor that has seen nothing yet.
    public init() {}

    /// Bytes the host sent, forwarded to the device at `time`.
    public mutating func hostSent(_ bytes: [UInt8], at time: HostTime) {
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
                        // CRC from its key; the CLAIM itself travels plain, so the monitor learns it.
                        // The session it takes over keeps its key too, as the device's decoder
                        // does: SESSION taken reaches the old host in that key.
                        let key = CRC16.sessionKey(session)
                        let keys = [key] + hostDecoder.keys.filter { $0 != key }.prefix(1)
                        hostDecoder.keys = keys
                        deviceDecoder.keys = keys
                    default: break
                    }
                }
            }
        }
    }

    /// Bytes the device sent, forwarded to the host at `time`.
    public mutating func deviceSent(_ bytes: [UInt8], at time: HostTime) {
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
                    break  // SESSION claimed, taken or refused: the player's business, not shown
                }
            }
        }
    }

    /// Segment queue slots in use, from the last ACK's credits and IDENTIFY_REPLY's queue size.
    public var queueDepth: Int? {
        guard let identity, let credits else { return nil }
        return Int(identity.queueSlots) - Int(credits)
    }
}
