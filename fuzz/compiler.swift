// libFuzzer target: the compiler and the preview renderer on any pattern the reader accepts,
// compiled into one module with the ThrumPattern and ThrumCompiler sources by tools/fuzz.sh.
//
// Invariants: compiling and rendering never trap; segments are sorted and do not overlap; the
// program's length is bounded by the reader's time limits; the render's rows are bounded by the
// activity (not the timeline) and every column has one value per row, all finite.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompiler(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let pattern = try? AHAPReader(options: AHAPReader.Options(lenient: true, checksAudioFiles: false))
        .read(data: bytes, sourceName: "fuzz.ahap").pattern
    else { return 0 }
    let compiler = PatternCompiler(profile: .default)
    let program = compiler.compile(pattern)
    for (a, b) in zip(program.segments, program.segments.dropFirst()) {
        precondition(a.start < b.start && a.end <= b.start, "segments overlap or are unsorted")
    }
    precondition(program.duration.isFinite && program.duration <= HapticPattern.maximumTime + HapticPattern.maximumDuration + 1)
    precondition(program.events.count == pattern.events.count)
    let render = EnvelopeRenderer(profile: .default).render(pattern, sampleRate: 1000)
    let columns = [render.intensity, render.sharpness, render.drive, render.acceleration]
    for c in columns { precondition(c.count == render.count && c.allSatisfy(\.isFinite), "a column is short or not finite") }
    // Rows: the active spans (each event's pieces and each segment, plus the ring-down) and two
    // rows per silence; a generous bound per event and per second of drive.
    let driven = program.segments.reduce(0.0) { $0 + Double($1.end - $1.start) * 1e-6 }
    let bound = 4_000 * (pattern.events.count + program.segments.count + 2) + Int(driven * 1_000 * 2)
    precondition(render.count <= bound, "render rows \(render.count) beyond \(bound)")
    return 0
}
