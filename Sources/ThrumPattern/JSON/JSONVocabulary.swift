/// Strings a document repeats (an AHAP file's keys and names), made once: for a plain ASCII
/// string with the same bytes the scanner hands out the stored string instead of building (and
/// validating) it again. The same value either way, only cheaper. Each word has an id, its place
/// in the list the vocabulary was made from, so that a reader can tell words apart without
/// comparing their text.
struct JSONVocabulary: Sendable {
    /// The words' bytes, one after another.
    private let bytes: [UInt8]
    /// Per word, ordered by length: where its bytes start in `bytes`, and the string.
    private let offsets: [Int]
    private let texts: [String]
    private let ids: [Int16]
    /// Words of `n` bytes are `offsets[first[n]..<first[n + 1]]` (n < `first.count − 1`).
    private let first: [Int]

    /// A vocabulary of `words` (ASCII, at most `Int16.max`; others are left out, as are
    /// duplicates). A word's id is its index in `words` (its first occurrence).
    init(_ words: [String]) {
        var unique: [(text: String, id: Int16)] = []
        for (i, w) in words.prefix(Int(Int16.max)).enumerated()
        where w.utf8.allSatisfy({ $0 < 0x80 }) && !unique.contains(where: { $0.text == w }) {
            unique.append((w, Int16(i)))
        }
        unique.sort { $0.text.utf8.count < $1.text.utf8.count || ($0.text.utf8.count == $1.text.utf8.count && $0.id < $1.id) }
        let longest = unique.last?.text.utf8.count ?? 0
        var bytes: [UInt8] = [], offsets: [Int] = [], first = [Int](repeating: 0, count: longest + 2)
        for w in unique {
            offsets.append(bytes.count)
            bytes.append(contentsOf: w.text.utf8)
        }
        var i = 0
        for n in 0...longest + 1 {
            while i < unique.count && unique[i].text.utf8.count < n { i += 1 }
            first[n] = i
        }
        self.bytes = bytes
        self.offsets = offsets
        self.texts = unique.map(\.text)
        self.ids = unique.map(\.id)
        self.first = first
    }

    /// The stored word with the bytes `text`, if there is one.
    @inline(__always)
    func word(_ text: UnsafeBufferPointer<UInt8>) -> String? {
        lookup(text)?.text
    }

    /// The stored word with the bytes `text` and its id, if there is one.
    @inline(__always)
    func lookup(_ text: UnsafeBufferPointer<UInt8>) -> (id: Int16, text: String)? {
        let n = text.count
        guard n + 1 < first.count else { return nil }
        var k = first[n]
        let end = first[n + 1]
        guard k < end else { return nil }
        return bytes.withUnsafeBufferPointer { stored -> (id: Int16, text: String)? in
            while k < end {
                let o = offsets[k]
                var j = n - 1
                while j >= 0 && stored[o + j] == text[j] { j -= 1 }
                if j < 0 { return (ids[k], texts[k]) }
                k += 1
            }
            return nil
        }
    }

    /// The id of the word `text`, or −1 when it is not one.
    func id(of text: String) -> Int16 {
        var text = text
        return text.withUTF8 { lookup($0)?.id } ?? -1
    }
}
