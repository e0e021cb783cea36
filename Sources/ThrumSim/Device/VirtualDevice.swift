import CThrumFirmware
import Foundation

/// The virtual device: the real C firmware core, compiled into the package, running against the
/// DRV2605L register model and the LRA physics model, in simulated time.
///
/// Time here is the simulation's *true* time in whole microseconds since the device was created.
/// The device's own clock (what the firmware reads) is derived from it through a crystal with a
/// configurable frequency error and an arbitrary starting value, so host-side clock sync has real
/// work to do. Nothing here reads the wall clock: callers move time with ``advance(to:)``.
public final class VirtualDevice {
    /// How the virtual device is built.
    public struct Configuration: Sendable {
        /// The actuator's physical parameters.
        public var actuator: LRAParameters
        /// Register defaults the firmware starts with (as a board description would give them).
        public var board: BoardDefaults
        /// Frequency error of the device's crystal in parts per million (positive runs fast).
        /// Values outside `crystalErrorPPMRange` (and nan) are clamped into it when the clock runs.
        public var crystalErrorPPM: Double

        /// The crystal errors the device models, ppm: ±10 % (real crystals are within ±100 ppm).
        public static let crystalErrorPPMRange: ClosedRange<Double> = -100_000...100_000

        /// The device clock's rate relative to true time: 1 + the clamped crystal error.
        var clockRate: Double {
            let ppm = crystalErrorPPM.isNaN ? 0 : min(Self.crystalErrorPPMRange.upperBound, max(Self.crystalErrorPPMRange.lowerBound, crystalErrorPPM))
            return 1 + ppm * 1e-6
        }
        /// The device clock's reading at true time zero (lets tests start near the 32-bit wrap).
        public var clockStart: UInt32
        /// How often the firmware's coarse main-loop pass runs, in µs of true time. Timed work
        /// (segment starts and ends, amplitude updates, polls) runs at the exact device times the
        /// firmware asks for through `thrum_fw_next_deadline`, as a timer interrupt would.
        public var pollInterval: UInt64
        /// I²C bus clock; a register write of n bytes occupies the bus for 9·(n+1)+2 bit times.
        public var i2cClockHz: Double
        /// Board facts of the driver chip (its supply voltage VDD among them).
        public var chip = DRV2605LConfiguration()
        /// The library storage (an EEPROM on the I²C bus, ``LibraryStorage``); nil (the default):
        /// the board has none, and the firmware answers the library messages with "no storage".
        public var storage: LibraryStorage? = nil
        /// Whether the DRV2605L answers on the I²C bus; false models a breakout that is not
        /// wired (SDA/SCL open) or not powered: every transfer to 0x5A goes unacknowledged.
        public var driverOnBus = true

        /// Creates a configuration; the defaults model an ideal 1 MHz clock and a 400 kHz bus.
        public init(
            actuator: LRAParameters = .referenceExample, board: BoardDefaults = BoardDefaults(),
            crystalErrorPPM: Double = 0, clockStart: UInt32 = 0, pollInterval: UInt64 = 1_000,
            i2cClockHz: Double = 400_000
        ) {
            self.actuator = actuator
            self.board = board
            self.crystalErrorPPM = crystalErrorPPM
            self.clockStart = clockStart
            self.pollInterval = pollInterval
            self.i2cClockHz = i2cClockHz
        }
    }

    /// DRV2605L register defaults and the device id a board description provides.
    public struct BoardDefaults: Sendable, Equatable {
        public var deviceID: UInt32
        public var ratedVoltage: UInt8
        public var overdriveClamp: UInt8
        public var driveTime: UInt8
        public var openLoopPeriod: UInt8
        /// Defaults: the firmware's board defaults (`thrum_board_defaults.h`, the one source every port
        /// uses: a 205 Hz, 1.5 V rms SEMCO 1030 LRA) and id 0x7487_0001.
        public init(
            deviceID: UInt32 = 0x7487_0001, ratedVoltage: UInt8 = UInt8(THRUM_BOARD_RATED_VOLTAGE),
            overdriveClamp: UInt8 = UInt8(THRUM_BOARD_OD_CLAMP), driveTime: UInt8 = UInt8(THRUM_BOARD_DRIVE_TIME),
            openLoopPeriod: UInt8 = UInt8(THRUM_BOARD_OL_LRA_PERIOD)
        ) {
            self.deviceID = deviceID
            self.ratedVoltage = ratedVoltage
            self.overdriveClamp = overdriveClamp
            self.driveTime = driveTime
            self.openLoopPeriod = openLoopPeriod
        }
    }

    /// The configuration the device was built with.
    public let configuration: Configuration
    /// The haptic driver model on the device's I²C bus (and, through it, the actuator).
    public let chip: DRV2605LModel
    /// True simulated time, µs since creation.
    public private(set) var now: UInt64 = 0

    private let firmware: UnsafeMutablePointer<thrum_fw_t>
    /// The true time of the last start of frame given to the firmware.
    private var lastStartOfFrame: UInt64?
    private let hal: UnsafeMutablePointer<thrum_hal_t>
    private var board = thrum_board_t()
    private var nextPoll: UInt64 = 0
    /// True time at which the last firmware pass returned.
    private var lastPassEnd: UInt64?
    /// Bus time consumed by the firmware during the current main-loop pass.
    private var busTime: UInt64 = 0
    private var output: [UInt8] = []
    /// Added to the device clock; a reset sets it so the clock restarts from 0.
    private var clockOffset: UInt32 = 0
    /// How many times the microcontroller was reset (``reset()``).
    public private(set) var resetCount = 0
    /// Levels of the trigger inputs, bit i = input i (``setTrigger(_:active:)``).
    public private(set) var triggerLevels: UInt8 = 0
    /// The library storage (from the configuration).
    public var storage: LibraryStorage? { configuration.storage }
    /// Firmware main-loop passes run: what the simulation cost, whatever the time simulated.
    public private(set) var passesRun = 0
    /// Coarse main-loop passes passed over in idle spans (``skipIdle(to:)``).
    public private(set) var passesSkipped = 0
    /// Idle skips whose closing pass was not idle after all (``skipIdle(to:)``): the firmware did
    /// work no deadline announced, which the skipped passes may have done earlier. Always 0 so far;
    /// the tests check it.
    public private(set) var idleSkipMismatches = 0
    /// Whether the last main-loop pass was idle: the chip at rest, no bus time, no output, and
    /// the firmware's state as before it but for the stamps every pass writes.
    private var lastPassIdle = false
    private let stateBefore: UnsafeMutableRawPointer

    /// Creates a device and runs the firmware's power-up (driver probe and set-up).
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        chip = DRV2605LModel(actuator: configuration.actuator, configuration: configuration.chip)
        firmware = .allocate(capacity: 1)
        firmware.initialize(to: thrum_fw_t())
        hal = .allocate(capacity: 1)
        stateBefore = .allocate(byteCount: MemoryLayout<thrum_fw_t>.size, alignment: MemoryLayout<thrum_fw_t>.alignment)
        board.device_id = configuration.board.deviceID
        board.rated_voltage = configuration.board.ratedVoltage
        board.od_clamp = configuration.board.overdriveClamp
        board.drive_time = configuration.board.driveTime
        board.ol_lra_period = configuration.board.openLoopPeriod
        if let storage = configuration.storage {
            board.storage_size = UInt32(storage.size)
            board.storage_page = UInt16(storage.pageSize)
        }
        hal.initialize(to: makeHAL())
        // Power-up: the firmware waits ≥ 250 µs (delay_us moves bus time), probes and sets up the driver.
        withUnsafePointer(to: &board) { thrum_fw_init(firmware, hal, $0) }
        now += busTime
        busTime = 0
        chip.advance(to: now)
        nextPoll = now
    }

    /// Resets the microcontroller now, as its reset pin or a watchdog would: the firmware starts
    /// afresh (queues, link state and programs lost; the driver is probed and set up again), its
    /// clock restarts from 0 and bytes it had not sent are lost. The driver chip and the actuator
    /// keep their state (they are not reset) until the firmware sets them up again.
    public func reset() {
        output.removeAll()
        clockOffset = 0
        clockOffset = 0 &- deviceClock(atTrueTime: now)
        firmware.pointee = thrum_fw_t()
        busTime = 0
        withUnsafePointer(to: &board) { thrum_fw_init(firmware, hal, $0) }
        settleBusTime()
        nextPoll = now
        lastPassEnd = nil
        lastStartOfFrame = nil
        lastPassIdle = false
        resetCount += 1
    }

    /// The device clock loses `micros` µs at once and runs on from there, as a board's does when
    /// its timer overflows are missed under a long interrupt-disabled stretch: what the firmware
    /// scheduled at a device time now plays that much later in true time.
    public func loseClockTime(_ micros: UInt32) {
        lastPassIdle = false
        clockOffset &-= micros
    }

    deinit {
        firmware.deinitialize(count: 1)
        firmware.deallocate()
        hal.deinitialize(count: 1)
        hal.deallocate()
        stateBefore.deallocate()
    }

    // MARK: Time

    /// The device clock's reading at true time `t` (µs), wrapped to 32 bits.
    public func deviceClock(atTrueTime t: UInt64) -> UInt32 {
        let scaled = Double(t) * configuration.clockRate
        let ticks = scaled < 0x1p64 ? UInt64(scaled) : UInt64.max
        return configuration.clockStart &+ clockOffset &+ UInt32(truncatingIfNeeded: ticks)
    }

    /// The true time (µs) at which the device clock reads `clock`, taking the reading nearest to
    /// true time `near` (the clock wraps every 2^32 µs).
    public func trueTime(ofDeviceClock clock: UInt32, near: UInt64) -> Double {
        let reference = deviceClock(atTrueTime: near)
        let delta = Int32(bitPattern: clock &- reference)
        let rate = configuration.clockRate
        return Double(near) + Double(delta) / rate
    }

    /// Runs the firmware, the driver and the actuator until true time `t` (µs).
    ///
    /// The firmware runs at each device time it asked for (`thrum_fw_next_deadline`, mapped to
    /// true time through the crystal) and at least every ``Configuration/pollInterval``.
    public func advance(to t: UInt64) {
        while now < t {
            let due = nextPassTime()
            if due <= now {
                runMainLoopPass()
                continue
            }
            let step = min(t, due)
            chip.advance(to: step)
            now = step
        }
    }

    /// True time (µs) of the next firmware pass: the firmware's own next deadline, or the coarse
    /// main-loop pass. A pump stepping just past it collects the pass's output at once.
    public var nextFirmwarePass: UInt64 { max(now, nextPassTime()) }

    /// True time (µs) of the next pass the firmware itself asked for (`thrum_fw_next_deadline`),
    /// without the coarse main-loop pass; nil when it asked for none.
    public var nextFirmwareDeadline: UInt64? {
        var has: UInt8 = 0
        let deadline = thrum_fw_next_deadline(firmware, deviceClock(atTrueTime: now), &has)
        return has != 0 ? trueTimeReaching(deadline) : nil
    }

    /// Whether ``skipIdle(to:)`` may pass the coarse passes from now: the last one ran 1 µs ago,
    /// was idle (nothing but its stamps changed, no bus time, no output), the next is one
    /// ``Configuration/pollInterval`` after it, and the chip is at rest to the last bit.
    public var canSkipIdle: Bool {
        lastPassIdle && lastPassEnd.map { $0 + 1 == now } == true && nextPoll == now - 1 + configuration.pollInterval
            && output.isEmpty && chip.isAtRest
    }

    /// Passes an idle span (``canSkipIdle``) to true time `t`, as ``advance(to:)`` in steps of a
    /// poll interval would: the coarse passes between change only the stamps every pass writes
    /// (the last poll time of the output watchdog and of STATUS), so only the last one, at
    /// `t − 1`, runs; the chip passes the span at once. The caller makes sure that no firmware
    /// deadline (``nextFirmwareDeadline``), host byte or device event falls before `t`, and that
    /// `t` is on the poll grid plus 1 µs, as its own steps would reach it. Outside an idle span
    /// (or off the grid) it steps there with ``advance(to:)``.
    public func skipIdle(to t: UInt64) {
        let interval = configuration.pollInterval
        guard canSkipIdle, t > now + interval, (t - now) % interval == 0 else { return advance(to: t) }
        passesSkipped += Int((t - now) / interval) - 1
        chip.advance(to: t - 1)
        now = t - 1
        nextPoll = now
        runMainLoopPass()
        if !lastPassIdle || now != t - 1 { idleSkipMismatches += 1 }
        chip.advance(to: t)
        now = t
    }

    private func nextPassTime() -> UInt64 {
        var due = nextPoll
        var has: UInt8 = 0
        let clock = deviceClock(atTrueTime: now)
        let deadline = thrum_fw_next_deadline(firmware, clock, &has)
        if has != 0 {
            due = min(due, trueTimeReaching(deadline))
        }
        // A pass that took no time cannot make work due at the same instant again.
        if due <= now, lastPassEnd == now { due = now + 1 }
        return due
    }

    /// The first whole true microsecond at which the device clock has reached `clock` (a time
    /// already passed gives `now`).
    private func trueTimeReaching(_ clock: UInt32) -> UInt64 {
        let current = deviceClock(atTrueTime: now)
        guard Int32(bitPattern: clock &- current) > 0 else { return now }
        var t = max(now, UInt64(trueTime(ofDeviceClock: clock, near: now).rounded(.up)))
        while Int32(bitPattern: deviceClock(atTrueTime: t) &- clock) < 0 { t += 1 }
        while t > now + 1, Int32(bitPattern: deviceClock(atTrueTime: t - 1) &- clock) >= 0 { t -= 1 }
        return t
    }

    // MARK: Serial link

    /// Delivers bytes from the host.
    ///
    /// - Parameter arrivedAt: the true time (µs) the bytes reached the device, when the caller
    ///   knows it. A board stamps arrivals in its receive interrupt, so the stamp does not wait
    ///   for a main-loop pass that was busy on the I²C bus; without it, the current time is used.
    public func receive(_ bytes: [UInt8], arrivedAt: UInt64? = nil) {
        guard !bytes.isEmpty else { return }
        let arrival = deviceClock(atTrueTime: min(now, arrivedAt ?? now))
        lastPassIdle = false
        busTime = 0
        bytes.withUnsafeBufferPointer { thrum_fw_receive(firmware, $0.baseAddress, $0.count, arrival) }
        settleBusTime()
    }

    /// A USB start of frame: frame `number` began at true time `time` (µs), and the firmware takes
    /// its SOF interrupt, reading its clock there (`thrum_fw_usb_sof`). The pump gives the newest
    /// frame before anything the device does after it (``SimulatedPump``); giving the same frame
    /// again does nothing.
    public func startOfFrame(number: UInt16, at time: UInt64) {
        guard lastStartOfFrame != time else { return }
        lastStartOfFrame = time
        thrum_fw_usb_sof(firmware, number, deviceClock(atTrueTime: time))
    }

    /// The host's USB IN transfer took the next `bytes` bytes of the device's output (in the order
    /// ``takeOutput()`` gave them) and completed at true time `time` (µs): the firmware takes its
    /// IN-complete interrupt there, reading its clock (`thrum_fw_usb_in_done`), and reports the
    /// departure of the ACK those bytes carried (PROTOCOL.md §3.7). The pump calls it once per
    /// chunk, in order, for every chunk on a link whose device sees its IN transfers.
    public func inTransferCompleted(bytes: Int, at time: UInt64) {
        var left = bytes
        lastPassIdle = false
        while left > 0 {
            let part = min(left, Int(UInt16.max))
            thrum_fw_usb_in_done(firmware, UInt16(part), deviceClock(atTrueTime: time))
            left -= part
        }
    }

    /// Takes the bytes the firmware has written to the host since the last call.
    public func takeOutput() -> [UInt8] {
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    /// The firmware's own counters.
    public var firmwareStatistics: thrum_fw_stats_t { thrum_fw_stats(firmware).pointee }

    /// Free segment slots, as the firmware would report them.
    public var freeSlots: Int { Int(thrum_fw_free_slots(firmware)) }

    /// The library the firmware selected: its record's sequence number, size, CRC-32 and slot;
    /// nil when none is stored.
    public var activeLibrary: (seq: UInt32, size: UInt32, crc: UInt32, slot: UInt8)? {
        var seq: UInt32 = 0, size: UInt32 = 0, crc: UInt32 = 0, slot: UInt8 = 0
        guard thrum_fw_library_active(firmware, &seq, &size, &crc, &slot) != 0 else { return nil }
        return (seq, size, crc, slot)
    }

    /// Sets trigger input `input` (0…7) active or not, now, and runs the firmware at once, as a
    /// pin-change interrupt wakes the main loop.
    public func setTrigger(_ input: Int, active: Bool) {
        precondition((0..<8).contains(input), "trigger inputs are 0…7")
        let bit = UInt8(1) << UInt8(input)
        triggerLevels = active ? triggerLevels | bit : triggerLevels & ~bit
        runMainLoopPass()
    }

    // MARK: Firmware glue

    private func runMainLoopPass() {
        let started = now
        let probing = chip.isAtRest && output.isEmpty
        if probing { stateBefore.copyMemory(from: firmware, byteCount: MemoryLayout<thrum_fw_t>.size) }
        busTime = 0
        thrum_fw_poll(firmware)
        passesRun += 1
        lastPassIdle = probing && busTime == 0 && output.isEmpty && onlyStampsChanged()
        settleBusTime()
        lastPassEnd = now
        if nextPoll <= started { nextPoll = max(nextPoll + configuration.pollInterval, now) }
    }

    /// Whether the firmware's state is what ``stateBefore`` holds but for the stamps every pass
    /// writes (`sched.known_at`, `sched.last_status_time`).
    private func onlyStampsChanged() -> Bool {
        let after = UnsafeRawPointer(firmware)
        for offset in Self.stampOffsets {
            stateBefore.storeBytes(of: after.load(fromByteOffset: offset, as: UInt32.self), toByteOffset: offset, as: UInt32.self)
        }
        return memcmp(stateBefore, after, MemoryLayout<thrum_fw_t>.size) == 0
    }

    private static let stampOffsets: [Int] = [\thrum_fw_t.sched.known_at, \thrum_fw_t.sched.last_status_time].map {
        MemoryLayout<thrum_fw_t>.offset(of: $0)!
    }

    /// Time the firmware spent on the bus during a call happened on the device's timeline.
    private func settleBusTime() {
        if busTime > 0 {
            now += busTime
            busTime = 0
            chip.advance(to: now)
        }
    }

    fileprivate var instantNow: UInt64 { now + busTime }

    fileprivate func clockRead() -> UInt32 { deviceClock(atTrueTime: instantNow) }

    fileprivate func busWrite(address: UInt8, bytes: [UInt8]) -> Int32 {
        busTime += busDuration(bytes: bytes.count)
        chip.advance(to: instantNow)
        if !configuration.driverOnBus && address == configuration.chip.address { return I2CError.noDevice(address: address).errno }
        return chip.write(address: address, bytes: bytes, at: instantNow)
    }

    fileprivate func busRead(address: UInt8, register: UInt8, count: Int) -> (Int32, [UInt8]) {
        // Address + register, repeated start, address + count bytes.
        busTime += busDuration(bytes: 1) + busDuration(bytes: count)
        chip.advance(to: instantNow)
        if !configuration.driverOnBus && address == configuration.chip.address {
            return (I2CError.noDevice(address: address).errno, [])
        }
        return chip.readStatus(address: address, register: register, count: count, at: instantNow)
    }

    fileprivate func delay(_ us: UInt32) {
        busTime += UInt64(us)
        chip.advance(to: instantNow)
    }

    fileprivate func serialWrite(_ bytes: UnsafeBufferPointer<UInt8>) {
        output.append(contentsOf: bytes)
    }

    /// An EEPROM random read: address (2 bytes) written, repeated start, `count` bytes read.
    fileprivate func storageRead(address: UInt32, out: UnsafeMutablePointer<UInt8>?, count: Int) -> Int32 {
        guard let storage = configuration.storage, let out, let bytes = storage.read(Int(address), count: count) else { return -5 }
        busTime += busDuration(bytes: 2) + busDuration(bytes: count)
        for (i, b) in bytes.enumerated() { out[i] = b }
        return 0
    }

    /// An EEPROM page write: address and data on the bus, then the part's write cycle.
    fileprivate func storageWrite(address: UInt32, bytes: [UInt8]) -> Int32 {
        guard let storage = configuration.storage else { return -5 }
        busTime += busDuration(bytes: 2 + bytes.count) + storage.writeCycleMicroseconds
        return storage.write(Int(address), bytes) ? 0 : -5
    }

    private func busDuration(bytes: Int) -> UInt64 {
        let bits = Double(9 * (bytes + 1) + 2)
        return UInt64((bits / configuration.i2cClockHz * 1e6).rounded(.up))
    }

    private func makeHAL() -> thrum_hal_t {
        var hal = thrum_hal_t()
        hal.ctx = Unmanaged.passUnretained(self).toOpaque()
        hal.clock_us = { ctx in VirtualDevice.from(ctx).clockRead() }
        hal.i2c_write = { ctx, address, data, length in
            let bytes = Array(UnsafeBufferPointer(start: data, count: Int(length)))
            return VirtualDevice.from(ctx).busWrite(address: address, bytes: bytes)
        }
        hal.i2c_read = { ctx, address, register, out, length in
            let (status, bytes) = VirtualDevice.from(ctx).busRead(address: address, register: register, count: Int(length))
            if status == 0, let out {
                for (i, b) in bytes.prefix(Int(length)).enumerated() { out[i] = b }
            }
            return status
        }
        hal.serial_write = { ctx, data, length in
            VirtualDevice.from(ctx).serialWrite(UnsafeBufferPointer(start: data, count: Int(length)))
        }
        hal.delay_us = { ctx, us in VirtualDevice.from(ctx).delay(us) }
        if configuration.storage != nil {
            hal.storage_read = { ctx, address, out, length in
                VirtualDevice.from(ctx).storageRead(address: address, out: out, count: Int(length))
            }
            hal.storage_write = { ctx, address, data, length in
                let bytes = Array(UnsafeBufferPointer(start: data, count: Int(length)))
                return VirtualDevice.from(ctx).storageWrite(address: address, bytes: bytes)
            }
        }
        hal.trigger_read = { ctx in VirtualDevice.from(ctx).triggerLevels }
        return hal
    }

    private static func from(_ ctx: UnsafeMutableRawPointer?) -> VirtualDevice {
        Unmanaged<VirtualDevice>.fromOpaque(ctx!).takeUnretainedValue()
    }
}
