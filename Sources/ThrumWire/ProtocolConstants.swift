/// Constants of the Thrum wire protocol, version 0, mirroring `firmware-protocol/thrum_protocol.h`
/// one to one (PROTOCOL.md is normative).
public enum ProtocolConstants {
    /// The protocol version this codec implements (`THRUM_PROTOCOL_VERSION`).
    public static let protocolVersion: UInt32 = 0

    // MARK: Framing (§1)

    /// The byte that starts every frame (`THRUM_SYNC`).
    public static let sync: UInt8 = 0x7E
    /// The largest payload a frame carries (`THRUM_MAX_PAYLOAD`).
    public static let maxPayload = 58
    /// SYNC, LEN, CTRL, SEQ and the two CRC bytes (`THRUM_FRAME_OVERHEAD`).
    public static let frameOverhead = 6
    /// The largest frame in bytes (`THRUM_MAX_FRAME`).
    public static let maxFrame = maxPayload + frameOverhead

    // MARK: CTRL byte (§1.1)

    /// The direction-marker nibble of CTRL (`THRUM_CTRL_MARK_MASK`).
    public static let ctrlMarkMask: UInt8 = 0xF0
    /// The marker of host → device frames (`THRUM_CTRL_MARK_HOST`).
    public static let ctrlMarkHost: UInt8 = 0xA0
    /// The marker of device → host frames (`THRUM_CTRL_MARK_DEVICE`).
    public static let ctrlMarkDevice: UInt8 = 0xD0
    /// CTRL bits reserved in both directions (`THRUM_CTRL_RESERVED_MASK`).
    public static let ctrlReservedMask: UInt8 = 0x0C
    /// Host flag: set the expected sequence number to SEQ first (`THRUM_CTRL_RESYNC`).
    public static let ctrlResync: UInt8 = 0x02
    /// Host flag: the frame is outside the sequence (`THRUM_CTRL_UNSEQ`).
    public static let ctrlUnseq: UInt8 = 0x01

    // MARK: CRC-16/MCRF4XX (§1.2)

    /// The CRC's initial value (`THRUM_CRC_INIT`).
    public static let crcInitial: UInt16 = 0xFFFF
    /// The CRC polynomial, bit-reflected (`THRUM_CRC_POLY_REFLECTED`).
    public static let crcPolynomialReflected: UInt16 = 0x8408
    /// The CRC of the ASCII bytes `123456789` (`THRUM_CRC_CHECK`).
    public static let crcCheck: UInt16 = 0x6F91

    // MARK: Message ids (§3)

    /// Host → device: IDENTIFY.
    public static let msgIdentify: UInt32 = 0x01
    /// Host → device: PING.
    public static let msgPing: UInt32 = 0x02
    /// Host → device: STOP.
    public static let msgStop: UInt32 = 0x03
    /// Host → device: SEGMENT.
    public static let msgSegment: UInt32 = 0x04
    /// Host → device: CONFIGURE_DRIVER.
    public static let msgConfigureDriver: UInt32 = 0x05
    /// Device → host: ACK.
    public static let msgAck: UInt32 = 0x40
    /// Device → host: IDENTIFY_REPLY.
    public static let msgIdentifyReply: UInt32 = 0x41
    /// Device → host: ONSET.
    public static let msgOnset: UInt32 = 0x42
    /// Device → host: FAULT.
    public static let msgFault: UInt32 = 0x43

    // MARK: SEGMENT limits (§3.1)

    /// The shortest SEGMENT duration in µs.
    public static let segmentMinDurationMicroseconds: UInt32 = 1
    /// The longest SEGMENT duration in µs.
    public static let segmentMaxDurationMicroseconds: UInt32 = 1_000_000

    // MARK: ONSET status (§3.2)

    /// ONSET status: started on time.
    public static let onsetOnTime: UInt8 = 0
    /// ONSET status: started late and trimmed.
    public static let onsetLateTrimmed: UInt8 = 1
    /// ONSET status: dropped.
    public static let onsetDropped: UInt8 = 2

    // MARK: FAULT codes (§3.2)

    /// FAULT: no driver on the bus.
    public static let faultNoDriver: UInt32 = 1
    /// FAULT: bus error (detail = the register).
    public static let faultBusError: UInt32 = 2
    /// FAULT: driver over-temperature.
    public static let faultOverTemperature: UInt32 = 3
    /// FAULT: driver over-current.
    public static let faultOverCurrent: UInt32 = 4
    /// FAULT: watchdog stop (host silent).
    public static let faultWatchdogStop: UInt32 = 5
    /// FAULT: flow-control violation (detail = the rejected SEQ).
    public static let faultFlowControl: UInt32 = 6

    // MARK: Device behaviour (§4)

    /// The shortest interval between two RTP amplitude writes, in µs.
    public static let amplitudeUpdateIntervalMicroseconds: UInt32 = 500
    /// How late a segment may start before it counts as late, in µs.
    public static let lateToleranceMicroseconds: UInt32 = 50
    /// How long the device waits for a host frame before it stops, in µs.
    public static let watchdogMicroseconds: UInt32 = 1_000_000
    /// The device clock rate.
    public static let clockHz: UInt32 = 1_000_000

    // MARK: Varints (§3)

    /// The longest valid varint encoding in bytes.
    public static let uvarintMaxBytes = 5
}
