/// The DRV2605L waveform sequencer (MODE 0 + GO): plays WAV_FRM_SEQ1…8 in order, stopping at
/// the first 0; a slot with WAIT (bit 7) pauses 10 ms × bits 6…0 (reference §1.2). Effect
/// envelopes come from ``ROMWaveform`` — approximations, since TI does not publish the ROM
/// waveforms. In closed-loop LRA mode the envelope is the amplitude target of the same loop RTP
/// uses (the LRA library is closed loop: overdrive and braking are automatic).
struct Sequencer: Sendable {
    struct Step: Sendable {
        let start: UInt64
        let duration: UInt64
        let waveform: ROMWaveform?
    }

    /// How often the model re-reads the envelope, µs [INF: the datasheet's playback interval is
    /// 5 ms; 1 ms resolves the 10 ms clicks].
    static let tickMicros: UInt64 = 1_000

    let startTime: UInt64
    let steps: [Step]

    /// Reads the eight sequence registers (0x04…0x0B) of `registers` at device time `time`.
    init(registers: [UInt8], at time: UInt64) {
        startTime = time
        var steps: [Step] = []
        var offset: UInt64 = 0
        let first = Int(DRV2605LRegister.waveformSequence1.rawValue)
        for slot in first..<(first + 8) {
            let value = registers[slot]
            if value == 0 { break }
            if value & 0x80 != 0 {
                let pause = UInt64(value & 0x7F) * 10_000
                steps.append(Step(start: offset, duration: pause, waveform: nil))
                offset += pause
            } else if let waveform = ROMWaveform.effect(value & 0x7F) {
                steps.append(Step(start: offset, duration: waveform.durationMicros, waveform: waveform))
                offset += waveform.durationMicros
            }
        }
        self.steps = steps
    }

    /// Device time at which the sequence ends (GO self-clears).
    var endTime: UInt64 { startTime + (steps.last.map { $0.start + $0.duration } ?? 0) }

    /// The drive level (fraction of full scale) at device time `time`.
    func level(at time: UInt64) -> Double {
        let t = time >= startTime ? time - startTime : 0
        guard let step = steps.first(where: { t >= $0.start && t < $0.start + $0.duration }) else { return 0 }
        return step.waveform?.level(atMicros: t - step.start) ?? 0
    }
}
