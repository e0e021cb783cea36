/// Strings a document repeats (an AHAP file's keys and names), made once: for a plain ASCII
/// string with the same bytes the scanner hands out the stored string instead of building (and
/// validating) it again. The same value either way, only cheaper.
struct JSONVocabulary: Sendable {
    /// The words' bytes, one after another.
    private let bytes: [UInt8]
    /// Per word, ordered by length: where its bytes start in `bytes`, and the string.
    private let offsets: [Int]
    private let texts: [String]
    /// Words of `n` bytes are `offsets[first[n]..<first[n + 1]]` (n < `first.count − 1`).
    private let first: [Int]

    /// A vocabulary of `words` (ASCII; others are left out, as are duplicates).
    init(_ words: [String]) {
        var unique: [String] = []
        for w in words where w.utf8.allSatisfy({ $0 < 0x80 }) && !unique.contains(w) { unique.append(w) }
        unique.sort { $0.utf8.count < $1.utf8.count }
        let longest = unique.last?.utf8.count ?? 0
        var bytes: [UInt8] = [], offsets: [Int] = [], first = [Int](repeating: 0, count: longest + 2)
        for w in unique {
            offsets.append(bytes.count)
            bytes.append(contentsOf: w.utf8)
        }
        var i = 0
        for n in 0...longest + 1 {
            while i < unique.count && unique[i].utf8.count < n { i += 1 }
            first[n] = i
        }
        self.bytes = bytes
        self.offsets = offsets
        self.texts = unique
        self.first = first
    }

    /// The stored word with the bytes `text`, if there is one.
    @inline(__always)
    func word(_ text: UnsafeBufferPointer<UInt8>) -> String? {
        let n = text.count
        guard n + 1 < first.count else { return nil }
        var k = first[n]
        let end = first[n + 1]
        guard k < end else { return nil }
        return bytes.withUnsafeBufferPointer { stored -> String? in
            while k < end {
                let o = offsets[k]
                var j = n - 1
                while j >= 0 && stored[o + j] == text[j] { j -= 1 }
                if j < 0 { return texts[k] }
                k += 1
            }
            return nil
        }
    }
}
