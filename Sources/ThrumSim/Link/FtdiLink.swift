/// A USB-to-serial bridge of the FTDI kind between the host and a UART microcontroller.
///
/// Host → device: the bytes go out in the next 1 ms USB frame, then cross the UART.
/// Device → host: bytes cross the UART into the bridge's buffer, which is sent to the host when it
/// holds `flushThreshold` bytes (62: a 64-byte packet less the two status bytes) or when the
/// latency timer (16 ms by default) expires after the first byte entered the empty buffer; the
/// host then picks it up at the next USB frame.
///
/// Simplification: a chunk's delivery time is decided when it is written, so bytes that fill the
/// buffer later do not pull an earlier chunk's delivery forward (only the filling chunk flushes).
public struct FtdiLink: LinkModel, Sendable {
    /// The serial side.
    public var uart: UartLink
    /// The bridge's latency timer, µs.
    public var latencyTimer: UInt64
    /// Buffered bytes that trigger an immediate transfer.
    public var flushThreshold: Int
    /// USB frame period, µs.
    public var framePeriod: UInt64
    private var buffered = 0
    private var bufferDeadline: UInt64 = 0
    private var lastDelivery: [LinkDirection: UInt64] = [:]

    /// Creates a bridge; the defaults are the FTDI factory settings at 115 200 baud.
    public init(uart: UartLink = UartLink(), latencyTimer: UInt64 = 16_000, flushThreshold: Int = 62, framePeriod: UInt64 = 1_000) {
        self.uart = uart
        self.latencyTimer = latencyTimer
        self.flushThreshold = flushThreshold
        self.framePeriod = framePeriod
    }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        var arrival: UInt64
        switch direction {
        case .hostToDevice:
            let frame = (time / framePeriod + 1) * framePeriod
            guard let end = uart.deliver(&bytes, writtenAt: frame, direction: .hostToDevice) else { return nil }
            arrival = end
        case .deviceToHost:
            guard let inBridge = uart.deliver(&bytes, writtenAt: time, direction: .deviceToHost) else { return nil }
            if buffered == 0 || inBridge >= bufferDeadline {
                buffered = 0
                bufferDeadline = inBridge + latencyTimer
            }
            buffered += bytes.count
            var flush = bufferDeadline
            if buffered >= flushThreshold {
                flush = inBridge
                buffered %= flushThreshold
                bufferDeadline = inBridge + latencyTimer
            }
            arrival = (flush / framePeriod + 1) * framePeriod
        }
        arrival = max(arrival, lastDelivery[direction] ?? 0)
        lastDelivery[direction] = arrival
        return arrival
    }
}
