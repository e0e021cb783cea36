/// ACK (0x40): cumulative acknowledgement, clock sample and credits (PROTOCOL.md §2.2, §3.2).
public struct Acknowledgement: Sendable, Hashable {
    /// The sequence number the device expects next; acknowledges every frame before it.
    public var nextSeq: UInt8
    /// CTRL of the last valid host frame received (0 before any).
    public var rxCtrl: UInt8
    /// SEQ of the last valid host frame received (0 before any).
    public var rxSeq: UInt8
    /// Device time (µs, 32-bit) when that frame's last byte arrived (0 before any).
    public var rxTime: UInt32
    /// Free segment-queue slots after the frame was handled.
    public var credits: UInt32

    /// Creates an acknowledgement.
    public init(nextSeq: UInt8, rxCtrl: UInt8, rxSeq: UInt8, rxTime: UInt32, credits: UInt32) {
        self.nextSeq = nextSeq
        self.rxCtrl = rxCtrl
        self.rxSeq = rxSeq
        self.rxTime = rxTime
        self.credits = credits
    }
}

/// IDENTIFY_REPLY (0x41): what the device is and what it can hold (PROTOCOL.md §3.2).
public struct DeviceIdentity: Sendable, Hashable {
    /// The highest protocol version whose messages the device all knows (PROTOCOL.md §3: 3 for
    /// this codec's full firmware build, 0 for the AVR streaming build).
    public var protocolVersion: UInt32
    /// Firmware major version.
    public var fwMajor: UInt32
    /// Firmware minor version.
    public var fwMinor: UInt32
    /// Firmware patch version.
    public var fwPatch: UInt32
    /// Per-device number, 0 when the board has none.
    public var deviceId: UInt32
    /// Device clock rate (1 000 000).
    public var clockHz: UInt32
    /// Segment queue capacity.
    public var queueSlots: UInt32
    /// Receive buffer in bytes.
    public var rxBuffer: UInt32
    /// Largest payload the device accepts (58).
    public var maxPayload: UInt32
    /// Driver DEVICE_ID (7 = DRV2605L, 3 = DRV2605, 4 = DRV2604, 6 = DRV2604L), 0 when none answered.
    public var driverId: UInt32

    /// Creates a device identity.
    public init(
        protocolVersion: UInt32, fwMajor: UInt32, fwMinor: UInt32, fwPatch: UInt32, deviceId: UInt32,
        clockHz: UInt32, queueSlots: UInt32, rxBuffer: UInt32, maxPayload: UInt32, driverId: UInt32
    ) {
        self.protocolVersion = protocolVersion
        self.fwMajor = fwMajor
        self.fwMinor = fwMinor
        self.fwPatch = fwPatch
        self.deviceId = deviceId
        self.clockHz = clockHz
        self.queueSlots = queueSlots
        self.rxBuffer = rxBuffer
        self.maxPayload = maxPayload
        self.driverId = driverId
    }
}

/// ONSET (0x42): when the segment marking a haptic event began driving (PROTOCOL.md §3.2).
public struct OnsetReport: Sendable, Hashable {
    /// How a marked segment was played.
    public enum Status: UInt8, Sendable {
        /// Started on time.
        case onTime = 0
        /// Started late and trimmed.
        case lateTrimmed = 1
        /// Dropped (reached after its end).
        case dropped = 2
    }

    /// The haptic event id.
    public var event: UInt32
    /// Device time (µs, 32-bit) of the onset, or of the drop.
    public var time: UInt32
    /// The raw status byte (see ``Status``).
    public var status: UInt8

    /// Creates an onset report.
    public init(event: UInt32, time: UInt32, status: UInt8) {
        self.event = event
        self.time = time
        self.status = status
    }

    /// The status, when it is one this protocol version defines.
    public var knownStatus: Status? { Status(rawValue: status) }
}

/// FAULT (0x43): something went wrong on the device (PROTOCOL.md §3.2).
public struct FaultReport: Sendable, Hashable {
    /// Fault codes defined by this protocol version.
    public enum Code: UInt32, Sendable {
        /// No driver on the bus.
        case noDriver = 1
        /// Bus error; detail = the register.
        case busError = 2
        /// Driver over-temperature.
        case overTemperature = 3
        /// Driver over-current.
        case overCurrent = 4
        /// Watchdog stop: the host went silent.
        case watchdogStop = 5
        /// Flow-control violation; detail = the rejected SEQ.
        case flowControl = 6
        /// The program store is full; detail = the slot (4: no PRELOAD_BEGIN came first).
        case programFull = 7
        /// GO refused (slot invalid or empty of a complete program, no queue room, or out of
        /// order); detail = the slot.
        case goRejected = 8
        /// I²C bus recovery after a failed transfer; detail 0 = the bus is free again, 1 = SDA
        /// stays low.
        case busRecovery = 9
        /// PLAY_PRESET named no stored preset, or no library is stored; detail = the id.
        case noPreset = 10
        /// The rest of a stored preset's play was dropped (the entries not yet queued: one would
        /// start before the queue's last entry, or another PLAY_PRESET replaced it); detail = that
        /// play's `event_base`.
        case presetCut = 11
        /// The device dropped an unmarked entry that would have driven (reached after its window,
        /// or after the next entry's start): a hole in a drive no ONSET tells of; detail = the
        /// entry's start (device time, µs, as sent).
        case driveDropped = 12
    }

    /// The raw fault code (see ``Code``).
    public var code: UInt32
    /// Code-specific detail.
    public var detail: UInt32

    /// Creates a fault report.
    public init(code: UInt32, detail: UInt32) {
        self.code = code
        self.detail = detail
    }

    /// The code, when it is one this protocol version defines.
    public var knownCode: Code? { Code(rawValue: code) }

    /// What the fault means, for people.
    public var meaning: String {
        switch knownCode {
        case .noDriver: return "no haptic driver answers on the I²C bus"
        case .busError: return "an I²C transfer to the driver failed (register \(detail))"
        case .overTemperature: return "the driver shut down for over-temperature; the drive was stopped"
        case .overCurrent: return "the driver detected over-current; the drive was stopped"
        case .watchdogStop: return "the host fell silent for a second, so the device stopped the drive (watchdog)"
        case .flowControl: return "a frame asked for more queue slots than the device had free"
        case .programFull: return "a preloaded program did not fit the device's program store"
        case .goRejected: return "the device refused to start a preloaded program (slot \(detail))"
        case .busRecovery: return "the I²C bus was stuck and had to be recovered"
        case .noPreset: return "the device holds no stored preset \(detail) (or no library)"
        case .presetCut:
            return "the device dropped the rest of a stored preset's play (events from 0x\(String(detail, radix: 16, uppercase: true))): "
                + "its entries not queued yet never played"
        case .driveDropped:
            return "the device dropped drive it reached after its time (the entry starting at device time \(detail) µs): a hole in the drive"
        case .none: return "unknown fault \(code) (detail \(detail))"
        }
    }
}
