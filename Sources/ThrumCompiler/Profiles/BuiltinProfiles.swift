/// The actuator profiles shipped with Thrum, embedded so the `thrum` binary needs no files.
/// A test checks that this table equals the JSON in `hardware/actuators/` field for field.
extension ActuatorProfile {
    /// Every built-in profile, default first.
    public static let builtIn: [ActuatorProfile] = [pmdC10_100, semco1030, vybronicsVG0832012, vybronicsVG0840001D, lra0825]

    /// The default profile: a Precision Microdrives C10-100 style 10 mm coin LRA (175 Hz, 2.0 V RMS).
    public static var `default`: ActuatorProfile { pmdC10_100 }

    /// The built-in profile with this id, if any.
    public static func builtIn(id: String) -> ActuatorProfile? {
        builtIn.first { $0.id == id }
    }


    /// Precision Microdrives C10-100, 10 mm coin LRA, 175 Hz, 2.0 V RMS.
    public static let pmdC10_100 = ActuatorProfile(
        id: "pmd-c10-100",
        name: "Precision Microdrives C10-100",
        formFactor: "10 mm coin LRA",
        datasheet: .init(resonanceHz: 175, ratedVoltageRms: 2.0),
        driver: .init(overdriveClampVoltsPeak: 2.83),
        physical: .init(
            resonanceHz: 175, mechanicalQ: 15, resistanceOhms: 24, inductanceMillihenries: 0.1,
            movingMassGrams: 1.2, forceFactor: 0.5,
            estimated: ["mechanicalQ", "resistanceOhms", "inductanceMillihenries", "movingMassGrams", "forceFactor"]),
        sources: [
            "datasheet.resonanceHz": "TI E2E thread 342477 (user post: C10-100, 175 Hz)",
            "datasheet.ratedVoltageRms": "TI E2E thread 342477 (2 V RMS)",
            "driver.overdriveClampVoltsPeak": "√2 × rated V RMS, the overdrive-clamp equation of TI's DRV2605L datasheet (SLOS854D)",
            "physical.mechanicalQ": "estimate: mid-range of the generic coin-LRA Q ≈ 10–30 (no stop time published in our sources)",
            "physical.resistanceOhms": "estimate: typical coin-LRA coil, as the illustrative 8 mm set of hardware/actuators/README.md",
            "physical.movingMassGrams": "estimate: 10 mm coin, scaled up from the 1.0 g of the illustrative 8 mm set of hardware/actuators/README.md",
            "physical.forceFactor": "estimate: chosen so Z(f0) ≈ 27 Ω, typical for 2 V RMS coin LRAs",
        ],
        notes: [
            "Calibration failures were reported with RATED 0x53 / CLAMP 0x80 and a wrong CONTROL2 address (E2E 342477); 0x53 is what the §2 formula gives.",
        ])

    /// Samsung Electro-Mechanics (SEMCO) 1030, the TI DRV2605L EVM's LRA, 205 Hz, 1.5 V nominal, 3.0 V max.
    public static let semco1030 = ActuatorProfile(
        id: "semco-1030",
        name: "SEMCO 1030 (TI DRV2605L EVM LRA)",
        formFactor: "10 mm coin LRA",
        datasheet: .init(resonanceHz: 205, ratedVoltageRms: 1.5, maxVoltagePeak: 3.0),
        driver: .init(overdriveClampVoltsPeak: 3.0),
        physical: .init(
            resonanceHz: 205, mechanicalQ: 20, resistanceOhms: 24, inductanceMillihenries: 0.1,
            movingMassGrams: 1.0, forceFactor: 0.4,
            estimated: ["mechanicalQ", "resistanceOhms", "inductanceMillihenries", "movingMassGrams", "forceFactor"]),
        sources: [
            "datasheet.resonanceHz": "apache/mynewt-core hw/drivers/drv2605 syscfg (TI EVM values)",
            "datasheet.ratedVoltageRms": "apache/mynewt-core syscfg (1.5 V nominal)",
            "datasheet.maxVoltagePeak": "apache/mynewt-core syscfg (3.0 V max)",
            "driver.overdriveClampVoltsPeak": "the part's 3.0 V maximum (apache/mynewt-core syscfg)",
            "physical": "an illustrative self-consistent set (m 1.0 g, Q 20, R 24 Ω, L 0.1 mH, Bl 0.4 N/A) — not a datasheet",
        ],
        notes: [
            "EVM auto-calibration result: A_CAL_COMP 0x09, A_CAL_BEMF 0x79, BEMF_GAIN 1 (mynewt syscfg).",
            "The §2 formula gives RATED_VOLTAGE 60.65 → 61 (0x3D); the worked table lists 0x3E, the chip's reset default, one LSB higher.",
        ])

    /// Jinlong G0832012 / Vybronics VG0832012, 8 × 3.2 mm coin LRA, 235 Hz, 1.8 V RMS.
    public static let vybronicsVG0832012 = ActuatorProfile(
        id: "vybronics-vg0832012",
        name: "Vybronics VG0832012 (Jinlong G0832012 class)",
        formFactor: "8 × 3.2 mm coin LRA",
        datasheet: .init(resonanceHz: 235, ratedVoltageRms: 1.8, fallTimeMilliseconds: 80),
        driver: .init(overdriveClampVoltsPeak: 2.55),
        physical: .init(
            resonanceHz: 235, mechanicalQ: 25.7, resistanceOhms: 24, inductanceMillihenries: 0.1,
            movingMassGrams: 0.8, forceFactor: 0.4,
            estimated: ["resistanceOhms", "inductanceMillihenries", "movingMassGrams", "forceFactor"]),
        sources: [
            "datasheet.resonanceHz": "project READMEs and code comments [3P]",
            "datasheet.ratedVoltageRms": "project READMEs [3P] (1.8 V RMS AC sine)",
            "datasheet.fallTimeMilliseconds": "≈80 ms fall quoted for VG0832012 in a design doc citing the vendor page [3P]",
            "driver.overdriveClampVoltsPeak": "√2 × rated V RMS (the overdrive-clamp equation of TI's DRV2605L datasheet, SLOS854D)",
            "physical.mechanicalQ": "fit: Q = π·f0·t10/ln 10 with t10 = 80 ms (the lumped resonator model of hardware/actuators/README.md)",
            "physical.resistanceOhms": "estimate: typical 8 mm coin LRA (PUI HD-LA0803 is 25 Ω)",
            "physical.movingMassGrams": "estimate: 8 mm coin",
            "physical.forceFactor": "estimate: as the illustrative 8 mm set of hardware/actuators/README.md",
        ],
        notes: [])

    /// Vybronics VG0840001D, 8 × 4.05 mm coin LRA, 170 Hz, 2.0 V RMS.
    public static let vybronicsVG0840001D = ActuatorProfile(
        id: "vybronics-vg0840001d",
        name: "Vybronics VG0840001D",
        formFactor: "8 × 4.05 mm coin LRA",
        datasheet: .init(
            resonanceHz: 170, ratedVoltageRms: 2.0, ratedCurrentMilliamps: 68, maxCurrentMilliamps: 90,
            accelerationGrms: 1.0, fallTimeMilliseconds: 55),
        driver: .init(overdriveClampVoltsPeak: 2.83),
        physical: .init(
            resonanceHz: 170, mechanicalQ: 12.8, resistanceOhms: 24, inductanceMillihenries: 0.1,
            movingMassGrams: 0.8, forceFactor: 0.6,
            estimated: ["resistanceOhms", "inductanceMillihenries", "movingMassGrams"]),
        sources: [
            "datasheet.resonanceHz": "design doc quoting the vendor page [3P]",
            "datasheet.ratedVoltageRms": "design doc quoting the vendor page [3P]",
            "datasheet.ratedCurrentMilliamps": "68 mA typ, vendor page [3P]",
            "datasheet.maxCurrentMilliamps": "90 mA max, vendor page [3P]",
            "datasheet.accelerationGrms": "1.00 G RMS, vendor page [3P] (jig mass not stated; 100 g assumed)",
            "datasheet.fallTimeMilliseconds": "fall ≤ 55 ms, vendor page [3P]",
            "driver.overdriveClampVoltsPeak": "√2 × rated V RMS (the overdrive-clamp equation of TI's DRV2605L datasheet, SLOS854D)",
            "physical.mechanicalQ": "fit: Q = π·f0·t10/ln 10 with t10 = 55 ms (an upper bound, so Q ≤ 12.8)",
            "physical.forceFactor": "fit: Bl = √((Z − R)·c) with Z = 2.0 V / 68 mA = 29.4 Ω and c = m·ω0/Q (the lumped resonator model of hardware/actuators/README.md)",
            "physical.resistanceOhms": "estimate: typical 8 mm coin LRA",
            "physical.movingMassGrams": "estimate: 8 mm coin",
        ],
        notes: [
            "The fitted model predicts ≈0.5 G RMS on a 100 g jig against the 1.00 G RMS quoted; the G convention and jig mass of the quote are unknown (such quotes are known to differ 2–3× by convention).",
        ])

    /// "LRA0825" (Pebble), 8 mm coin LRA, 240 ± 20 Hz, 1.2 V RMS.
    public static let lra0825 = ActuatorProfile(
        id: "lra0825",
        name: "LRA0825 (PebbleOS)",
        formFactor: "8 mm coin LRA",
        datasheet: .init(resonanceHz: 240, resonanceToleranceHz: 20, ratedVoltageRms: 1.2),
        driver: .init(overdriveClampVoltsPeak: 1.7),
        physical: .init(
            resonanceHz: 240, mechanicalQ: 20, resistanceOhms: 20, inductanceMillihenries: 0.1,
            movingMassGrams: 0.6, forceFactor: 0.3,
            estimated: ["mechanicalQ", "resistanceOhms", "inductanceMillihenries", "movingMassGrams", "forceFactor"]),
        sources: [
            "datasheet.resonanceHz": "PebbleOS PR #2066 [3P]",
            "datasheet.resonanceToleranceHz": "PebbleOS PR #2066 [3P]",
            "datasheet.ratedVoltageRms": "PebbleOS PR #2066 [3P]",
            "driver.overdriveClampVoltsPeak": "≈ √2 × rated V RMS (the overdrive-clamp equation of TI's DRV2605L datasheet, SLOS854D)",
            "physical.mechanicalQ": "estimate: generic coin-LRA Q ≈ 10–30",
            "physical.resistanceOhms": "estimate",
            "physical.movingMassGrams": "estimate: small 8 mm coin",
            "physical.forceFactor": "estimate",
        ],
        notes: [])
}
