import ThrumTime

/// A link with its own delay on each leg, stalls, and a return path that releases bytes only on a
/// timer's tick: the kinds of link the catalogue's models do not contain (a slow return leg behind
/// a hub, a bridge that batches replies, a bursty radio or network hop), for checking that a
/// reported bound holds on links Thrum never modelled (`thrum sim --link out=…,back=…`).
///
/// Bytes keep their order on each leg, as on any serial path: a chunk never arrives before the
/// one written ahead of it in the same direction. Deterministic for a seed.
public struct DelayLink: LinkModel {
    /// What the link does; see ``LinkSpec`` for the text form.
    public struct Shape: Sendable, Hashable {
        /// Delay of each host → device chunk, µs.
        public var outbound: JitterDistribution = .none
        /// Delay of each device → host chunk, µs.
        public var inbound: JitterDistribution = .none
        /// Probability that a chunk (either way) meets a stall; everything behind it on its leg waits too.
        public var stallProbability = 0.0
        /// How long a stall holds its chunk, µs.
        public var stallLength: JitterDistribution = .none
        /// Device → host bytes are handed over only at multiples of this (µs of true time; 0: at once),
        /// as a bridge's latency timer or a polling reader releases them.
        public var returnTick: UInt64 = 0
        /// Time one byte takes on the line, µs, both ways (0: none).
        public var byteTime = 0.0
        /// Delay steps: from true time `at` (µs since the link began) on, every chunk either way
        /// is delayed a further `extra` µs — a link that degrades (a route change, a radio falling
        /// back to a slower rate, a bridge under load). Steps add up.
        public var steps: [DelayStep] = []

        /// No delay at all.
        public init() {}
    }

    /// From true time `at` (µs) on, `extra` µs more delay on each leg (``Shape/steps``).
    public struct DelayStep: Sendable, Hashable {
        public var at: UInt64
        public var extra: UInt64

        /// A step of `extra` µs at `at` µs.
        public init(at: UInt64, extra: UInt64) {
            self.at = at
            self.extra = extra
        }
    }

    /// The link's shape.
    public let shape: Shape
    private var rng: SplitMix64
    private var lastArrival: [LinkDirection: UInt64] = [:]
    private var lineFree: [LinkDirection: Double] = [:]
    /// Chunks held by a stall so far, both ways.
    public private(set) var stalledChunks = 0

    /// Creates the link with `shape`, drawing its delays from `seed`.
    public init(shape: Shape, seed: UInt64 = 1) {
        self.shape = shape
        rng = SplitMix64(seed: seed ^ 0xDE1A_7111)
    }

    public mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        // The line: bytes leave one after another.
        let start = max(Double(time), lineFree[direction] ?? 0)
        let sent = start + shape.byteTime * Double(bytes.count)
        lineFree[direction] = sent
        var arrival = UInt64(sent.rounded(.up))
        arrival += (direction == .hostToDevice ? shape.outbound : shape.inbound).sample(&rng)
        for step in shape.steps where time >= step.at { arrival += step.extra }
        if rng.chance(shape.stallProbability) {
            stalledChunks += 1
            arrival += shape.stallLength.sample(&rng)
        }
        if direction == .deviceToHost, shape.returnTick > 0 {
            let tick = shape.returnTick
            arrival = (arrival + tick - 1) / tick * tick
        }
        arrival = max(arrival, lastArrival[direction] ?? 0)
        lastArrival[direction] = arrival
        return arrival
    }
}

/// The text of `thrum sim --link SPEC`: a link from the catalogue by name (`usb-fs`,
/// `ftdi-115200-16ms`, …; ``LinkCatalogue``), applied to the bytes on the real pseudo-terminal, or
/// a ``DelayLink`` described item by item:
///
///     out=A[-B]        each host → device chunk is delayed A, or uniformly A to B (with a unit: us, ms, s)
///     back=A[-B]       the same for device → host chunks
///     stall=A[-B]@P    with probability P (0…1 or a percentage) a chunk is held a further A to B;
///                      everything behind it on its leg waits too (bursts)
///     tick=T           device → host bytes are released only at multiples of T
///     step=A@T         from T (since the link began) on, each chunk either way is delayed a further A
///                      (a link that degrades; give it again for more steps, which add up)
///     baud=N           each byte takes 10 bits at N baud, both ways
///     seed=N           the random seed (default 1)
///
/// For example `out=0.3-0.6ms,back=2-6ms` (asymmetric), `out=0.2-1ms,back=0.2-1ms,stall=20-80ms@2%`
/// (bursty), `tick=8ms` (return bytes on an 8 ms tick), `out=40ms,back=40ms,step=60ms@2s` (an 80 ms
/// round trip that becomes 200 ms two seconds in). Loss and bit flips come from `--fault`.
public enum LinkSpec {
    /// Builds the link `text` describes, or throws with the offending item and what was expected.
    public static func link(parsing text: String) throws(FaultPlan.ParseError) -> any LinkModel {
        if let profile = LinkCatalogue.profile(named: text) {
            return LiveLink(base: profile.make(1))
        }
        let (shape, seed) = try shape(parsing: text)
        return DelayLink(shape: shape, seed: seed)
    }

    /// The link `text` describes as a profile for the virtual device (`thrum play --link`): a
    /// catalogue model as it is (its host wake-ups included), or a ``DelayLink`` named `text`,
    /// whose own `seed=` item (default 1) draws its delays whatever the run's seed.
    public static func profile(parsing text: String) throws(FaultPlan.ParseError) -> LinkProfile {
        if let profile = LinkCatalogue.profile(named: text) { return profile }
        let (shape, seed) = try shape(parsing: text)
        return LinkProfile(name: text, summary: "a link described item by item") { _ in DelayLink(shape: shape, seed: seed) }
    }

    /// The shape and seed of a link described item by item.
    static func shape(parsing text: String) throws(FaultPlan.ParseError) -> (DelayLink.Shape, UInt64) {
        var shape = DelayLink.Shape()
        var seed: UInt64 = 1
        var seen: Set<String> = []
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0.filter { $0 != " " }) }
        for item in items {
            guard let eq = item.firstIndex(of: "=") else { throw FaultPlan.ParseError(item: item, expected: known) }
            let key = String(item[..<eq]), value = String(item[item.index(after: eq)...])
            guard key == "step" || seen.insert(key).inserted else { throw FaultPlan.ParseError(item: item, expected: "'\(key)' is given twice") }
            switch key {
            case "out": shape.outbound = try range(value, item: item)
            case "back": shape.inbound = try range(value, item: item)
            case "stall":
                let parts = value.split(separator: "@", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2 else { throw FaultPlan.ParseError(item: item, expected: "stall=A-B@P, e.g. stall=20-80ms@2%") }
                shape.stallLength = try range(parts[0], item: item)
                shape.stallProbability = try FaultPlan.probability(parts[1], item: item)
            case "step":
                let parts = value.split(separator: "@", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2 else { throw FaultPlan.ParseError(item: item, expected: "step=A@T, e.g. step=60ms@2s") }
                shape.steps.append(
                    DelayLink.DelayStep(
                        at: try FaultPlan.duration(parts[1], item: item), extra: try FaultPlan.duration(parts[0], item: item)))
            case "tick":
                let tick = try FaultPlan.duration(value, item: item)
                guard tick > 0 else { throw FaultPlan.ParseError(item: item, expected: "a tick longer than 0") }
                shape.returnTick = tick
            case "baud":
                guard let baud = Double(value), baud.isFinite, (300...20_000_000).contains(baud) else {
                    throw FaultPlan.ParseError(item: item, expected: "a baud rate from 300 to 20000000")
                }
                shape.byteTime = 10e6 / baud
            case "seed":
                guard let s = UInt64(value) else { throw FaultPlan.ParseError(item: item, expected: "a whole number ≥ 0") }
                seed = s
            default:
                throw FaultPlan.ParseError(item: item, expected: known)
            }
        }
        return (shape, seed)
    }

    static var known: String {
        "expected a link name (" + LinkCatalogue.all.map(\.name).joined(separator: ", ")
            + ") or items out=A-B, back=A-B, stall=A-B@P, tick=T, step=A@T, baud=N, seed=N"
    }

    /// `2ms` or `0.3-0.6ms` (one unit for both ends) → a uniform distribution, µs.
    static func range(_ text: String, item: String) throws(FaultPlan.ParseError) -> JitterDistribution {
        guard let dash = text.firstIndex(of: "-") else {
            let d = try FaultPlan.duration(text, item: item)
            return .uniform(d...d)
        }
        let unit = String(text.reversed().prefix { $0.isLetter }.reversed())
        var low = String(text[..<dash])
        if low.last?.isLetter != true { low += unit }
        let a = try FaultPlan.duration(low, item: item)
        let b = try FaultPlan.duration(String(text[text.index(after: dash)...]), item: item)
        guard a <= b else { throw FaultPlan.ParseError(item: item, expected: "a range from the smaller to the larger, e.g. 2-6ms") }
        return .uniform(a...b)
    }
}

/// A catalogue model applied in real time: its deliveries only. The host's wake-up latency is the
/// real host's own, and a pseudo-terminal carries no USB frames or IN transfers to the device.
struct LiveLink: LinkModel {
    var base: any LinkModel

    mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        base.deliver(&bytes, writtenAt: time, direction: direction)
    }
}
