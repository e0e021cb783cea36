/// A USB-to-serial bridge of the FTDI kind (FT232R, FT232BM…) between the host and a UART
/// microcontroller.
///
/// Host → device: the bytes go out in the next 1 ms USB frame, then cross the UART.
///
/// Device → host (FTDI application note AN232B-04, "Small amounts of data and end of buffer
/// conditions"): bytes cross the UART into the bridge's buffer. The bridge sends a packet to the
/// host when the buffer holds `flushThreshold` bytes (62: a 64-byte packet less the two status
/// bytes), or when its latency timer expires. The timer measures the time since data was last
/// sent to the host and restarts at every transfer; when it expires the bridge sends its two
/// status bytes and whatever the buffer holds, even nothing. So an idle bridge ticks every
/// `latencyTimer`, and a short reply waits for the next tick: between 0 and `latencyTimer`, not
/// always the whole timer. The host picks the packet up at the next USB frame.
///
/// Simplification: a chunk's delivery time is decided when it is written, so bytes that fill the
/// buffer later do not pull an earlier chunk's delivery forward (only the filling chunk flushes).
public struct FtdiLink: LinkModel, Sendable {
    /// The serial side.
    public var uart: UartLink
    /// The bridge's UART at the rate the host set (the host knows the chip by its USB ids).
    public var lineByteTime: Double? { uart.byteTime }
    /// The bridge's latency timer, µs.
    public var latencyTimer: UInt64
    /// Buffered bytes that trigger an immediate transfer.
    public var flushThreshold: Int
    /// USB frame period, µs.
    public var framePeriod: UInt64
    private var buffered = 0
    /// When the bridge's latency timer last restarted (its last transfer to the host, status-only
    /// ones included); it expires every `latencyTimer` from there.
    private var lastTransfer: UInt64
    /// When the bytes now in the buffer go out (nil: the buffer is empty).
    private var pendingFlush: UInt64?
    private var lastDelivery: [LinkDirection: UInt64] = [:]

    /// Creates a bridge; the defaults are the FTDI factory settings at 115 200 baud. `timerPhase`
    /// (µs, modulo the timer) places the bridge's timer: it is not in step with anything the host does.
    public init(
        uart: UartLink = UartLink(), latencyTimer: UInt64 = 16_000, flushThreshold: Int = 62, framePeriod: UInt64 = 1_000,
        timerPhase: UInt64 = 0
    ) {
        precondition(latencyTimer > 0)
        self.uart = uart
        self.latencyTimer = latencyTimer
        self.flushThreshold = flushThreshold
        self.framePeriod = framePeriod
        lastTransfer = timerPhase % latencyTimer
    }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        var arrival: UInt64
        switch direction {
        case .hostToDevice:
            guard let end = uart.deliverFromUSB(&bytes, writtenAt: time, framePeriod: framePeriod) else { return nil }
            arrival = end
        case .deviceToHost:
            guard let inBridge = uart.deliver(&bytes, writtenAt: time, direction: .deviceToHost) else { return nil }
            var flush: UInt64
            if let pending = pendingFlush, inBridge < pending {
                // Joins the bytes already waiting for the next tick.
                flush = pending
                buffered += bytes.count
            } else {
                if let pending = pendingFlush { lastTransfer = pending }
                // Ticks that passed with an empty buffer sent status bytes only (and restarted the timer).
                let periods = inBridge > lastTransfer ? (inBridge - lastTransfer + latencyTimer - 1) / latencyTimer : 0
                flush = lastTransfer + periods * latencyTimer
                buffered = bytes.count
            }
            if buffered >= flushThreshold {
                // A full packet goes at once; what is left over waits for the timer restarted there.
                flush = inBridge
                buffered %= flushThreshold
                lastTransfer = inBridge
                pendingFlush = buffered > 0 ? inBridge + latencyTimer : nil
            } else {
                pendingFlush = flush
            }
            arrival = (flush / framePeriod + 1) * framePeriod
        }
        arrival = max(arrival, lastDelivery[direction] ?? 0)
        lastDelivery[direction] = arrival
        return arrival
    }
}

/// A USB-to-serial bridge of the WCH CH340 kind.
///
/// Host → device as for ``FtdiLink``: the next 1 ms USB frame, then the UART.
///
/// Device → host: the CH340 has no host-visible latency timer. With the prescaler setting the
/// Linux `ch341` driver writes (the bit that stops the chip buffering received data), received
/// bytes are handed to the bulk IN endpoint once the line has been idle for `idleTimeout` (about
/// two character times), or at once when `packetSize` (32) bytes are waiting; the host collects
/// them at its next 1 ms IN poll. This is an approximation from the driver's behaviour, not a
/// documented timing: the vendor's datasheet gives none.
public struct Ch340Link: LinkModel, Sendable {
    /// The serial side.
    public var uart: UartLink
    /// The bridge's UART at the rate the host set (the host knows the chip by its USB ids).
    public var lineByteTime: Double? { uart.byteTime }
    /// Line idle time after which received bytes are handed to USB, µs.
    public var idleTimeout: UInt64
    /// Bulk IN packet size.
    public var packetSize: Int
    /// USB frame period, µs.
    public var framePeriod: UInt64
    private var lastDelivery: [LinkDirection: UInt64] = [:]

    /// Creates a bridge at `uart`'s baud rate; the idle timeout defaults to two character times.
    public init(uart: UartLink = UartLink(), idleTimeout: UInt64? = nil, packetSize: Int = 32, framePeriod: UInt64 = 1_000) {
        self.uart = uart
        self.idleTimeout = idleTimeout ?? UInt64((2 * uart.byteTime).rounded(.up))
        self.packetSize = packetSize
        self.framePeriod = framePeriod
    }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        var arrival: UInt64
        switch direction {
        case .hostToDevice:
            guard let end = uart.deliverFromUSB(&bytes, writtenAt: time, framePeriod: framePeriod) else { return nil }
            arrival = end
        case .deviceToHost:
            let count = bytes.count
            guard let inBridge = uart.deliver(&bytes, writtenAt: time, direction: .deviceToHost) else { return nil }
            // Whole packets go as soon as they fill; the tail waits for the line to go idle.
            let handed = count % packetSize == 0 ? inBridge : inBridge + idleTimeout
            arrival = (handed / framePeriod + 1) * framePeriod
        }
        arrival = max(arrival, lastDelivery[direction] ?? 0)
        lastDelivery[direction] = arrival
        return arrival
    }
}

extension UartLink {
    /// Host → device through a USB-to-serial bridge: the bytes leave the host in the next USB
    /// frame, then cross this UART.
    mutating func deliverFromUSB(_ bytes: inout [UInt8], writtenAt time: UInt64, framePeriod: UInt64) -> UInt64? {
        deliver(&bytes, writtenAt: (time / framePeriod + 1) * framePeriod, direction: .hostToDevice)
    }
}
