import ThrumCompiler

/// docs/semantics.md §7, the felt-onset grid on the whole virtual stack: per built-in profile,
/// the range (min … max, ms) of felt onset − requested time over the grid's transients and
/// continuous events, and of the transients without the pre-shift. Profiles whose driver
/// calibration fails in the model come last, without the last column.
public enum FeltOnsetGridTable {
    /// One profile's runs of the grid: with the pre-shift, and (when the driver calibrated)
    /// without it.
    public struct ProfileGrid {
        /// The profile the grid ran on.
        public var profile: ActuatorProfile
        /// The grid with the pre-shift (the shipped defaults).
        public var points: [FeltOnsetGrid.Point]
        /// The grid without the pre-shift; nil when the driver's calibration failed.
        public var plain: [FeltOnsetGrid.Point]?

        /// Whether the driver calibrated (a failed calibration runs on the reset full scale).
        public var calibrated: Bool { points.first?.calibrated != false }

        /// Runs the grid on `profile`, and again without the pre-shift when it calibrated.
        public init(profile: ActuatorProfile) throws {
            self.profile = profile
            points = try FeltOnsetGrid.run(profile: profile)
            plain = points.first?.calibrated != false
                ? try FeltOnsetGrid.run(profile: profile, options: CompileOptions(feltOnsetCompensation: false)) : nil
        }
    }

    /// The table: header and one row per built-in profile.
    public static func lines() throws -> [String] {
        lines(try ActuatorProfile.builtIn.map(ProfileGrid.init))
    }

    /// The table of grids already run (one per built-in profile, as ``lines()`` runs them).
    public static func lines(_ grids: [ProfileGrid]) -> [String] {
        var rows: [(calibrated: Bool, line: String)] = []
        for grid in grids {
            let response = ActuatorResponse(profile: grid.profile)
            var cells = [
                "`\(grid.profile.id)`", DocNumber.fixed(response.timeConstant * 1000, 1),
                DocNumber.fixed(response.overdriveRatio, 2),
                range(grid.points.filter { !$0.continuous }.map(\.error)), range(grid.points.filter(\.continuous).map(\.error)),
            ]
            if let plain = grid.plain {
                cells.append(range(plain.filter { !$0.continuous }.map(\.error)))
            } else {
                cells.append("(calibration fails, see below)")
            }
            rows.append((grid.calibrated, "| " + cells.joined(separator: " | ") + " |"))
        }
        return [
            "| Profile | τ (ms) | ρ | transients | continuous | without pre-shift (transients) |",
            "|---|---|---|---|---|---|",
        ] + rows.filter(\.calibrated).map(\.line) + rows.filter { !$0.calibrated }.map(\.line)
    }

    /// `−0.7 … +0.9`, or `—` for no values.
    static func range(_ values: [Double]) -> String {
        guard let low = values.min(), let high = values.max() else { return "—" }
        return "\(DocNumber.signed(low)) … \(DocNumber.signed(high))"
    }
}
