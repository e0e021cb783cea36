/// A plain asynchronous serial line at `baud` (8N1: 10 bit times per byte), each direction
/// independent, plus an optional fixed latency. A chunk arrives when its last byte has been
/// shifted in; a chunk written while the line is busy waits for it.
public struct UartLink: LinkModel, Sendable {
    /// Line rate in bit/s.
    public var baud: Double
    /// Fixed extra latency in µs (level shifters, interrupt entry).
    public var latency: UInt64
    /// Whether the host's port is the UART and says so (a serial port the host opened at this
    /// rate), or not (a pseudo-terminal in front of a simulated UART: the host knows no rate).
    public var hostSeesUart: Bool
    private var busyUntil: [LinkDirection: Double] = [:]

    /// Creates a line at `baud`.
    public init(baud: Double = 115_200, latency: UInt64 = 0, hostSeesUart: Bool = true) {
        precondition(baud > 0)
        self.baud = baud
        self.latency = latency
        self.hostSeesUart = hostSeesUart
    }

    /// Time to send one byte, µs.
    public var byteTime: Double { 10 / baud * 1e6 }

    /// A serial port at this rate (the host set it), unless the host sees none.
    public var lineByteTime: Double? { hostSeesUart ? byteTime : nil }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        let start = max(Double(time), busyUntil[direction] ?? 0)
        let end = start + byteTime * Double(bytes.count)
        busyUntil[direction] = end
        return UInt64(end.rounded(.up)) + latency
    }
}
