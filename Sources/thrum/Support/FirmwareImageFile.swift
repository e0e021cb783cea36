import Foundation

/// A firmware image read from disk and checked before anything is written: an Intel HEX file
/// (AVR) or a raw binary (STM32), its bytes laid out from address 0.
struct FirmwareImageFile {
    /// The flash contents from address 0 to the highest byte the file sets (gaps 0xFF).
    let bytes: [UInt8]
    /// Bytes the file sets (what counts against the budget: text + data).
    let programmed: Int
    let path: String

    /// A file that is not an image: the message names the file and line.
    struct Invalid: Error, LocalizedError, CustomStringConvertible {
        let message: String
        var description: String { message }
        var errorDescription: String? { message }
    }

    /// Reads `path`: Intel HEX when it ends in `.hex` or starts with `:`, a raw binary otherwise.
    static func read(_ path: String) throws(Invalid) -> FirmwareImageFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Invalid(message: "\(path): cannot read the image (build it with `thrum firmware build`)")
        }
        if path.hasSuffix(".hex") || data.first == UInt8(ascii: ":") {
            return try parseHex(data, path: path)
        }
        guard !data.isEmpty else { throw Invalid(message: "\(path): the image is empty") }
        return FirmwareImageFile(bytes: [UInt8](data), programmed: data.count, path: path)
    }

    /// Intel HEX: data (00), end (01), segment and linear bases (02, 04); start addresses (03,
    /// 05) are skipped as programmers do. Every record's checksum is checked.
    static func parseHex(_ data: Data, path: String, limit: Int = 1 << 20) throws(Invalid) -> FirmwareImageFile {
        let text = String(decoding: data, as: UTF8.self)
        var memory = [Int: UInt8]()
        var base = 0
        var ended = false
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || ended { continue }
            let where_ = "\(path):\(index + 1):1"
            guard line.first == ":", line.count >= 11, line.count % 2 == 1 else {
                throw Invalid(message: "\(where_): not an Intel HEX record (expected ':' then LL AAAA TT data CC)")
            }
            var record: [UInt8] = []
            var cursor = line.index(after: line.startIndex)
            while cursor < line.endIndex {
                let next = line.index(cursor, offsetBy: 2)
                guard let byte = UInt8(line[cursor..<next], radix: 16) else {
                    throw Invalid(message: "\(where_): '\(line[cursor..<next])' is not a hex byte")
                }
                record.append(byte)
                cursor = next
            }
            let length = Int(record[0])
            guard record.count == length + 5 else {
                throw Invalid(message: "\(where_): the record says \(length) data bytes and holds \(record.count - 5)")
            }
            guard record.reduce(0, { ($0 + Int($1)) & 0xFF }) == 0 else {
                throw Invalid(message: "\(where_): checksum mismatch (the file is damaged)")
            }
            let payload = record[4..<(4 + length)]
            switch record[3] {
            case 0x00:
                let address = base + (Int(record[1]) << 8 | Int(record[2]))
                guard address + length <= limit else {
                    throw Invalid(message: "\(where_): data at 0x\(String(address, radix: 16)) is past any flash")
                }
                for (offset, byte) in payload.enumerated() { memory[address + offset] = byte }
            case 0x01: ended = true
            case 0x02 where length == 2: base = (Int(payload.first!) << 8 | Int(payload.last!)) << 4
            case 0x04 where length == 2: base = (Int(payload.first!) << 8 | Int(payload.last!)) << 16
            case 0x03, 0x05: break
            default:
                throw Invalid(message: "\(where_): record type \(record[3]) is not one a firmware image uses")
            }
        }
        guard ended else { throw Invalid(message: "\(path): no end record (':00000001FF'): the file is cut short") }
        guard let top = memory.keys.max() else { throw Invalid(message: "\(path): the image holds no data") }
        var bytes = [UInt8](repeating: 0xFF, count: top + 1)
        for (address, byte) in memory { bytes[address] = byte }
        return FirmwareImageFile(bytes: bytes, programmed: memory.count, path: path)
    }

    /// Refuses an image that does not fit: over the firmware's budget, or into the bootloader's
    /// section.
    func check(budget: Int, applicationLimit: Int, board: Board) throws(Invalid) {
        if bytes.count > applicationLimit {
            throw Invalid(
                message: "\(path): the image reaches 0x\(String(bytes.count, radix: 16)), past the \(applicationLimit) bytes "
                    + "\(board.name)'s bootloader leaves: refused, nothing written (the previous firmware stays)")
        }
        if programmed > budget {
            throw Invalid(
                message: "\(path): \(programmed) B is over the \(budget) B budget of this image: refused, nothing written "
                    + "(the previous firmware stays); `make -C hardware/firmware` prints what takes the room")
        }
    }
}
