import ThrumCompiler
import ThrumWire

/// Turns compiled drive programs into library items and shapes, and back.
///
/// A program is cut into pieces: a new piece begins at every segment that marks an event onset,
/// and a piece holds at most ``LibraryImage/maxShapeRamps`` ramps. Each distinct piece (the same
/// ramps with the same relative timing) becomes one shape, shared by every program that plays it:
/// repeated transients of one intensity and sharpness cost one shape and a few bytes per play.
public struct ProgramPacker: Sendable {
    /// The shapes collected so far, in first-use order.
    public private(set) var shapes: [LibraryImage.Shape] = []
    private var shapeIndex: [LibraryImage.Shape: Int] = [:]

    /// Creates an empty packer.
    public init() {}

    /// The items of `program` (its segments, in order), adding the shapes it needs. Also returns
    /// the lead: µs from the first segment's start to pattern time 0 when the drive is pre-shifted.
    public mutating func pack(_ program: DriveProgram) -> (items: [LibraryImage.Item], lead: UInt32) {
        guard let first = program.segments.first else { return ([], 0) }
        let origin = min(0, first.start)
        var items: [LibraryImage.Item] = []
        var previousStart = origin
        var piece: [DriveSegment] = []
        func flush() {
            guard let head = piece.first else { return }
            var ramps: [LibraryImage.Ramp] = []
            var end = head.start
            for s in piece {
                ramps.append(LibraryImage.Ramp(gap: UInt32(s.start - end), duration: s.duration, from: s.from, to: s.to))
                end = s.end
            }
            let shape = LibraryImage.Shape(ramps: ramps)
            let index: Int
            if let known = shapeIndex[shape] {
                index = known
            } else {
                index = shapes.count
                shapes.append(shape)
                shapeIndex[shape] = index
            }
            items.append(.shape(after: UInt32(head.start - previousStart), shape: index, event: head.eventID))
            previousStart = head.start
            piece.removeAll()
        }
        for s in program.segments {
            let overlaps = piece.last.map { s.start < $0.end } ?? false
            if s.eventID != 0 || overlaps || piece.count >= LibraryImage.maxShapeRamps { flush() }
            piece.append(s)
        }
        flush()
        return (items, UInt32(-origin))
    }

    /// The segments as the engine's stream sends them to the device (and so as a library stores
    /// them): a marked ramp up from 0 starts earlier by the lead that puts its first drive on the
    /// compiled onset and keeps its end (PROTOCOL.md §4.1; split in two when that makes it longer
    /// than a segment may be: ``SegmentCommand/led(duration:from:to:)``, what the engine's
    /// placement sends), and no segment starts before the one ahead of it.
    public static func deviceForm(_ program: DriveProgram) -> DriveProgram {
        var out = program
        var last: Int64?
        out.segments = []
        out.segments.reserveCapacity(program.segments.count)
        func append(_ segment: DriveSegment) {
            var s = segment
            if let last, s.start < last { s.start = last }
            last = s.start
            out.segments.append(s)
        }
        for segment in program.segments {
            guard segment.eventID != 0 else {
                append(segment)
                continue
            }
            let led = SegmentCommand.led(duration: segment.duration, from: segment.from, to: segment.to)
            var s = segment
            s.start -= Int64(led.lead)
            s.duration = led.markedDuration
            s.to = led.markedTo
            append(s)
            if led.restDuration > 0, let marked = out.segments.last {
                append(DriveSegment(start: marked.end, duration: led.restDuration, from: led.markedTo, to: segment.to))
            }
        }
        return out
    }

    /// The drive segments and ROM effects a preset's items play, with pattern time 0 at 0 (segments
    /// of a pre-shifted drive start before it).
    public static func expand(_ preset: LibraryImage.Preset, shapes: [LibraryImage.Shape]) -> (
        segments: [DriveSegment], rom: [(start: Int64, effect: UInt8, event: UInt32)]
    ) {
        var segments: [DriveSegment] = []
        var rom: [(start: Int64, effect: UInt8, event: UInt32)] = []
        var cursor = -Int64(preset.lead)
        for item in preset.items {
            cursor += Int64(item.after)
            switch item {
            case .shape(_, let shape, let event):
                var t = cursor
                for (j, ramp) in shapes[shape].ramps.enumerated() {
                    t += Int64(ramp.gap)
                    segments.append(
                        DriveSegment(start: t, duration: ramp.duration, from: ramp.from, to: ramp.to, eventID: j == 0 ? event : 0))
                    t += Int64(ramp.duration)
                }
            case .segment(_, let duration, let from, let to, let event):
                segments.append(DriveSegment(start: cursor, duration: duration, from: from, to: to, eventID: event))
            case .rom(_, let effect, let event):
                rom.append((cursor, effect, event))
            }
        }
        return (segments, rom)
    }
}
