// libFuzzer target: the AHAP reader, strict and lenient, and the write→read round trip,
// compiled into one module with the ThrumPattern sources by tools/fuzz.sh.
//
// Invariants: reading never traps; an error has a code, a message and a line within the text;
// a pattern the lenient reader accepts includes every pattern the strict one accepts; any
// accepted pattern written back as AHAP reads back equal, and writes the same bytes again.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAHAPReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The reader counts LF, CR LF and a lone CR each as one line break.
    let lines = 1 + bytes.indices.filter { bytes[$0] == 0x0A || (bytes[$0] == 0x0D && ($0 + 1 == bytes.count || bytes[$0 + 1] != 0x0A)) }.count
    var strictPattern: HapticPattern?
    for options in [AHAPReader.Options(lenient: false, checksAudioFiles: false), AHAPReader.Options(lenient: true, checksAudioFiles: false)] {
        do {
            let document = try AHAPReader(options: options).read(data: bytes, sourceName: "fuzz.ahap")
            if !options.lenient { strictPattern = document.pattern }
            if options.lenient, let strict = strictPattern { precondition(strict == document.pattern, "lenient reads differently") }
            roundTrip(document.pattern)
        } catch {
            precondition(!error.message.isEmpty, "an error without a message")
            precondition(error.line <= lines, "an error beyond the last line")
            precondition(!options.lenient || strictPattern == nil, "lenient refuses what strict accepts")
        }
    }
    return 0
}

private func roundTrip(_ pattern: HapticPattern) {
    let written = pattern.ahapData()
    let reread: HapticPattern
    do {
        reread = try AHAPReader(options: AHAPReader.Options(checksAudioFiles: false)).read(data: written, sourceName: "written.ahap").pattern
    } catch {
        preconditionFailure("a written pattern does not read back: \(error)")
    }
    precondition(reread == pattern, "write → read changed the pattern")
    precondition(reread.ahapData() == written, "write → read → write changed the bytes")
}
