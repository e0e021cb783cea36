import ThrumWire

/// The binary layout (docs/library.md §Image): header, index, shape offsets and shapes, programs,
/// names, CRC-32. Little-endian; offsets are from the image's first byte.
extension LibraryImage {
    /// Item tags in a program.
    enum Tag {
        static let shape: UInt8 = 1
        static let segment: UInt8 = 2
        static let rom: UInt8 = 3
    }
    /// Ramp head flags (the head is `duration << 2 | flags`).
    enum RampFlag {
        static let hasGap: UInt32 = 2
        static let hasFrom: UInt32 = 1
    }
    /// Index `trigger` byte of a preset without one.
    static let noTrigger: UInt8 = 0xFF

    /// The bytes of one shape: ramp count, then per ramp `head: uv` (duration << 2, bit 1 = a gap
    /// follows, bit 0 = a `from` follows; else `from` is the previous ramp's `to`, 0 for the
    /// first), `gap: uv`?, `from: u8`?, `to: u8`.
    public static func encodeShape(_ shape: Shape) -> [UInt8] {
        var out: [UInt8] = [UInt8(shape.ramps.count)]
        var previous: UInt8 = 0
        for r in shape.ramps {
            var head = r.duration << 2
            if r.gap != 0 { head |= RampFlag.hasGap }
            if r.from != previous { head |= RampFlag.hasFrom }
            UVarint.encode(head, into: &out)
            if r.gap != 0 { UVarint.encode(r.gap, into: &out) }
            if r.from != previous { out.append(r.from) }
            out.append(r.to)
            previous = r.to
        }
        return out
    }

    /// The bytes of one program.
    public static func encodeProgram(_ items: [Item]) -> [UInt8] {
        var out: [UInt8] = []
        for item in items {
            switch item {
            case .shape(let after, let shape, let event):
                out.append(Tag.shape)
                UVarint.encode(after, into: &out)
                UVarint.encode(UInt32(shape), into: &out)
                UVarint.encode(event, into: &out)
            case .segment(let after, let duration, let from, let to, let event):
                out.append(Tag.segment)
                UVarint.encode(after, into: &out)
                UVarint.encode(duration, into: &out)
                out += [from, to]
                UVarint.encode(event, into: &out)
            case .rom(let after, let effect, let event):
                out.append(Tag.rom)
                UVarint.encode(after, into: &out)
                out.append(effect)
                UVarint.encode(event, into: &out)
            }
        }
        return out
    }

    /// The image's bytes, CRC-32 included. Identical programs are stored once.
    public func encode() throws(LibraryImageError) -> [UInt8] {
        try validateForEncoding()
        let shapeBytes = shapes.map { Self.encodeShape($0) }
        var programs: [UInt8] = []
        var programAt: [[UInt8]: Int] = [:]
        var programOffsets: [(offset: Int, length: Int)] = []
        for preset in presets {
            let bytes = Self.encodeProgram(preset.items)
            if let at = programAt[bytes] {
                programOffsets.append((at, bytes.count))
            } else {
                programAt[bytes] = programs.count
                programOffsets.append((programs.count, bytes.count))
                programs += bytes
            }
        }
        var names: [UInt8] = Array(name.utf8) + [0]
        var nameOffsets: [Int] = []
        for preset in presets {
            nameOffsets.append(names.count)
            names += Array(preset.name.utf8) + [0]
        }
        let indexOffset = Self.headerSize
        let shapeTableOffset = indexOffset + presets.count * Self.indexEntrySize
        let shapesOffset = shapeTableOffset + shapes.count * 2
        let programsOffset = shapesOffset + shapeBytes.reduce(0) { $0 + $1.count }
        let namesOffset = programsOffset + programs.count
        let size = namesOffset + names.count + Self.crcSize
        guard size <= Self.maxSize else {
            throw .cannotEncode(field: "image", reason: "\(size) bytes, the format holds at most \(Self.maxSize)")
        }

        var out: [UInt8] = Self.magic
        out.append(Self.formatVersion)
        out.append(UInt8(Self.headerSize))
        put16(&out, presets.count)
        put16(&out, shapes.count)
        put16(&out, Int(version))
        put32(&out, UInt32(size))
        put16(&out, indexOffset)
        put16(&out, shapeTableOffset)
        put16(&out, programsOffset)
        put16(&out, namesOffset)
        put32(&out, profile.fingerprint)
        out += [profile.ratedVoltage, profile.odClamp, profile.driveTime, profile.olLraPeriod, profile.sampleTime, 0, 0, 0]
        var id = Array(profile.id.utf8)
        id += [UInt8](repeating: 0, count: Self.profileIDBytes - id.count)
        out += id
        assert(out.count == Self.headerSize)
        for (i, preset) in presets.enumerated() {
            put16(&out, Int(preset.id))
            out.append(preset.trigger ?? Self.noTrigger)
            out.append(0)
            put16(&out, programOffsets[i].offset)
            put16(&out, programOffsets[i].length)
            put16(&out, Int(preset.lead))
            put16(&out, nameOffsets[i])
        }
        var at = 0
        for bytes in shapeBytes {
            put16(&out, at)
            at += bytes.count
        }
        for bytes in shapeBytes { out += bytes }
        out += programs
        out += names
        put32(&out, CRC32.checksum(out))
        assert(out.count == size)
        return out
    }

    private func validateForEncoding() throws(LibraryImageError) {
        func nameOK(_ s: String, _ field: String) throws(LibraryImageError) {
            guard !s.utf8.contains(0), s.utf8.count <= Self.maxNameBytes else {
                throw .cannotEncode(field: field, reason: "'\(s)' must be at most \(Self.maxNameBytes) bytes without NUL")
            }
        }
        try nameOK(name, "library name")
        guard profile.id.utf8.count <= Self.profileIDBytes, !profile.id.utf8.contains(0) else {
            throw .cannotEncode(field: "profile id", reason: "'\(profile.id)' must be at most \(Self.profileIDBytes) bytes")
        }
        guard presets.count <= 0xFFFF, shapes.count <= 0xFFFF else {
            throw .cannotEncode(field: "presets", reason: "too many presets or shapes")
        }
        var ids = Set<UInt16>()
        for (i, preset) in presets.enumerated() {
            try nameOK(preset.name, "presets[\(i)].name")
            guard preset.id != 0, ids.insert(preset.id).inserted else {
                throw .cannotEncode(field: "presets[\(i)].id", reason: "\(preset.id) is 0 or not unique")
            }
            guard preset.lead <= 0xFFFF else {
                throw .cannotEncode(field: "presets[\(i)].lead", reason: "\(preset.lead) µs is more than 65535")
            }
            if let t = preset.trigger, t >= Self.triggerInputs {
                throw .cannotEncode(field: "presets[\(i)].trigger", reason: "\(t) is not an input 0…\(Self.triggerInputs - 1)")
            }
            for item in preset.items {
                if case .shape(_, let shape, _) = item, !shapes.indices.contains(shape) {
                    throw .cannotEncode(field: "presets[\(i)]", reason: "plays shape \(shape), which does not exist")
                }
            }
        }
        for (i, shape) in shapes.enumerated() where shape.ramps.isEmpty || shape.ramps.count > Self.maxShapeRamps {
            throw .cannotEncode(field: "shapes[\(i)]", reason: "\(shape.ramps.count) ramps (1…\(Self.maxShapeRamps))")
        }
    }

    /// Reads and checks an image: length, magic, format version, CRC, then every offset and field.
    public static func decode(_ bytes: [UInt8]) throws(LibraryImageError) -> LibraryImage {
        guard bytes.count >= 6 else { throw .truncated(expected: headerSize + crcSize, got: bytes.count) }
        guard Array(bytes[0..<4]) == magic else { throw .notALibrary }
        guard bytes[4] <= formatVersion else { throw .newerFormat(found: bytes[4], supported: formatVersion) }
        guard bytes[4] >= 1 else { throw .malformed(field: "format_version", offset: 4, reason: "0 is not a format version") }
        guard bytes.count >= headerSize + crcSize else { throw .truncated(expected: headerSize + crcSize, got: bytes.count) }
        var r = ByteReader(bytes: bytes)
        let size = Int(r.u32(at: 12))
        guard bytes.count >= size else { throw .truncated(expected: size, got: bytes.count) }
        guard bytes.count == size else {
            throw .malformed(field: "image_size", offset: 12, reason: "says \(size) bytes, the file has \(bytes.count)")
        }
        let stored = r.u32(at: size - crcSize)
        let computed = CRC32.checksum(bytes[0..<(size - crcSize)])
        guard stored == computed else { throw .badCRC(stored: stored, computed: computed) }
        guard Int(bytes[5]) == headerSize else {
            throw .malformed(field: "header_size", offset: 5, reason: "\(bytes[5]), expected \(headerSize)")
        }
        r.limit = size - crcSize
        let presetCount = r.u16(at: 6), shapeCount = r.u16(at: 8), version = UInt16(r.u16(at: 10))
        let indexOffset = r.u16(at: 16), shapeTableOffset = r.u16(at: 18)
        let programsOffset = r.u16(at: 20), namesOffset = r.u16(at: 22)
        guard indexOffset == headerSize, shapeTableOffset == indexOffset + presetCount * indexEntrySize,
            programsOffset >= shapeTableOffset + shapeCount * 2, namesOffset >= programsOffset, namesOffset < r.limit
        else { throw .malformed(field: "offsets", offset: 16, reason: "sections out of order or outside the image") }
        let shapesOffset = shapeTableOffset + shapeCount * 2
        let idBytes = Array(bytes[36..<64].prefix { $0 != 0 })
        let profile = Profile(
            id: String(decoding: idBytes, as: UTF8.self), ratedVoltage: bytes[28], odClamp: bytes[29], driveTime: bytes[30],
            olLraPeriod: bytes[31], sampleTime: bytes[32])
        guard r.u32(at: 24) == profile.fingerprint else {
            throw .malformed(field: "profile_fingerprint", offset: 24, reason: "does not match the profile id and registers")
        }
        let libraryName = try r.string(at: namesOffset, field: "library name")

        var shapes: [Shape] = []
        for i in 0..<shapeCount {
            let start = shapesOffset + r.u16(at: shapeTableOffset + 2 * i)
            guard start < programsOffset else {
                throw .malformed(field: "shapes[\(i)]", offset: shapeTableOffset + 2 * i, reason: "offset outside the shapes")
            }
            r.position = start
            r.limit = programsOffset
            let count = try r.u8(field: "shapes[\(i)].count")
            guard count > 0 else { throw .malformed(field: "shapes[\(i)].count", offset: start, reason: "a shape has 1…255 ramps") }
            var ramps: [Ramp] = []
            var previous: UInt8 = 0
            for j in 0..<Int(count) {
                let field = "shapes[\(i)].ramps[\(j)]"
                let head = try r.uv(field: field)
                let gap = head & RampFlag.hasGap != 0 ? try r.uv(field: field + ".gap") : 0
                let from = head & RampFlag.hasFrom != 0 ? try r.u8(field: field + ".from") : previous
                let to = try r.u8(field: field + ".to")
                let duration = head >> 2
                guard duration >= 1, duration <= 1_000_000 else {
                    throw .malformed(field: field + ".duration", offset: r.position, reason: "\(duration) µs is not 1…1000000")
                }
                ramps.append(Ramp(gap: gap, duration: duration, from: from, to: to))
                previous = to
            }
            shapes.append(Shape(ramps: ramps))
        }

        var presets: [Preset] = []
        var ids = Set<UInt16>()
        r.limit = size - crcSize
        for i in 0..<presetCount {
            let at = indexOffset + i * indexEntrySize
            let id = UInt16(r.u16(at: at))
            guard id != 0, ids.insert(id).inserted else {
                throw .malformed(field: "index[\(i)].id", offset: at, reason: "\(id) is 0 or repeated")
            }
            let trigger = bytes[at + 2]
            guard trigger == noTrigger || trigger < triggerInputs else {
                throw .malformed(field: "index[\(i)].trigger", offset: at + 2, reason: "\(trigger) is not an input 0…\(triggerInputs - 1)")
            }
            let programStart = programsOffset + r.u16(at: at + 4)
            let programEnd = programStart + r.u16(at: at + 6)
            guard programEnd <= namesOffset else {
                throw .malformed(field: "index[\(i)].program", offset: at + 4, reason: "outside the programs")
            }
            let name = try r.string(at: namesOffset + r.u16(at: at + 10), field: "index[\(i)].name")
            r.position = programStart
            r.limit = programEnd
            var items: [Item] = []
            while r.position < programEnd {
                let field = "presets[\(i)].items[\(items.count)]"
                let tag = try r.u8(field: field)
                let after = try r.uv(field: field + ".after")
                switch tag {
                case Tag.shape:
                    let shape = Int(try r.uv(field: field + ".shape"))
                    guard shape < shapeCount else {
                        throw .malformed(field: field + ".shape", offset: r.position, reason: "shape \(shape) of \(shapeCount)")
                    }
                    items.append(.shape(after: after, shape: shape, event: try r.uv(field: field + ".event")))
                case Tag.segment:
                    let duration = try r.uv(field: field + ".duration")
                    guard duration >= 1, duration <= 1_000_000 else {
                        throw .malformed(field: field + ".duration", offset: r.position, reason: "\(duration) µs is not 1…1000000")
                    }
                    let from = try r.u8(field: field + ".from"), to = try r.u8(field: field + ".to")
                    items.append(.segment(after: after, duration: duration, from: from, to: to, event: try r.uv(field: field + ".event")))
                case Tag.rom:
                    let effect = try r.u8(field: field + ".effect")
                    guard effect >= 1, effect <= 123 else {
                        throw .malformed(field: field + ".effect", offset: r.position, reason: "ROM effect \(effect) is not 1…123")
                    }
                    items.append(.rom(after: after, effect: effect, event: try r.uv(field: field + ".event")))
                default:
                    throw .malformed(field: field, offset: r.position - 1, reason: "unknown item tag \(tag)")
                }
            }
            r.limit = size - crcSize
            presets.append(
                Preset(id: id, name: name, trigger: trigger == noTrigger ? nil : trigger, lead: UInt32(r.u16(at: at + 8)), items: items))
        }
        return LibraryImage(name: libraryName, version: version, profile: profile, shapes: shapes, presets: presets)
    }

    /// The CRC-32 stored at the end of `bytes` (no checks).
    public static func storedCRC(_ bytes: [UInt8]) -> UInt32 {
        guard bytes.count >= crcSize else { return 0 }
        let n = bytes.count
        return UInt32(bytes[n - 4]) | UInt32(bytes[n - 3]) << 8 | UInt32(bytes[n - 2]) << 16 | UInt32(bytes[n - 1]) << 24
    }
}

private func put16(_ out: inout [UInt8], _ v: Int) {
    out.append(UInt8(v & 0xFF))
    out.append(UInt8((v >> 8) & 0xFF))
}

private func put32(_ out: inout [UInt8], _ v: UInt32) {
    for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> UInt32(shift)) & 0xFF)) }
}

/// Bounds-checked reads; every failure names the field and the offset.
private struct ByteReader {
    let bytes: [UInt8]
    var position = 0
    var limit: Int

    init(bytes: [UInt8]) {
        self.bytes = bytes
        self.limit = bytes.count
    }

    /// Fixed-position reads inside the checked header and index (callers checked the length).
    func u16(at i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
    func u32(at i: Int) -> UInt32 {
        UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
    }

    mutating func u8(field: String) throws(LibraryImageError) -> UInt8 {
        guard position < limit else { throw .malformed(field: field, offset: position, reason: "runs past the end of its section") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uv(field: String) throws(LibraryImageError) -> UInt32 {
        let start = position
        guard position < limit else { throw .malformed(field: field, offset: position, reason: "runs past the end of its section") }
        var p = position
        do {
            let window = Array(bytes[p..<min(limit, p + 5)])
            var i = 0
            let value = try UVarint.decode(window, at: &i)
            p += i
            position = p
            return value
        } catch {
            throw .malformed(field: field, offset: start, reason: "bad varint (\(error))")
        }
    }

    func string(at start: Int, field: String) throws(LibraryImageError) -> String {
        guard start < limit, let end = bytes[start..<limit].firstIndex(of: 0) else {
            throw .malformed(field: field, offset: start, reason: "no NUL-terminated name there")
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
