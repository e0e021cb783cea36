import Foundation
import ThrumTestSupport
import XCTest

/// One line of `firmware-protocol/vectors/wire-vectors.txt`.
struct WireVector {
    let line: Int
    let kind: String
    let name: String
    let columns: [String]
}

enum VectorFile {
    static func load() throws -> [WireVector] {
        let path = PackageRoot.file("firmware-protocol/vectors/wire-vectors.txt").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var vectors: [WireVector] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            precondition(columns.count >= 3, "vector line \(index + 1) is malformed")
            vectors.append(WireVector(line: index + 1, kind: columns[0], name: columns[1], columns: Array(columns[2...])))
        }
        return vectors
    }

    /// Decodes lowercase hex; `.` is the empty byte string.
    static func bytes(_ hex: String) -> [UInt8] {
        if hex == "." { return [] }
        let chars = Array(hex.utf8)
        precondition(chars.count % 2 == 0, "odd hex length")
        return stride(from: 0, to: chars.count, by: 2).map { i in
            UInt8(String(decoding: chars[i..<(i + 2)], as: UTF8.self), radix: 16)!
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        if bytes.isEmpty { return "." }
        return bytes.map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
    }
}
