/// One effect of the DRV2605L ROM waveform library (TI's "Waveform Library Effects List", IDs 1…123),
/// with TI's name and **Thrum's approximation** of its envelope.
///
/// TI publishes the names of the ROM effects but neither their waveforms nor their durations (the
/// only durations the names give are #15, 750 ms, and #16, 1000 ms; #118 runs for seconds until
/// stopped). Everything in `envelope` is therefore an approximation chosen by Thrum from the effect's
/// name, for the virtual device and for previews: clicks 10–20 ms, double clicks two clicks 60 ms
/// apart ("long" doubles 120 ms apart), ramps 1000/500/250 ms for long/medium/short, and so on
/// (the full list is in docs/presets.md). A real DRV2605L plays its own waveform, which will differ.
public struct ROMEffect: Equatable, Sendable {
    /// A rough classification of the effect, from its name.
    public enum Kind: String, Equatable, Sendable, CaseIterable {
        /// One click (Strong/Sharp/Medium/Transition Click).
        case click
        /// One very short, crisp click (Sharp Tick).
        case tick
        /// One soft, rounded pulse (Soft Bump).
        case bump
        /// Two clicks (Double Click, Short/Long Double … Click).
        case doubleClick
        /// Two ticks (Short/Long Double Sharp Tick).
        case doubleTick
        /// Three clicks.
        case tripleClick
        /// A soft, low buzz (Soft Fuzz).
        case fuzz
        /// A steady buzz (Strong Buzz, Buzz 1–5, Long Buzz).
        case buzz
        /// A long steady alert (750 ms, 1000 ms Alert).
        case alert
        /// A train of pulses (Pulsing Strong/Medium/Sharp).
        case pulsing
        /// A steady hum (Transition Hum, Smooth Hum).
        case hum
        /// A rising ramp.
        case rampUp
        /// A falling ramp.
        case rampDown
    }

    /// How the drive starts and stops, which is how an LRA expresses sharpness.
    public enum Edges: String, Equatable, Sendable, CaseIterable {
        /// Overdrive on attack and active braking on release ("Sharp", "Strong", clicks, ticks).
        case sharp
        /// Eased attack and release without overdrive ("Soft", "Smooth" ramps, bumps, hums).
        case soft
        /// Neither kick nor brake pulse: the actuator rises and rings down on its own ("Smooth Hum").
        case unbraked
    }

    /// The shape of the drive level over time.
    public enum Shape: Equatable, Sendable {
        /// `count` pulses, each `pulseLength` seconds at the effect's level, onsets `interval` seconds apart.
        case pulses(count: Int, pulseLength: Double, interval: Double)
        /// Constant drive at the effect's level for the whole duration.
        case steady
        /// A linear ramp of the drive level from `from` to `to` (fractions of full scale) over the duration.
        case ramp(from: Float, to: Float)
    }

    /// An approximate envelope (see the type's caveat: TI does not publish ROM waveforms).
    public struct Envelope: Equatable, Sendable {
        /// Approximate length of the effect in seconds.
        public let duration: Double
        /// Level over time.
        public let shape: Shape
        /// Attack and release character.
        public let edges: Edges
        /// Creates an envelope.
        public init(duration: Double, shape: Shape, edges: Edges) {
            self.duration = duration
            self.shape = shape
            self.edges = edges
        }
    }

    /// The ROM waveform ID, 1…123 (the value written to a WAV_FRM_SEQ register).
    public let id: UInt8
    /// TI's name, e.g. `Strong Click – 100%` (en dash, as in the datasheet).
    public let name: String
    /// Rough kind, from the name.
    public let kind: Kind
    /// Relative strength in percent from the name (the peak for ramps: 100 or 50).
    public let strengthPercent: Int
    /// Thrum's approximate envelope (an approximation, not TI's waveform).
    public let envelope: Envelope

    /// Creates an effect description.
    public init(id: UInt8, name: String, kind: Kind, strengthPercent: Int, envelope: Envelope) {
        self.id = id
        self.name = name
        self.kind = kind
        self.strengthPercent = strengthPercent
        self.envelope = envelope
    }

    /// The name as a command-line slug: lower case, every run of other characters turned into one
    /// `-`, e.g. `strong-click-100` or `transition-ramp-down-long-smooth-1-100-0`.
    public var slug: String { Self.slug(name) }

    /// The peak drive level as a fraction of full scale (`strengthPercent` / 100).
    public var level: Float { Float(strengthPercent) / 100 }

    /// The effect with ROM waveform ID `id`, or nil outside 1…123.
    public static func effect(id: UInt8) -> ROMEffect? {
        guard id >= 1, Int(id) <= all.count else { return nil }
        return all[Int(id) - 1]
    }

    /// Lower-cases `text` and turns every run of characters other than ASCII letters and digits into one `-`.
    static func slug(_ text: String) -> String {
        var out = ""
        var pendingDash = false
        for ch in text.lowercased() {
            if ch.isASCII && (ch.isLetter || ch.isNumber) {
                if pendingDash && !out.isEmpty { out.append("-") }
                pendingDash = false
                out.append(ch)
            } else {
                pendingDash = true
            }
        }
        return out
    }

    // Row helpers for the table in ROMEffect+Table.swift.

    /// `count` pulses of `length` seconds, `interval` apart.
    static func pulses(_ count: Int, _ length: Double, every interval: Double, _ edges: Edges) -> Envelope {
        Envelope(
            duration: Double(count - 1) * interval + length,
            shape: .pulses(count: count, pulseLength: length, interval: interval), edges: edges)
    }

    /// One pulse of `length` seconds.
    static func pulse(_ length: Double, _ edges: Edges) -> Envelope {
        pulses(1, length, every: 0, edges)
    }

    /// Constant drive for `duration` seconds.
    static func steady(_ duration: Double, _ edges: Edges) -> Envelope {
        Envelope(duration: duration, shape: .steady, edges: edges)
    }

    /// A linear ramp over `duration` seconds.
    static func ramp(_ duration: Double, _ from: Float, _ to: Float, _ edges: Edges) -> Envelope {
        Envelope(duration: duration, shape: .ramp(from: from, to: to), edges: edges)
    }
}
