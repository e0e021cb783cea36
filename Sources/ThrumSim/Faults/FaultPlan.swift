/// Faults to inject between a host and a virtual device, as `thrum sim --fault` takes them.
///
/// Grammar (comma-separated items, each at most once unless noted):
///
///     loss=P            each chunk of bytes is lost with probability P (0…1, or a percentage: 5%)
///     corrupt=P         each chunk that arrives has one bit flipped with probability P
///     dup=P             each chunk arrives twice in a row with probability P
///     reorder=P         each chunk is held back 2 ms with probability P, so the next overtakes it
///     stall=D@T         nothing crosses the link from T for D (repeatable)
///     disconnect@T      the device goes away at T (the port hangs up)
///     reset@T           the device's microcontroller resets at T (repeatable)
///     seed=N            the random seed (default 1), for reproducible runs
///
/// Durations and times take a unit: `us`, `ms` or `s` (`200ms`, `1.5s`); times count from the
/// device's start. Loss, corruption, duplication and reordering act in both directions.
public struct FaultPlan: Equatable, Sendable {
    /// Probability that a chunk is lost.
    public var loss = 0.0
    /// Probability that an arriving chunk has a bit flipped.
    public var corruption = 0.0
    /// Probability that a chunk arrives twice.
    public var duplication = 0.0
    /// Probability that a chunk is held back so that the next one overtakes it.
    public var reordering = 0.0
    /// Link stalls: (start, length), µs of true time.
    public var stalls: [(start: UInt64, length: UInt64)] = []
    /// When the device disconnects, µs of true time.
    public var disconnect: UInt64?
    /// When the device resets, µs of true time, in order.
    public var resets: [UInt64] = []
    /// Seed of the random draws.
    public var seed: UInt64 = 1

    /// How long a reordered chunk is held back, µs.
    public static let reorderHold: UInt64 = 2_000
    /// The latest time a fault may be scheduled at, µs (one day).
    public static let latestTime: UInt64 = 86_400_000_000

    /// No faults.
    public init() {}

    /// Whether the plan injects nothing.
    public var isEmpty: Bool { self == FaultPlan() }

    /// Whether the link itself is faulty (anything other than device events).
    public var affectsLink: Bool {
        loss > 0 || corruption > 0 || duplication > 0 || reordering > 0 || !stalls.isEmpty
    }

    public static func == (a: FaultPlan, b: FaultPlan) -> Bool {
        a.loss == b.loss && a.corruption == b.corruption && a.duplication == b.duplication
            && a.reordering == b.reordering && a.stalls.map(\.start) == b.stalls.map(\.start)
            && a.stalls.map(\.length) == b.stalls.map(\.length) && a.disconnect == b.disconnect
            && a.resets == b.resets && a.seed == b.seed
    }

    /// Why a fault specification was refused: the offending item and what was expected.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// The item as written (`loss=abc`).
        public var item: String
        /// What was expected instead.
        public var expected: String
        public var description: String { "bad fault '\(item)': \(expected)" }
    }

    /// Parses `loss=0.05,corrupt=0.05,dup=0.01,reorder=0.01,stall=200ms@1.5s,disconnect@2s,reset@3s`.
    public init(parsing text: String) throws(ParseError) {
        self.init()
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map {
            String($0.filter { $0 != " " })
        }
        var seen: Set<String> = []
        for item in items {
            guard !item.isEmpty else {
                throw ParseError(item: text, expected: "an empty item; separate faults with single commas")
            }
            if let eq = item.firstIndex(of: "=") {
                let key = String(item[..<eq]), value = String(item[item.index(after: eq)...])
                if key != "stall" {
                    guard seen.insert(key).inserted else { throw ParseError(item: item, expected: "'\(key)' is given twice") }
                }
                switch key {
                case "loss": loss = try Self.probability(value, item: item)
                case "corrupt": corruption = try Self.probability(value, item: item)
                case "dup": duplication = try Self.probability(value, item: item)
                case "reorder": reordering = try Self.probability(value, item: item)
                case "seed":
                    guard let s = UInt64(value) else { throw ParseError(item: item, expected: "a whole number ≥ 0") }
                    seed = s
                case "stall":
                    let parts = value.split(separator: "@", omittingEmptySubsequences: false).map(String.init)
                    guard parts.count == 2 else {
                        throw ParseError(item: item, expected: "stall=DURATION@TIME, e.g. stall=200ms@1.5s")
                    }
                    let length = try Self.duration(parts[0], item: item)
                    let start = try Self.duration(parts[1], item: item)
                    guard length > 0 else { throw ParseError(item: item, expected: "a stall longer than 0") }
                    stalls.append((start, length))
                default:
                    throw ParseError(item: item, expected: Self.known)
                }
            } else if let at = item.firstIndex(of: "@") {
                let key = String(item[..<at]), value = String(item[item.index(after: at)...])
                let time = try Self.duration(value, item: item)
                switch key {
                case "disconnect":
                    guard disconnect == nil else { throw ParseError(item: item, expected: "'disconnect' is given twice") }
                    disconnect = time
                case "reset": resets.append(time)
                default: throw ParseError(item: item, expected: Self.known)
                }
            } else {
                throw ParseError(item: item, expected: Self.known)
            }
        }
        stalls.sort { $0.start < $1.start }
        resets.sort()
    }

    static let known =
        "expected one of loss=P, corrupt=P, dup=P, reorder=P (P from 0 to 1 or a percentage), stall=D@T, disconnect@T, reset@T, seed=N"

    static func probability(_ text: String, item: String) throws(ParseError) -> Double {
        let expected = "a probability from 0 to 1 (or 0% to 100%)"
        var number = text
        var scale = 1.0
        if number.hasSuffix("%") {
            number.removeLast()
            scale = 0.01
        }
        guard let p = Double(number).map({ $0 * scale }), p.isFinite, (0...1).contains(p) else {
            throw ParseError(item: item, expected: expected)
        }
        return p
    }

    /// `200ms`, `1.5s`, `500us` → µs.
    static func duration(_ text: String, item: String) throws(ParseError) -> UInt64 {
        let expected = "a time with a unit (us, ms or s) from 0 to 86400s, e.g. 200ms or 1.5s"
        let units: [(String, Double)] = [("us", 1), ("ms", 1_000), ("s", 1_000_000)]
        guard let (suffix, scale) = units.first(where: { text.hasSuffix($0.0) }),
            let value = Double(text.dropLast(suffix.count)), value.isFinite, value >= 0
        else { throw ParseError(item: item, expected: expected) }
        let us = (value * scale).rounded()
        guard us <= Double(latestTime) else { throw ParseError(item: item, expected: expected) }
        return UInt64(us)
    }
}
