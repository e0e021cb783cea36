/// Telnet framing (RFC 854) as a client of a serial port server speaking the COM-PORT-OPTION
/// (RFC 2217), such as ser2net's `telnet(rfc2217)` accepter or pySerial's server.
///
/// The data stream escapes 0xFF (IAC) as IAC IAC; commands (WILL/WONT/DO/DONT option, IAC SB …
/// IAC SE subnegotiations, NOP and friends) are interleaved with it. The decoder keeps its state
/// across reads (a command can be split between two), answers the server's option requests the
/// way the client wants them (BINARY, SUPPRESS-GO-AHEAD and COM-PORT-OPTION accepted, everything
/// else refused, and only on a change, so two peers never loop), and hands back the data bytes.
/// Without BINARY from the server, "CR NUL" is a plain CR (RFC 854); the client asks for BINARY
/// both ways, which ser2net grants.
public struct TelnetCodec: Sendable {
    /// Telnet bytes.
    public enum Byte {
        public static let iac: UInt8 = 255
        public static let dont: UInt8 = 254
        public static let `do`: UInt8 = 253
        public static let wont: UInt8 = 252
        public static let will: UInt8 = 251
        public static let sb: UInt8 = 250
        public static let se: UInt8 = 240
    }

    /// Options.
    public enum Option {
        public static let binary: UInt8 = 0
        public static let suppressGoAhead: UInt8 = 3
        public static let comPort: UInt8 = 44
    }

    /// RFC 2217 COM-PORT-OPTION commands (client to server; the server answers with +100).
    public enum ComPortCommand {
        public static let setBaudRate: UInt8 = 1
        public static let setDataSize: UInt8 = 2
        public static let setParity: UInt8 = 3
        public static let setStopSize: UInt8 = 4
        public static let setControl: UInt8 = 5
    }

    private enum State: Sendable {
        case data
        case iac
        case option(verb: UInt8)
        case subnegotiation
        case subnegotiationIAC
        case carriageReturn
    }

    private var state = State.data
    private var subnegotiation: [UInt8] = []
    /// Options this side has agreed to perform (WILL sent and not withdrawn).
    private(set) var localEnabled: Set<UInt8> = []
    /// Options the server has agreed to perform (its WILL answered with DO).
    private(set) var remoteEnabled: Set<UInt8> = []
    /// Subnegotiations received (IAC SB … IAC SE, without the framing), oldest first.
    public private(set) var subnegotiations: [[UInt8]] = []

    /// Options the client performs on request.
    static let acceptedLocal: Set<UInt8> = [Option.binary, Option.suppressGoAhead, Option.comPort]
    /// Options the client lets the server perform.
    static let acceptedRemote: Set<UInt8> = [Option.binary, Option.suppressGoAhead]

    public init() {}

    /// What the client sends first: WILL and DO BINARY, WILL and DO SUPPRESS-GO-AHEAD, WILL
    /// COM-PORT-OPTION; then the line settings (`baud`, 8 data bits, no parity, 1 stop bit, no
    /// flow control) as COM-PORT-OPTION subnegotiations. Marks the offered options as pending
    /// agreement, so the server's confirmations are not answered again.
    public mutating func opening(baud: Int) -> [UInt8] {
        var out: [UInt8] = []
        for option in [Option.binary, Option.suppressGoAhead, Option.comPort] {
            out += [Byte.iac, Byte.will, option]
            localEnabled.insert(option)
        }
        for option in [Option.binary, Option.suppressGoAhead] {
            out += [Byte.iac, Byte.do, option]
            remoteEnabled.insert(option)
        }
        let b = UInt32(clamping: max(0, baud))
        out += Self.subnegotiation([
            Option.comPort, ComPortCommand.setBaudRate, UInt8(b >> 24), UInt8(b >> 16 & 0xFF), UInt8(b >> 8 & 0xFF),
            UInt8(b & 0xFF),
        ])
        out += Self.subnegotiation([Option.comPort, ComPortCommand.setDataSize, 8])
        out += Self.subnegotiation([Option.comPort, ComPortCommand.setParity, 1])
        out += Self.subnegotiation([Option.comPort, ComPortCommand.setStopSize, 1])
        out += Self.subnegotiation([Option.comPort, ComPortCommand.setControl, 1])
        return out
    }

    /// IAC SB `body` IAC SE, with 0xFF in the body doubled.
    static func subnegotiation(_ body: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [Byte.iac, Byte.sb]
        for b in body {
            out.append(b)
            if b == Byte.iac { out.append(Byte.iac) }
        }
        return out + [Byte.iac, Byte.se]
    }

    /// Data to send: 0xFF doubled; a CR followed by NUL unless the server agreed to receive
    /// BINARY (our WILL BINARY confirmed).
    public func encode(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 4)
        let binary = localEnabled.contains(Option.binary)
        for b in data {
            out.append(b)
            if b == Byte.iac { out.append(Byte.iac) }
            if b == 13 && !binary { out.append(0) }
        }
        return out
    }

    /// Feeds bytes from the server: returns the data bytes in them and the replies to send back.
    public mutating func decode(_ bytes: [UInt8]) -> (data: [UInt8], replies: [UInt8]) {
        var data: [UInt8] = []
        var replies: [UInt8] = []
        for b in bytes {
            switch state {
            case .data:
                if b == Byte.iac {
                    state = .iac
                } else {
                    data.append(b)
                    if b == 13 && !remoteEnabled.contains(Option.binary) { state = .carriageReturn }
                }
            case .carriageReturn:
                state = .data
                if b == 0 { continue }  // CR NUL is a plain CR
                if b == Byte.iac {
                    state = .iac
                } else {
                    data.append(b)
                    if b == 13 { state = .carriageReturn }
                }
            case .iac:
                switch b {
                case Byte.iac:
                    data.append(Byte.iac)
                    state = .data
                case Byte.will, Byte.wont, Byte.do, Byte.dont:
                    state = .option(verb: b)
                case Byte.sb:
                    subnegotiation = []
                    state = .subnegotiation
                default:
                    state = .data  // NOP, GA, AYT…: nothing to do
                }
            case .option(let verb):
                replies += answer(verb: verb, option: b)
                state = .data
            case .subnegotiation:
                if b == Byte.iac { state = .subnegotiationIAC } else { subnegotiation.append(b) }
            case .subnegotiationIAC:
                if b == Byte.se {
                    subnegotiations.append(subnegotiation)
                    if subnegotiations.count > 64 { subnegotiations.removeFirst(subnegotiations.count - 64) }
                    state = .data
                } else {
                    subnegotiation.append(b)  // IAC IAC inside: one 0xFF
                    state = .subnegotiation
                }
            }
        }
        return (data, replies)
    }

    /// The reply to one option request, changing the agreed state (RFC 1143's rule: answer only
    /// a request that changes the state).
    private mutating func answer(verb: UInt8, option: UInt8) -> [UInt8] {
        switch verb {
        case Byte.do:
            if localEnabled.contains(option) { return [] }
            if Self.acceptedLocal.contains(option) {
                localEnabled.insert(option)
                return [Byte.iac, Byte.will, option]
            }
            return [Byte.iac, Byte.wont, option]
        case Byte.dont:
            guard localEnabled.contains(option) else { return [] }
            localEnabled.remove(option)
            return [Byte.iac, Byte.wont, option]
        case Byte.will:
            if remoteEnabled.contains(option) { return [] }
            if Self.acceptedRemote.contains(option) {
                remoteEnabled.insert(option)
                return [Byte.iac, Byte.do, option]
            }
            return [Byte.iac, Byte.dont, option]
        default:  // WONT
            guard remoteEnabled.contains(option) else { return [] }
            remoteEnabled.remove(option)
            return [Byte.iac, Byte.dont, option]
        }
    }
}
