/// Constants of the Thrum wire protocol, version 5, mirroring `firmware-protocol/thrum_protocol.h`
/// one to one (PROTOCOL.md is normative).
public enum ProtocolConstants {
    /// The protocol version this codec implements (`THRUM_PROTOCOL_VERSION`).
    public static let protocolVersion: UInt32 = 5
    /// The oldest version a host still talks to: a version-0 device (the AVR build) lacks the
    /// preset library (version 1), the compact stream and RESTORE_CALIBRATION (version 2), the
    /// USB start-of-frame times (version 3), the ACK departures (version 4) and sessions (version 5).
    public static let oldestProtocolVersion: UInt32 = 0

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
    /// Host → device: CALIBRATE. (0x06 and 0x07 are never assigned.)
    public static let msgCalibrate: UInt32 = 0x08
    /// Host → device: WAKE.
    public static let msgWake: UInt32 = 0x09
    /// Host → device: STANDBY.
    public static let msgStandby: UInt32 = 0x0A
    /// Host → device: PRELOAD_BEGIN.
    public static let msgPreloadBegin: UInt32 = 0x0B
    /// Host → device: PRELOAD_SEGMENT.
    public static let msgPreloadSegment: UInt32 = 0x0C
    /// Host → device: GO.
    public static let msgGo: UInt32 = 0x0D
    /// Host → device: ROM_EFFECT.
    public static let msgROMEffect: UInt32 = 0x0E
    /// Host → device: CUT.
    public static let msgCut: UInt32 = 0x0F
    /// Host → device: CONFIGURE_SAMPLE_TIME.
    public static let msgConfigureSampleTime: UInt32 = 0x10
    /// Host → device: LIBRARY_BEGIN (version 1).
    public static let msgLibraryBegin: UInt32 = 0x11
    /// Host → device: LIBRARY_WRITE (version 1).
    public static let msgLibraryWrite: UInt32 = 0x12
    /// Host → device: LIBRARY_COMMIT (version 1).
    public static let msgLibraryCommit: UInt32 = 0x13
    /// Host → device: LIBRARY_QUERY (version 1).
    public static let msgLibraryQuery: UInt32 = 0x14
    /// Host → device: LIBRARY_READ (version 1).
    public static let msgLibraryRead: UInt32 = 0x15
    /// Host → device: PLAY_PRESET (version 1).
    public static let msgPlayPreset: UInt32 = 0x16
    /// Host → device: RESTORE_CALIBRATION (version 2).
    public static let msgRestoreCalibration: UInt32 = 0x1C
    /// Host → device: SHAPE (version 2, the compact stream).
    public static let msgShape: UInt32 = 0x17
    /// Host → device: PLAY_SHAPE (version 2).
    public static let msgPlayShape: UInt32 = 0x18
    /// Host → device: FOLLOW (version 2).
    public static let msgFollow: UInt32 = 0x19
    /// Host → device: NEXT_SHAPE (version 2): PLAY_SHAPE marking the next event.
    public static let msgNextShape: UInt32 = 0x1A
    /// Host → device: FRAME_TIMES (version 3): ask for USB start-of-frame times. Any lane.
    public static let msgFrameTimes: UInt32 = 0x1D
    /// Host → device: CLAIM (version 5): hold the device under a session. Any lane.
    public static let msgClaim: UInt32 = 0x1E
    /// Host → device: RELEASE (version 5): the session is over. Any lane.
    public static let msgRelease: UInt32 = 0x1F
    /// Shape ids a version-2 device holds: 0 up to this, exclusive (`THRUM_STREAM_SHAPES`).
    public static let streamShapes: UInt32 = 64
    /// The most bytes a SHAPE's ramp list takes (`THRUM_STREAM_SHAPE_BYTES`).
    public static let streamShapeBytes = 48
    /// Device → host: ACK.
    public static let msgAck: UInt32 = 0x40
    /// Device → host: IDENTIFY_REPLY.
    public static let msgIdentifyReply: UInt32 = 0x41
    /// Device → host: ONSET.
    public static let msgOnset: UInt32 = 0x42
    /// Device → host: FAULT.
    public static let msgFault: UInt32 = 0x43
    /// Device → host: CALIBRATION_RESULT. (0x44 is never assigned.)
    public static let msgCalibrationResult: UInt32 = 0x45
    /// Device → host: STATE.
    public static let msgState: UInt32 = 0x46
    /// Device → host: CAPABILITIES.
    public static let msgCapabilities: UInt32 = 0x47
    /// Device → host: LIBRARY (version 1).
    public static let msgLibrary: UInt32 = 0x48
    /// Device → host: LIBRARY_DATA (version 1).
    public static let msgLibraryData: UInt32 = 0x49
    /// Device → host: TRIGGER (version 1).
    public static let msgTrigger: UInt32 = 0x4A
    /// Device → host: FRAME_TIME (version 3): one USB start-of-frame and its device time.
    public static let msgFrameTime: UInt32 = 0x4B
    /// Device → host: DEPARTURE (version 4): when an ACK left the device over native USB.
    public static let msgDeparture: UInt32 = 0x4C
    /// Device → host: SESSION (version 5): a session claimed, taken over or refused.
    public static let msgSession: UInt32 = 0x4D

    // MARK: Sessions (§3.8)

    /// No session holds the device (`THRUM_SESSION_NONE`); a CLAIM never names it.
    public static let sessionNone: UInt32 = 0

    /// SESSION status: this frame's session now holds the device (`THRUM_SESSION_CLAIMED`).
    public static let sessionClaimed: UInt8 = 0
    /// SESSION status: another host's CLAIM took the device from this session at `at`.
    public static let sessionTaken: UInt8 = 1
    /// SESSION status: the CLAIM was refused, its key being the holder's (pick another session).
    public static let sessionRefused: UInt8 = 2

    // MARK: USB start-of-frame times (§3.6)

    /// The largest FRAME_TIMES `interval_ms`, ms (`THRUM_FRAME_TIMES_MAX_INTERVAL_MS`); 0 turns
    /// them off.
    public static let frameTimesMaxIntervalMilliseconds: UInt32 = 60_000
    /// The bits of a USB frame number (`THRUM_USB_FRAME_MASK`): FRAME_TIME `frame` is 0 ... this.
    public static let usbFrameMask: UInt16 = 0x7FF

    // MARK: ACK departures (§3.7)

    /// The largest DEPARTURE `wait`, µs (`THRUM_DEPARTURE_MAX_WAIT_US`): `wait` is 0 ... this.
    public static let departureMaxWait: UInt32 = 1_000_000

    // MARK: The preset library (§3.3, §4.9)

    /// The most bytes one LIBRARY_READ asks for.
    public static let libraryReadMax: UInt32 = 32
    /// LIBRARY status: a library is active.
    public static let libraryStatusActive: UInt8 = 0
    /// LIBRARY status: no library stored.
    public static let libraryStatusEmpty: UInt8 = 1
    /// LIBRARY status: the new image was verified and switched to.
    public static let libraryStatusSwitched: UInt8 = 2
    /// LIBRARY status: the image is larger than a slot (or smaller than a header).
    public static let libraryStatusTooLarge: UInt8 = 3
    /// LIBRARY status: the CRC-32 read back differs; nothing switched.
    public static let libraryStatusVerifyFailed: UInt8 = 4
    /// LIBRARY status: a write out of order, past the size, or failed in storage.
    public static let libraryStatusWriteError: UInt8 = 5
    /// LIBRARY status: the board has no library storage.
    public static let libraryStatusNoStorage: UInt8 = 6
    /// LIBRARY status: the image's header is not one this device reads.
    public static let libraryStatusBadImage: UInt8 = 7
    /// Event ids of presets a trigger input started: this + (preset id << 12) + event.
    public static let triggerEventBase: UInt32 = 0xF000_0000
    /// A trigger input must rest inactive this long (µs) before its next edge counts.
    public static let triggerDebounceMicroseconds: UInt32 = 20_000

    // MARK: SEGMENT limits (§3.1)

    /// The shortest SEGMENT duration in µs.
    public static let segmentMinDurationMicroseconds: UInt32 = 1
    /// The longest SEGMENT duration in µs.
    public static let segmentMaxDurationMicroseconds: UInt32 = 1_000_000

    /// The most messages with fields one payload may hold (`THRUM_MAX_FIELD_MESSAGES`).
    public static let maxFieldMessages = 12
    /// Program slots of PRELOAD_BEGIN and GO (`THRUM_PROGRAM_SLOTS`): slot 0 ..< this.
    public static let programSlots: UInt8 = 4
    /// The lowest ROM_EFFECT effect id.
    public static let romEffectMin: UInt8 = 1
    /// The highest ROM_EFFECT effect id.
    public static let romEffectMax: UInt8 = 123
    /// A ROM effect reached later than this after its start is dropped, µs.
    public static let romLateWindowMicroseconds: UInt32 = 20_000
    /// WAKE idle timeouts above this are clamped by the device, ms.
    public static let wakeMaxTimeoutMilliseconds: UInt32 = 2_000_000

    // MARK: CALIBRATION_RESULT and STATE (§3.2)

    /// CALIBRATION_RESULT status: converged.
    public static let calibrationPass: UInt8 = 0
    /// CALIBRATION_RESULT status: failed.
    public static let calibrationFail: UInt8 = 1
    /// CAPABILITIES calibrated: the driver holds no calibration since reset.
    public static let calibratedNone: UInt8 = 0
    /// CAPABILITIES calibrated: an auto-calibration passed since reset.
    public static let calibratedMeasured: UInt8 = 1
    /// CAPABILITIES calibrated: RESTORE_CALIBRATION wrote kept words since reset (version 2).
    public static let calibratedRestored: UInt8 = 2
    /// STATE state: driver in standby.
    public static let stateStandby: UInt8 = 0
    /// STATE state: driver ready.
    public static let stateReady: UInt8 = 1
    /// STATE state: calibrating.
    public static let stateCalibrating: UInt8 = 2
    /// STATE cause: a host message.
    public static let causeHost: UInt8 = 0
    /// STATE cause: the WAKE idle timeout.
    public static let causeIdleTimeout: UInt8 = 1
    /// STATE cause: the device on its own (a queued entry, an automatic calibration).
    public static let causeAutomatic: UInt8 = 2

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
    /// FAULT: the program store is full (detail = the slot, or 4 when no PRELOAD_BEGIN came first).
    public static let faultProgramFull: UInt32 = 7
    /// FAULT: GO refused (detail = the slot).
    public static let faultGoRejected: UInt32 = 8
    /// FAULT: I²C bus recovery after a failed transfer (detail 0 = bus free again, 1 = still stuck).
    public static let faultBusRecovery: UInt32 = 9
    /// FAULT: PLAY_PRESET named no stored preset (detail = the id), or no library is stored.
    public static let faultNoPreset: UInt32 = 10
    /// FAULT: the device dropped the rest of a stored preset's play, the entries it had not queued
    /// yet (one would start before the queue's last entry, or another PLAY_PRESET replaced it);
    /// detail = that play's `event_base`.
    public static let faultPresetCut: UInt32 = 11
    /// FAULT 12: the device dropped an unmarked segment that would have driven (detail = its start).
    public static let faultDriveDropped: UInt32 = 12

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
