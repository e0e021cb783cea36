/// A preset library image (`.thl`): compiled presets for one actuator profile, in the binary
/// layout of docs/library.md, which a device keeps in its storage and plays by id.
///
/// The representation is compact: a drive program is split into pieces (an event's drive, or a
/// run of contiguous ramps), each distinct piece is stored once as a ``Shape``, and a program is a
/// list of ``Item``s that play shapes at starts relative to the previous item. The host keeps every
/// semantic decision (the compiler chose each ramp); the device only replays.
public struct LibraryImage: Equatable, Sendable {
    /// The first four bytes of every image: `THRL`.
    public static let magic: [UInt8] = [0x54, 0x48, 0x52, 0x4C]
    /// The format version this code writes and the newest it reads.
    public static let formatVersion: UInt8 = 1
    /// Bytes of the header.
    public static let headerSize = 64
    /// Bytes of the profile id field (NUL-padded).
    public static let profileIDBytes = 28
    /// Bytes of one index entry.
    public static let indexEntrySize = 12
    /// Bytes of the CRC-32 trailer.
    public static let crcSize = 4
    /// The largest image the format can describe (16-bit offsets).
    public static let maxSize = 65_535
    /// The longest preset or library name, in UTF-8 bytes.
    public static let maxNameBytes = 47
    /// Trigger inputs are numbered 0 ..< this.
    public static let triggerInputs: UInt8 = 8
    /// The most ramps a shape holds.
    public static let maxShapeRamps = 255

    /// The actuator profile the presets were compiled for: its id and the DRV2605L values the
    /// host derives from it (a device configured otherwise plays them wrongly).
    public struct Profile: Equatable, Sendable {
        /// The profile's id, at most 28 bytes (`vybronics-vg0832012`).
        public var id: String
        /// RATED_VOLTAGE.
        public var ratedVoltage: UInt8
        /// OD_CLAMP.
        public var odClamp: UInt8
        /// DRIVE_TIME (0…31).
        public var driveTime: UInt8
        /// OL_LRA_PERIOD (0…127).
        public var olLraPeriod: UInt8
        /// SAMPLE_TIME code (0…3).
        public var sampleTime: UInt8

        /// Creates a profile record.
        public init(id: String, ratedVoltage: UInt8, odClamp: UInt8, driveTime: UInt8, olLraPeriod: UInt8, sampleTime: UInt8) {
            self.id = id
            self.ratedVoltage = ratedVoltage
            self.odClamp = odClamp
            self.driveTime = driveTime
            self.olLraPeriod = olLraPeriod
            self.sampleTime = sampleTime
        }

        /// CRC-32 of the id and the five register values: one number to compare profiles by.
        public var fingerprint: UInt32 {
            CRC32.checksum(Array(id.utf8) + [ratedVoltage, odClamp, driveTime, olLraPeriod, sampleTime])
        }
    }

    /// One linear ramp of a shape.
    public struct Ramp: Hashable, Sendable {
        /// µs of silence between the previous ramp's end (the shape's start for the first) and this one.
        public var gap: UInt32
        /// Length in µs, 1 … 1 000 000.
        public var duration: UInt32
        /// Amplitude at its start.
        public var from: UInt8
        /// Amplitude at its end.
        public var to: UInt8

        /// Creates a ramp.
        public init(gap: UInt32 = 0, duration: UInt32, from: UInt8, to: UInt8) {
            self.gap = gap
            self.duration = duration
            self.from = from
            self.to = to
        }
    }

    /// A short list of ramps stored once and played by reference.
    public struct Shape: Hashable, Sendable {
        /// The ramps, in time order.
        public var ramps: [Ramp]

        /// Creates a shape.
        public init(ramps: [Ramp]) { self.ramps = ramps }
    }

    /// One step of a program. `after` is µs from the previous item's start (from the program's
    /// start for the first); `event` 0 or the compiled event whose onset the item's first drive marks.
    public enum Item: Hashable, Sendable {
        /// Play shape number `shape`.
        case shape(after: UInt32, shape: Int, event: UInt32)
        /// One ramp written out (kept for completeness; the builder stores every piece as a shape).
        case segment(after: UInt32, duration: UInt32, from: UInt8, to: UInt8, event: UInt32)
        /// A DRV2605L ROM effect (1…123) played by the driver's sequencer.
        case rom(after: UInt32, effect: UInt8, event: UInt32)

        /// µs from the previous item's start.
        public var after: UInt32 {
            switch self {
            case .shape(let after, _, _), .segment(let after, _, _, _, _), .rom(let after, _, _): return after
            }
        }

        /// The event the item's first drive marks (0: none).
        public var event: UInt32 {
            switch self {
            case .shape(_, _, let event), .segment(_, _, _, _, let event), .rom(_, _, let event): return event
            }
        }
    }

    /// One preset of the library.
    public struct Preset: Equatable, Sendable {
        /// The id `thrum play id:N` names, 1…65535, unique in the library.
        public var id: UInt16
        /// Its name (at most 47 UTF-8 bytes).
        public var name: String
        /// The trigger input (0…7) that plays it on the device, if any.
        public var trigger: UInt8?
        /// µs from the program's start to pattern time 0 (the felt-onset pre-shift: the drive
        /// starts this much before the time it is played at).
        public var lead: UInt32
        /// The program.
        public var items: [Item]

        /// Creates a preset.
        public init(id: UInt16, name: String, trigger: UInt8? = nil, lead: UInt32 = 0, items: [Item]) {
            self.id = id
            self.name = name
            self.trigger = trigger
            self.lead = lead
            self.items = items
        }
    }

    /// The library's name (shown by `thrum info` and `thrum library list`).
    public var name: String
    /// The library's version, chosen by its author.
    public var version: UInt16
    /// The profile every preset was compiled for.
    public var profile: Profile
    /// The shapes the programs play.
    public var shapes: [Shape]
    /// The presets, in index order.
    public var presets: [Preset]

    /// Creates an image.
    public init(name: String, version: UInt16, profile: Profile, shapes: [Shape], presets: [Preset]) {
        self.name = name
        self.version = version
        self.profile = profile
        self.shapes = shapes
        self.presets = presets
    }

    /// The preset with this id.
    public func preset(id: UInt16) -> Preset? { presets.first { $0.id == id } }
}
