/// Where an event of a pattern read from AHAP was written: the path of one of its members in the
/// document (`Pattern[3].Event.EventDuration`) and the line and column of that member's value.
///
/// The reader keeps no source positions in the model (a million events would carry them all), so
/// a check made after reading — the virtual device's limits on a play — finds its event again
/// from the text with ``AHAPReader/source(ofEvent:member:inFileAt:)``, only when it has something
/// to say about it.
public struct AHAPEventSource: Equatable, Sendable, CustomStringConvertible {
    /// Path of the member (or of the event when it has none of the keys asked for), e.g.
    /// `Pattern[3].Event.EventDuration` (array indices 0-based).
    public var path: String
    /// 1-based line of the member's value.
    public var line: Int
    /// 1-based column, in characters, of the member's value.
    public var column: Int

    /// Creates a source.
    public init(path: String, line: Int, column: Int) {
        self.path = path
        self.line = line
        self.column = column
    }

    /// `line:column: path`, to follow a file name and a colon.
    public var description: String { "\(line):\(column): \(path)" }
}

extension AHAPReader {
    /// Where `events[index]` of the pattern this reader reads from the file at `path` was
    /// written: the `index`-th `Event` element in document order, as the reader appends them, and
    /// within it the first of `keys` it has (`[.time, .eventTime]`: the time Core Haptics
    /// reads), else the event itself. Nil when the file no longer reads or holds fewer events.
    /// Reads the file again, one `Pattern` element at a time (memory follows an element, not
    /// the file).
    public func source(ofEvent index: Int, member keys: [HapticPattern.Key], inFileAt path: String) -> AHAPEventSource?
    {
        guard case .success(let bytes) = PatternFile.bytes(at: path) else { return nil }
        return source(ofEvent: index, member: keys, in: bytes)
    }

    /// Where `events[index]` of the pattern this reader reads from `bytes` was written (see
    /// ``source(ofEvent:member:inFileAt:)``).
    public func source(ofEvent index: Int, member keys: [HapticPattern.Key], in bytes: [UInt8]) -> AHAPEventSource? {
        var sink = EventSourceSink(wanted: index, keys: keys)
        var scanner = JSONScanner(bytes: bytes, options: options.lenient ? .lenient : .strict)
        scanner.vocabulary = AHAPDecoder.vocabulary
        do {
            _ = try scanner.parseTape(streaming: HapticPattern.Key.pattern.rawValue, into: &sink)
        } catch {
            return nil
        }
        return sink.found
    }
}

/// Counts the `Event` elements of the streamed `Pattern` array as the decoder appends them (an
/// object with an `Event` member: one event however often the key repeats, the last one read),
/// and notes where the wanted one's member is.
private struct EventSourceSink: JSONElementSink {
    let wanted: Int
    let keys: [HapticPattern.Key]
    private var events = 0
    private(set) var found: AHAPEventSource?

    init(wanted: Int, keys: [HapticPattern.Key]) {
        self.wanted = wanted
        self.keys = keys
    }

    mutating func beginArray() {
        events = 0
        found = nil
    }

    mutating func element(_ value: JSONTapeValue, index: Int) {
        guard let event = value.members?.reversed().first(where: { AHAPDecoder.Key($0) == .event })?.value else {
            return
        }
        defer { events += 1 }
        guard events == wanted else { return }
        let element = "Pattern[\(index)].Event"
        // Keys told apart as the decoder tells them (by their vocabulary id: an escaped spelling
        // is not the key), the last of a repeated one as the one read.
        let members = event.members?.reversed() ?? []
        if let member = keys.lazy.compactMap({ key in members.first { AHAPDecoder.Key($0)?.text == key.rawValue } })
            .first
        {
            found = AHAPEventSource(
                path: element + "." + member.key, line: member.value.position.line, column: member.value.position.column
            )
        } else {
            found = AHAPEventSource(path: element, line: event.position.line, column: event.position.column)
        }
    }
}
