/// Locale-independent JSON number text.
public enum JSONNumberFormat {
    /// The shortest text that reads back as exactly `value` (Swift's round-trip `description`,
    /// which never depends on the locale). Non-finite values, which JSON cannot express, are
    /// written as `0` (NaN) or the largest finite magnitude (±infinity).
    public static func text(_ value: Double) -> String {
        if value.isNaN { return "0" }
        if value.isInfinite { return (value < 0 ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude).description }
        return value.description
    }

    /// The `Double` nearest the shortest decimal that round-trips `value` as a `Float`, so that
    /// 0.6 as a `Float` is written `0.6` and not `0.6000000238418579`.
    public static func double(fromFloat value: Float) -> Double {
        guard value.isFinite else { return Double(value) }
        return Double(value.description) ?? Double(value)
    }
}
