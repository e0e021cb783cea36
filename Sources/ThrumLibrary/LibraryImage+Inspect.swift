/// What `thrum library inspect` shows: each preset's size and content.
extension LibraryImage {
    /// One preset, measured.
    public struct PresetSummary: Equatable, Sendable {
        /// Its id.
        public var id: UInt16
        /// Its name.
        public var name: String
        /// Its trigger input.
        public var trigger: UInt8?
        /// Drive segments it plays (ROM effects not counted).
        public var segments: Int
        /// ROM effects it plays.
        public var romEffects: Int
        /// Event onsets it marks.
        public var events: Int
        /// µs from pattern time 0 to the end of its drive.
        public var durationMicroseconds: Int64
        /// Bytes of its program (shared with presets whose program is identical).
        public var programBytes: Int
        /// Bytes of the shapes it plays (shapes may be shared with other presets).
        public var shapeBytes: Int
        /// Bytes of its index entry and name.
        public var indexBytes: Int
        /// Number of distinct shapes it plays.
        public var shapes: Int
    }

    /// Every preset, measured, in index order.
    public func summaries() -> [PresetSummary] {
        presets.map { preset in
            let (segments, rom) = ProgramPacker.expand(preset, shapes: shapes)
            let used = Set(preset.items.compactMap { item -> Int? in
                if case .shape(_, let s, _) = item { return s }
                return nil
            })
            let end = max(segments.map(\.end).max() ?? 0, rom.map(\.start).max() ?? 0)
            return PresetSummary(
                id: preset.id, name: preset.name, trigger: preset.trigger, segments: segments.count, romEffects: rom.count,
                events: segments.filter { $0.eventID != 0 }.count + rom.filter { $0.event != 0 }.count,
                durationMicroseconds: end, programBytes: Self.encodeProgram(preset.items).count,
                shapeBytes: used.reduce(0) { $0 + Self.encodeShape(shapes[$1]).count + 2 },
                indexBytes: Self.indexEntrySize + preset.name.utf8.count + 1, shapes: used.count)
        }
    }
}
