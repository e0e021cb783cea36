// `Parameter` (step) and `ParameterCurve` (ramp) elements (reference §3).
extension AHAPDecoder {
    mutating func decodeParameter(_ node: JSONTapeValue, path: LazyPath) throws(PatternError) -> HapticDynamicParameter {
        guard node.members != nil else {
            throw error(.badParameterEntry, node.position, path(), "'Parameter' must be an object, found \(article(node.typeName))")
        }
        let f = fields(of: node, path: path, allowed: Self.parameterKeys, context: "Parameter")
        let id = try decodeDynamicID(f[.parameterID], in: node, path: path)
        let time = try decodeElementTime(f, in: node, path: path)
        guard let valueMember = f[.parameterValue] else {
            warn(
                .missingValue, node.position, join(path(), "ParameterValue"),
                "Parameter without 'ParameterValue': Core Haptics reads 0"
                    + (id.isMultiplicative ? ", which silences \(id.rawValue)" : ""))
            return HapticDynamicParameter(parameterID: id, value: 0, relativeTime: time)
        }
        let raw = try requiredNumber(valueMember, in: node, path: path, expected: "a number in \(rangeText(id.valueRange))")
        let value = clamp(raw, to: id.valueRange, what: id.rawValue, at: valueMember, path: { join(path(), "ParameterValue") })
        return HapticDynamicParameter(parameterID: id, value: value, relativeTime: time)
    }

    mutating func decodeCurve(_ node: JSONTapeValue, path: LazyPath) throws(PatternError) -> HapticParameterCurve {
        guard node.members != nil else {
            throw error(
                .badParameterEntry, node.position, path(), "'ParameterCurve' must be an object, found \(article(node.typeName))")
        }
        let f = fields(of: node, path: path, allowed: Self.curveKeys, context: "ParameterCurve")
        let id = try decodeDynamicID(f[.parameterID], in: node, path: path)
        let time = try decodeElementTime(f, in: node, path: path)
        let p = join(path(), "ParameterCurveControlPoints")
        guard let pointsMember = f[.parameterCurveControlPoints] else {
            warn(.missingValue, node.position, p, "ParameterCurve without 'ParameterCurveControlPoints' has no effect")
            return HapticParameterCurve(parameterID: id, controlPoints: [], relativeTime: time)
        }
        guard let items = pointsMember.value.elements else {
            throw error(
                .badParameterEntry, pointsMember.value.position, p,
                "'ParameterCurveControlPoints' is \(article(pointsMember.value.typeName)), expected an array of {Time, ParameterValue} objects"
            )
        }
        let points = try decodeControlPoints(items, id: id, path: p)
        checkCurve(points, curveTime: time, items: items, at: pointsMember, path: p)
        return HapticParameterCurve(parameterID: id, controlPoints: points, relativeTime: time)
    }

    /// The points, or none when any point lacks `Time` or `ParameterValue` (Core Haptics drops
    /// the whole list then).
    private mutating func decodeControlPoints(_ items: JSONTapeElements, id: HapticDynamicParameter.ID, path: String)
        throws(PatternError) -> [HapticParameterCurve.ControlPoint]
    {
        var points: [HapticParameterCurve.ControlPoint] = []
        for (i, item) in items.enumerated() {
            let ip = "\(path)[\(i)]"
            let f = fields(of: item, path: { ip }, allowed: Self.controlPointKeys, context: "control point")
            guard item.members != nil, let tm = f[.time], let t = number(tm.value), let vm = f[.parameterValue],
                let v = number(vm.value)
            else {
                let lacking = item.members == nil ? "is \(article(item.typeName))" : "lacks a numeric 'Time' or 'ParameterValue'"
                warn(
                    .controlPointsDropped, item.position, ip,
                    "control point \(lacking); Core Haptics drops all \(items.count) points of this curve")
                return []
            }
            guard t <= HapticPattern.maximumTime else {
                throw error(
                    .badParameterEntry, tm.value.position, ip + ".Time",
                    "control-point Time is \(JSONNumberFormat.text(t)) s, beyond the maximum of "
                        + "\(JSONNumberFormat.text(HapticPattern.maximumTime)) s (24 h)")
            }
            var time = t
            if t < 0 {
                warn(.valueClamped, tm.value.position, ip + ".Time", "control-point Time \(JSONNumberFormat.text(t)) is negative; clamped to 0")
                time = 0
            }
            let value = clamp(v, to: id.valueRange, what: id.rawValue, at: vm, path: { ip + ".ParameterValue" })
            points.append(HapticParameterCurve.ControlPoint(relativeTime: time, value: value))
        }
        return points
    }

    private mutating func checkCurve(
        _ points: [HapticParameterCurve.ControlPoint], curveTime: Double, items: JSONTapeElements, at member: JSONTapeMember,
        path: String
    ) {
        if points.count > 16 {
            warn(
                .tooManyControlPoints, member.value.position, path,
                "curve has \(points.count) control points; Core Haptics players handle at most 16 (chain several curves instead)")
        }
        if zip(points, points.dropFirst()).contains(where: { $1.relativeTime < $0.relativeTime }) {
            warn(.unsortedControlPoints, member.value.position, path, "control points are not in time order")
        }
        if curveTime > 0, let first = points.first, first.relativeTime == curveTime {
            let t = JSONNumberFormat.text(curveTime)
            warn(
                .absoluteCurveTimes, items.element(0)["Time"]?.position ?? items.element(0).position, path + "[0].Time",
                "control-point times look absolute: the first point's Time equals the curve's Time (\(t) s); "
                    + "point times are relative to the curve's Time, so this curve starts at \(JSONNumberFormat.text(curveTime * 2)) s"
            )
        }
    }

    private func decodeDynamicID(_ member: JSONTapeMember?, in node: JSONTapeValue, path: LazyPath) throws(PatternError)
        -> HapticDynamicParameter.ID
    {
        var known: [String] { HapticDynamicParameter.ID.allKnown.map(\.rawValue) }
        let name = try requiredString(member, in: node, path: path, expected: "one of \(known.joined(separator: ", "))")
        guard let id = HapticDynamicParameter.ID.allKnown.first(where: { $0.rawValue == name }) else {
            var message = "unknown dynamic parameter \(TextEscaping.quotedExcerpt(name)): expected one of \(known.joined(separator: ", "))"
            if known.contains(name + "Control") { message += " (did you mean '\(name)Control'?)" }
            throw error(.invalidParameterType, member!.value.position, join(path(), "ParameterID"), message)
        }
        return id
    }

    /// `Time` (or the legacy `ParameterTime`) of a Parameter or ParameterCurve: required, ≥ 0,
    /// else `badParameterEntry` (−4831).
    private mutating func decodeElementTime(_ f: Fields, in node: JSONTapeValue, path: LazyPath)
        throws(PatternError) -> Double
    {
        if f[.time] != nil, let alias = f[.parameterTime] {
            warn(.ignoredValue, alias.keyPosition, join(path(), "ParameterTime"), "'ParameterTime' ignored: 'Time' is also given")
        }
        let member = f[.time] ?? f[.parameterTime]
        let t = try requiredNumber(member, key: "Time", in: node, path: path, expected: "a number ≥ 0 (seconds)")
        guard t >= 0 else {
            throw error(
                .badParameterEntry, member!.value.position, join(path(), member!.key),
                "\(TextEscaping.quotedExcerpt(member!.key)) is negative (\(JSONNumberFormat.text(t))): expected a number ≥ 0 (seconds)")
        }
        guard t <= HapticPattern.maximumTime else {
            throw error(
                .badParameterEntry, member!.value.position, join(path(), member!.key),
                "\(TextEscaping.quotedExcerpt(member!.key)) is \(JSONNumberFormat.text(t)) s, beyond the maximum of "
                    + "\(JSONNumberFormat.text(HapticPattern.maximumTime)) s (24 h)")
        }
        return t
    }
}
