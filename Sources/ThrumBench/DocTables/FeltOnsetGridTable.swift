import ThrumCompiler

/// docs/semantics.md §7, the felt-onset grid on the whole virtual stack: per built-in profile,
/// the range (min … max, ms) of felt onset − requested time over the grid's transients and
/// continuous events, and of the transients without the pre-shift. Profiles whose driver
/// calibration fails in the model come last, without the last column.
public enum FeltOnsetGridTable {
    /// The table: header and one row per built-in profile.
    public static func lines() throws -> [String] {
        var rows: [(calibrated: Bool, line: String)] = []
        for profile in ActuatorProfile.builtIn {
            let points = try FeltOnsetGrid.run(profile: profile)
            let calibrated = points.first?.calibrated != false
            let response = ActuatorResponse(profile: profile)
            var cells = [
                "`\(profile.id)`", DocNumber.fixed(response.timeConstant * 1000, 1),
                DocNumber.fixed(response.overdriveRatio, 2),
                range(points.filter { !$0.continuous }.map(\.error)), range(points.filter(\.continuous).map(\.error)),
            ]
            if calibrated {
                let plain = try FeltOnsetGrid.run(
                    profile: profile, options: CompileOptions(feltOnsetCompensation: false))
                cells.append(range(plain.filter { !$0.continuous }.map(\.error)))
            } else {
                cells.append("(calibration fails, see below)")
            }
            rows.append((calibrated, "| " + cells.joined(separator: " | ") + " |"))
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
