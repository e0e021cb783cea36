/// One LRA actuator: the numbers its datasheet gives, the driver settings we chose for it, and a
/// fitted lumped model for simulation. Loaded from `hardware/actuators/*.json`; the same profiles
/// are embedded in `ActuatorProfile.builtIn` so the tools work without the files.
public struct ActuatorProfile: Codable, Equatable, Sendable {
    /// Stable identifier, also the JSON file's base name (for example `pmd-c10-100`).
    public var id: String
    /// Human-readable name.
    public var name: String
    /// Mechanical form, for example "10 mm coin LRA".
    public var formFactor: String
    /// Figures taken from the vendor datasheet (or from the reference notes quoting it).
    public var datasheet: Datasheet
    /// The DRV2605L settings we drive it with.
    public var driver: DriverSettings
    /// Fitted lumped electromechanical model (reference §5.1); see `estimated`.
    public var physical: PhysicalModel
    /// Where each number came from, keyed by field path (for example `datasheet.resonanceHz`).
    public var sources: [String: String]
    /// Free-form remarks (caveats, fit results).
    public var notes: [String]

    /// Creates a profile.
    public init(
        id: String, name: String, formFactor: String, datasheet: Datasheet, driver: DriverSettings,
        physical: PhysicalModel, sources: [String: String], notes: [String] = []
    ) {
        self.id = id
        self.name = name
        self.formFactor = formFactor
        self.datasheet = datasheet
        self.driver = driver
        self.physical = physical
        self.sources = sources
        self.notes = notes
    }

    /// Datasheet figures. Optional ones are nil when the sources we have do not state them.
    public struct Datasheet: Codable, Equatable, Sendable {
        /// Nominal resonance f₀ in Hz.
        public var resonanceHz: Double
        /// ± tolerance of f₀ in Hz, when stated.
        public var resonanceToleranceHz: Double?
        /// Rated drive, V RMS (sine at f₀).
        public var ratedVoltageRms: Double
        /// Maximum drive voltage (peak), when stated.
        public var maxVoltagePeak: Double?
        /// Typical current at the rated drive, mA RMS.
        public var ratedCurrentMilliamps: Double?
        /// Maximum current, mA RMS.
        public var maxCurrentMilliamps: Double?
        /// Coil DC resistance, Ω.
        public var resistanceOhms: Double?
        /// Acceleration at rated drive on the vendor's test jig, G RMS.
        public var accelerationGrms: Double?
        /// Stop (fall) time to 10 % without braking, ms.
        public var fallTimeMilliseconds: Double?

        /// Creates datasheet figures.
        public init(
            resonanceHz: Double, resonanceToleranceHz: Double? = nil, ratedVoltageRms: Double,
            maxVoltagePeak: Double? = nil, ratedCurrentMilliamps: Double? = nil, maxCurrentMilliamps: Double? = nil,
            resistanceOhms: Double? = nil, accelerationGrms: Double? = nil, fallTimeMilliseconds: Double? = nil
        ) {
            self.resonanceHz = resonanceHz
            self.resonanceToleranceHz = resonanceToleranceHz
            self.ratedVoltageRms = ratedVoltageRms
            self.maxVoltagePeak = maxVoltagePeak
            self.ratedCurrentMilliamps = ratedCurrentMilliamps
            self.maxCurrentMilliamps = maxCurrentMilliamps
            self.resistanceOhms = resistanceOhms
            self.accelerationGrms = accelerationGrms
            self.fallTimeMilliseconds = fallTimeMilliseconds
        }
    }

    /// Driver settings that are a choice rather than a datasheet figure.
    public struct DriverSettings: Codable, Equatable, Sendable {
        /// Overdrive clamp, V peak (OD_CLAMP is always a peak limit).
        public var overdriveClampVoltsPeak: Double
        /// Back-EMF SAMPLE_TIME in µs (150, 200, 250 or 300).
        public var sampleTimeMicroseconds: Int

        /// Creates driver settings.
        public init(overdriveClampVoltsPeak: Double, sampleTimeMicroseconds: Int = 300) {
            self.overdriveClampVoltsPeak = overdriveClampVoltsPeak
            self.sampleTimeMicroseconds = sampleTimeMicroseconds
        }
    }

    /// Lumped model parameters (reference §5.1). `estimated` names the fields that are
    /// estimates rather than fits to datasheet figures.
    public struct PhysicalModel: Codable, Equatable, Sendable {
        /// Resonance used by the model, Hz.
        public var resonanceHz: Double
        /// Mechanical Q (free ring-down, coil open).
        public var mechanicalQ: Double
        /// Coil resistance R, Ω.
        public var resistanceOhms: Double
        /// Coil inductance L, mH.
        public var inductanceMillihenries: Double
        /// Moving mass m, g.
        public var movingMassGrams: Double
        /// Force factor Bl, N/A.
        public var forceFactor: Double
        /// Test-jig mass the acceleration figure refers to, g.
        public var jigMassGrams: Double
        /// Field names (of this struct) that are estimates.
        public var estimated: [String]

        /// Creates a lumped model.
        public init(
            resonanceHz: Double, mechanicalQ: Double, resistanceOhms: Double, inductanceMillihenries: Double,
            movingMassGrams: Double, forceFactor: Double, jigMassGrams: Double = 100, estimated: [String]
        ) {
            self.resonanceHz = resonanceHz
            self.mechanicalQ = mechanicalQ
            self.resistanceOhms = resistanceOhms
            self.inductanceMillihenries = inductanceMillihenries
            self.movingMassGrams = movingMassGrams
            self.forceFactor = forceFactor
            self.jigMassGrams = jigMassGrams
            self.estimated = estimated
        }

        /// Angular resonance ω₀ in rad/s.
        public var omega0: Double { 2 * Double.pi * resonanceHz }
        /// Mechanical damping c = m·ω₀/Q, N·s/m.
        public var mechanicalDamping: Double { movingMassGrams / 1000 * omega0 / mechanicalQ }
        /// Electrical damping with the coil on a low-impedance source, c_e = (Bl)²/R, N·s/m.
        public var electricalDamping: Double { forceFactor * forceFactor / resistanceOhms }
        /// Q while the driver holds the coil (drive or brake): m·ω₀/(c + c_e).
        public var loadedQ: Double { movingMassGrams / 1000 * omega0 / (mechanicalDamping + electricalDamping) }
        /// Impedance at resonance R + (Bl)²/c, Ω.
        public var impedanceAtResonance: Double { resistanceOhms + forceFactor * forceFactor / mechanicalDamping }
    }
}

