// `Event` elements: type, time, duration, parameters, audio waveform (reference §2).
extension AHAPDecoder {
    mutating func decodeEvent(_ node: JSONTapeValue, path: LazyPath) throws(PatternError) -> HapticEvent {
        guard node.members != nil else {
            throw error(.badEventEntry, node.position, path(), "'Event' must be an object, found \(article(node.typeName))")
        }
        let f = fields(of: node, path: path, allowed: Self.eventKeys, context: "Event")
        let type = try decodeEventType(f[.eventType], event: node, path: path)
        let time = try decodeEventTime(f, event: node, path: path)
        let duration = try decodeEventDuration(f[.eventDuration], type: type, event: node, path: path)
        let parameters = try decodeEventParameters(f[.eventParameters], path: { join(path(), "EventParameters") })
        var event = HapticEvent(eventType: type, parameters: parameters, relativeTime: time, duration: duration)
        event.waveform = try decodeWaveform(f, type: type, event: node, path: path)
        return event
    }

    private func decodeEventType(_ member: JSONTapeMember?, event: JSONTapeValue, path: LazyPath) throws(PatternError)
        -> HapticEvent.EventType
    {
        var p: String { join(path(), "EventType") }
        var known: String { HapticEvent.EventType.allKnown.map(\.rawValue).joined(separator: ", ") }
        guard let member else {
            throw error(.badEventEntry, event.position, p, "missing 'EventType': expected one of \(known)")
        }
        guard let name = member.value.stringValue else {
            throw error(
                .invalidEventType, member.value.position, p,
                "'EventType' is \(article(member.value.typeName)), expected a string: one of \(known)")
        }
        // The shared constant, not a copy of the file's text per event.
        guard let type = HapticEvent.EventType.allKnown.first(where: { $0.rawValue == name }) else {
            var message = "unknown EventType \(TextEscaping.quotedExcerpt(name)): expected one of \(known)"
            if let guess = closeMatch(name, among: HapticEvent.EventType.allKnown.map(\.rawValue)) {
                message += " (did you mean '\(guess)'?)"
            }
            throw error(.invalidEventType, member.value.position, p, message)
        }
        return type
    }

    private mutating func decodeEventTime(_ f: Fields, event: JSONTapeValue, path: LazyPath)
        throws(PatternError) -> Double
    {
        if f[.time] != nil, let alias = f[.eventTime] {
            warn(.ignoredValue, alias.keyPosition, join(path(), "EventTime"), "'EventTime' ignored: 'Time' is also given")
        }
        guard let member = f[.time] ?? f[.eventTime] else {
            throw error(
                .invalidEventTime, event.position, join(path(), "Time"),
                "missing 'Time': expected a number ≥ 0 (seconds from the pattern start)")
        }
        var p: String { join(path(), member.key) }
        guard let t = number(member.value) else {
            throw error(
                .invalidEventTime, member.value.position, p,
                "\(TextEscaping.quotedExcerpt(member.key)) is \(article(member.value.typeName)), expected a number ≥ 0 (seconds)")
        }
        guard t >= 0 else {
            throw error(
                .invalidEventTime, member.value.position, p,
                "\(TextEscaping.quotedExcerpt(member.key)) is negative (\(JSONNumberFormat.text(t))): expected a number ≥ 0 (seconds)")
        }
        guard t <= HapticPattern.maximumTime else {
            throw error(
                .invalidEventTime, member.value.position, p,
                "\(TextEscaping.quotedExcerpt(member.key)) is \(JSONNumberFormat.text(t)) s, beyond the maximum of "
                    + "\(JSONNumberFormat.text(HapticPattern.maximumTime)) s (24 h)")
        }
        return t
    }

    private mutating func decodeEventDuration(
        _ member: JSONTapeMember?, type: HapticEvent.EventType, event: JSONTapeValue, path: LazyPath
    ) throws(PatternError) -> Double {
        var p: String { join(path(), "EventDuration") }
        var duration = 0.0
        if let member {
            guard let d = number(member.value) else {
                throw error(
                    .invalidEventDuration, member.value.position, p,
                    "'EventDuration' is \(article(member.value.typeName)), expected a number ≥ 0 (seconds)")
            }
            guard d >= 0 else {
                throw error(
                    .invalidEventDuration, member.value.position, p,
                    "'EventDuration' is negative (\(JSONNumberFormat.text(d))): expected a number ≥ 0 (seconds)")
            }
            guard d <= HapticPattern.maximumDuration else {
                throw error(
                    .invalidEventDuration, member.value.position, p,
                    "'EventDuration' is \(JSONNumberFormat.text(d)) s, beyond the maximum of "
                        + "\(JSONNumberFormat.text(HapticPattern.maximumDuration)) s (24 h)")
            }
            duration = d
        }
        var at: SourcePosition { member?.value.position ?? event.position }
        if type == .hapticContinuous && duration > 30 {
            warn(
                .continuousTooLong, at, p,
                "HapticContinuous event lasts \(JSONNumberFormat.text(duration)) s; Core Haptics plays continuous events of at most 30 s"
            )
        }
        if (type == .hapticContinuous || type == .audioContinuous) && duration == 0 {
            warn(.zeroDuration, at, p, "\(type.rawValue) event without a positive 'EventDuration' plays nothing")
        }
        return duration
    }

    private mutating func decodeEventParameters(_ member: JSONTapeMember?, path: LazyPath) throws(PatternError)
        -> [HapticEventParameter]
    {
        guard let member else { return [] }
        guard let items = member.value.elements else {
            throw error(
                .badEventEntry, member.value.position, path(),
                "'EventParameters' is \(article(member.value.typeName)), expected an array of {ParameterID, ParameterValue} objects"
            )
        }
        var result: [HapticEventParameter] = []
        result.reserveCapacity(items.count)
        // Which known ids were used (bit per index in `allKnown`): repeats are rare, so they are
        // counted only when there is one.
        var used = 0 as UInt64
        var repeated = false
        for (i, item) in items.enumerated() {
            let parameter = try decodeEventParameter(item, path: { "\(path())[\(i)]" })
            let bit = UInt64(1) << UInt64(HapticEvent.ParameterID.allKnown.firstIndex(of: parameter.parameterID) ?? 63)
            if used & bit != 0 { repeated = true }
            used |= bit
            result.append(parameter)
        }
        guard repeated else { return result }
        // Uses of each parameter id, in order of first use (a handful of ids: a linear scan).
        var seen: [(id: HapticEvent.ParameterID, count: Int, first: Int)] = []
        for (i, parameter) in result.enumerated() {
            if let k = seen.firstIndex(where: { $0.id == parameter.parameterID }) {
                seen[k].count += 1
            } else {
                seen.append((parameter.parameterID, 1, i))
            }
        }
        for use in seen where use.count > 1 {
            let id = use.id
            warn(
                .duplicateParameter, items.element(use.first).position, "\(path())[\(use.first)]",
                "event parameter '\(id.rawValue)' is given \(use.count) times in this event; the last one wins")
        }
        return result
    }

    private mutating func decodeEventParameter(_ node: JSONTapeValue, path: LazyPath) throws(PatternError)
        -> HapticEventParameter
    {
        guard node.members != nil else {
            throw error(
                .badParameterEntry, node.position, path(),
                "event parameter is \(article(node.typeName)), expected an object with 'ParameterID' and 'ParameterValue'")
        }
        let f = fields(of: node, path: path, allowed: Self.eventParameterKeys, context: "event parameter")
        var known: [String] { HapticEvent.ParameterID.allKnown.map(\.rawValue) }
        let idName = try requiredString(f[.parameterID], in: node, path: path, expected: "one of \(known.joined(separator: ", "))")
        guard let id = HapticEvent.ParameterID.allKnown.first(where: { $0.rawValue == idName }) else {
            var message = "unknown event parameter \(TextEscaping.quotedExcerpt(idName)): expected one of \(known.joined(separator: ", "))"
            if idName.hasSuffix("Control") {
                message += " (\(TextEscaping.quotedExcerpt(idName)) is a dynamic parameter: use it in a Parameter or ParameterCurve element)"
            }
            throw error(.invalidParameterType, f[.parameterID]!.value.position, join(path(), "ParameterID"), message)
        }
        let value = try requiredNumber(f[.parameterValue], in: node, path: path, expected: "a number in \(rangeText(id.valueRange))")
        let v = clamp(value, to: id.valueRange, what: idName, at: f[.parameterValue]!, path: { join(path(), "ParameterValue") })
        return HapticEventParameter(parameterID: id, value: v)
    }

    private mutating func decodeWaveform(
        _ f: Fields, type: HapticEvent.EventType, event: JSONTapeValue, path: LazyPath
    ) throws(PatternError) -> HapticEvent.Waveform? {
        guard type == .audioCustom else {
            for key in Self.waveformKeys {
                if let m = f[key] {
                    warn(.ignoredValue, m.keyPosition, join(path(), key.text), "\(TextEscaping.quotedExcerpt(key.text)) applies only to AudioCustom events; ignored")
                }
            }
            return nil
        }
        let p = join(path(), "EventWaveformPath")
        guard let member = f[.eventWaveformPath] else {
            throw error(.badEventEntry, event.position, p, "AudioCustom event without 'EventWaveformPath': expected the path of an audio file")
        }
        guard let file = member.value.stringValue, !file.isEmpty else {
            throw error(
                .badEventEntry, member.value.position, p,
                "'EventWaveformPath' is \(article(member.value.typeName)), expected a non-empty string (an audio file path)")
        }
        var waveform = HapticEvent.Waveform(path: file)
        waveform.useVolumeEnvelope = flag(f[.eventWaveformUseVolumeEnvelope], default: true, path: path)
        waveform.loopEnabled = flag(f[.eventWaveformLoopEnabled], default: false, path: path)
        checkAudioFile(file, at: member.value.position, path: p)
        return waveform
    }

    private mutating func flag(_ member: JSONTapeMember?, default value: Bool, path: LazyPath) -> Bool {
        guard let member else { return value }
        if let b = member.value.boolValue { return b }
        if let d = member.value.numberValue { return d != 0 }
        warn(
            .ignoredValue, member.value.position, join(path(), member.key),
            "\(TextEscaping.quotedExcerpt(member.key)) is \(article(member.value.typeName)), expected true or false; default \(value) used")
        return value
    }
}
