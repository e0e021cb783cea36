// The keys the decoder knows, told apart by their id in the scanner's vocabulary rather than by
// comparing their text.
extension AHAPDecoder {
    /// An AHAP key; its raw value is its id in `AHAPDecoder.vocabulary` (the keys come first there).
    enum Key: Int16, CaseIterable {
        case version, metadata, pattern, event, parameter, parameterCurve, time, eventTime, eventType, eventDuration,
            eventParameters, eventWaveformPath, eventWaveformUseVolumeEnvelope, eventWaveformLoopEnabled, parameterID,
            parameterValue, parameterTime, parameterCurveControlPoints

        /// The key as written in AHAP.
        var text: String { Self.texts[Int(rawValue)] }

        static let texts = [
            "Version", "Metadata", "Pattern", "Event", "Parameter", "ParameterCurve", "Time", "EventTime", "EventType",
            "EventDuration", "EventParameters", "EventWaveformPath", "EventWaveformUseVolumeEnvelope",
            "EventWaveformLoopEnabled", "ParameterID", "ParameterValue", "ParameterTime", "ParameterCurveControlPoints",
        ]

        /// The key of a member, when it is one of these.
        init?(_ member: JSONTapeMember) {
            let word = member.keyWord
            guard word >= 0 && Int(word) < Self.texts.count else { return nil }
            self.init(rawValue: word)
        }
    }

    /// The keys allowed in one kind of object, in the order suggestions list them.
    struct KeySet {
        let keys: [Key]
        private let bits: UInt32
        /// The keys' texts.
        let texts: [String]

        init(_ keys: [Key]) {
            self.keys = keys
            bits = keys.reduce(0) { $0 | 1 << UInt32($1.rawValue) }
            texts = keys.map(\.text)
        }

        func contains(_ key: Key) -> Bool { bits & 1 << UInt32(key.rawValue) != 0 }
    }

    static let topLevelKeys = KeySet([.version, .metadata, .pattern])
    static let elementKeys = KeySet([.event, .parameter, .parameterCurve])
    static let eventKeys = KeySet([
        .time, .eventTime, .eventType, .eventDuration, .eventParameters, .eventWaveformPath,
        .eventWaveformUseVolumeEnvelope, .eventWaveformLoopEnabled,
    ])
    static let eventParameterKeys = KeySet([.parameterID, .parameterValue])
    static let waveformKeys: [Key] = [.eventWaveformPath, .eventWaveformUseVolumeEnvelope, .eventWaveformLoopEnabled]
    static let parameterKeys = KeySet([.parameterID, .time, .parameterTime, .parameterValue])
    static let curveKeys = KeySet([.parameterID, .time, .parameterTime, .parameterCurveControlPoints])
    static let controlPointKeys = KeySet([.time, .parameterValue])

    /// Every key and name the decoder knows, for the scanner to hand out without making them
    /// again: the keys first, so that a key's id is its `Key` raw value.
    static let vocabulary = JSONVocabulary(
        Key.texts + HapticEvent.EventType.allKnown.map(\.rawValue) + HapticEvent.ParameterID.allKnown.map(\.rawValue)
            + HapticDynamicParameter.ID.allKnown.map(\.rawValue))
}
