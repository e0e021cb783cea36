import ThrumHarness
import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumPattern
import ThrumSim

/// Envelope error (DESIGN.md §6): the requested intensity envelope (``EnvelopeRenderer``'s
/// intensity column, after controls, 0 where no event plays) against the LRA model's case
/// acceleration envelope (chip trace, true time, pattern time 0 from ``VirtualRig/trueStartTime(of:)``),
/// normalised to the steady-state acceleration at intensity 1.0 of the same rig. RMS over a
/// 1 kHz grid from the earliest drive to the end plus five actuator time constants.
///
/// * **Ours**: the normal compiler (pre-shifted onsets) on a calibrated driver in closed loop,
///   with the board's OD_CLAMP (automatic overdrive) and FB_BRAKE_FACTOR 3× (automatic braking).
/// * **Baseline**, plain RTP drive: the requested envelope written as RTP amplitude (one 1 ms
///   ramp per grid step, no pre-shift), on the same calibrated driver with OD_CLAMP lowered to the
///   rated peak and FB_BRAKE_FACTOR = 7 (braking disabled), written into the chip model directly
///   after calibration (`device.chip.write`), so the loop can neither overdrive nor brake.
public enum EnvelopeErrorBench {
    /// One pattern as measured.
    public struct PatternResult: Sendable {
        public var name: String
        /// RMS error in units of full scale, ours and baseline.
        public var ours: Double
        public var baseline: Double
        /// Grid points.
        public var samples: Int
    }

    /// Every pattern, and the pooled figures.
    public struct Result: Sendable {
        public var patterns: [PatternResult] = []
        /// Pooled RMS error over every grid point of every pattern, fraction of full scale.
        public var ours = 0.0
        public var baseline = 0.0
        /// Steady-state acceleration envelope at intensity 1.0, G (ours, baseline rig).
        public var fullScaleG = 0.0
        public var baselineFullScaleG = 0.0
        /// The OD_CLAMP code the baseline ran with, and the board's.
        public var baselineClampCode: UInt8 = 0
        public var clampCode: UInt8 = 0
        /// Attribution (pooled RMS, fraction of full scale): the compiler's program on the plain
        /// driver (shaping only), and the plain RTP program on our driver (overdrive/brake only).
        public var shapingOnly = 0.0
        public var driverOnly = 0.0
        /// Ours ÷ baseline error ratio (baseline / ours).
        public var ratio: Double { ours > 0 ? baseline / ours : .infinity }
    }

    /// The grid rate, Hz.
    static let sampleRate = 1000.0

    /// The synthetic patterns: a 300 ms continuous at 1.0, a 0.2→1.0→0.2 intensity curve, a
    /// train of transients.
    public static func syntheticPatterns() -> [(String, HapticPattern)] {
        func params(_ i: Float, _ s: Float) -> [HapticEventParameter] {
            [HapticEventParameter(parameterID: .hapticIntensity, value: i), HapticEventParameter(parameterID: .hapticSharpness, value: s)]
        }
        let step = HapticPattern(events: [HapticEvent(eventType: .hapticContinuous, parameters: params(1, 0.5), relativeTime: 0, duration: 0.3)], parameters: [], parameterCurves: [])
        let curve = HapticPattern(
            events: [HapticEvent(eventType: .hapticContinuous, parameters: params(1, 0.5), relativeTime: 0, duration: 0.6)], parameters: [],
            parameterCurves: [HapticParameterCurve(
                parameterID: .hapticIntensityControl,
                controlPoints: [
                    .init(relativeTime: 0, value: 0.2), .init(relativeTime: 0.3, value: 1.0), .init(relativeTime: 0.6, value: 0.2),
                ], relativeTime: 0)])
        let train = BenchSetup.transients(count: 8, spacing: 0.06)
        return [("continuous 300 ms @1.0", step), ("curve 0.2→1→0.2", curve), ("transient train", train)]
    }

    /// The example patterns (`examples/*.ahap` of the repository, found from this source file
    /// or the working directory), sorted by name.
    public static func examplePatterns(directory: String? = nil) -> [(String, HapticPattern)] {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples").path
        let candidates = [directory, here, FileManager.default.currentDirectoryPath + "/examples"].compactMap { $0 }
        for dir in candidates {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { continue }
            let found = names.filter { $0.hasSuffix(".ahap") }.sorted().compactMap { name -> (String, HapticPattern)? in
                (try? HapticPattern(contentsOf: dir + "/" + name, options: .lenient)).map { (name, $0) }
            }
            if !found.isEmpty { return found }
        }
        return []
    }

    /// Measures `patterns` (default: the examples and the synthetic set) on `profile`.
    public static func run(profile: ActuatorProfile = .default, patterns: [(String, HapticPattern)]? = nil, seed: UInt64 = 600) throws -> Result {
        let patterns = patterns ?? (examplePatterns() + syntheticPatterns())
        let renderer = EnvelopeRenderer(profile: profile)
        var result = Result()
        let ours = try rig(profile: profile, seed: seed, plain: false)
        let plain = try rig(profile: profile, seed: seed, plain: true)
        result.clampCode = ours.clamp
        result.baselineClampCode = plain.clamp
        result.fullScaleG = try fullScale(ours.rig)
        result.baselineFullScaleG = try fullScale(plain.rig)
        let oursDriverPlainProgram = try rig(profile: profile, seed: seed, plain: false)
        let plainDriverOurProgram = try rig(profile: profile, seed: seed, plain: true)
        var sumOurs = 0.0, sumPlain = 0.0, sumShaping = 0.0, sumDriver = 0.0, count = 0
        for (name, pattern) in patterns {
            let render = renderer.render(pattern, sampleRate: sampleRate)
            guard render.count > 1, render.intensity.contains(where: { $0 > 0 }) else { continue }
            let program = renderer.compiler.compile(pattern)
            let a = try measure(ours.rig, program: program, times: render.time, fullScale: result.fullScaleG)
            let b = try measure(plain.rig, program: plainProgram(render), times: render.time, fullScale: result.baselineFullScaleG)
            let ea = squaredErrors(render.intensity, a), eb = squaredErrors(render.intensity, b)
            sumShaping += squaredErrors(render.intensity, try measure(plainDriverOurProgram.rig, program: program, times: render.time, fullScale: result.baselineFullScaleG))
            sumDriver += squaredErrors(render.intensity, try measure(oursDriverPlainProgram.rig, program: plainProgram(render), times: render.time, fullScale: result.fullScaleG))
            sumOurs += ea
            sumPlain += eb
            count += render.count
            result.patterns.append(PatternResult(
                name: name, ours: (ea / Double(render.count)).squareRoot(), baseline: (eb / Double(render.count)).squareRoot(), samples: render.count))
        }
        if count > 0 {
            result.ours = (sumOurs / Double(count)).squareRoot()
            result.baseline = (sumPlain / Double(count)).squareRoot()
            result.shapingOnly = (sumShaping / Double(count)).squareRoot()
            result.driverOnly = (sumDriver / Double(count)).squareRoot()
        }
        return result
    }

    static func squaredErrors(_ requested: [Double], _ measured: [Double]) -> Double {
        zip(requested, measured).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
    }

    /// A connected, calibrated rig; `plain` lowers OD_CLAMP to the rated peak and disables braking.
    static func rig(profile: ActuatorProfile, seed: UInt64, plain: Bool) throws -> (rig: VirtualRig, clamp: UInt8) {
        let c = BenchSetup.crystal(seed: seed)
        let rig = VirtualRig(
            profile: profile, crystalErrorPPM: c.ppm, clockStart: c.start, link: BenchSetup.jitteredUSB(seed: seed),
            sessionConfiguration: BenchSetup.session())
        try rig.connect()
        try rig.calibrateDriver()
        let chip = rig.device.chip
        if plain {
            let now = rig.device.now
            let feedback = (try? chip.read(register: DRV2605LRegister.feedbackControl.rawValue, count: 1, at: now).get().first) ?? 0xB6
            chip.write(bytes: [DRV2605LRegister.feedbackControl.rawValue, (feedback & 0x8F) | 0x70], at: now)
            chip.write(bytes: [DRV2605LRegister.overdriveClamp.rawValue, ratedPeakClampCode(profile)], at: now)
        }
        try rig.idle(until: rig.trueNow + 200_000)
        let clamp = (try? chip.read(register: DRV2605LRegister.overdriveClamp.rawValue, count: 1, at: rig.device.now).get().first) ?? 0
        return (rig, clamp)
    }

    /// The OD_CLAMP code whose peak equals the closed-loop rated peak (the square pulse whose RMS,
    /// with the back-EMF sampling gaps, is the rated voltage) at the datasheet resonance, rounded up.
    public static func ratedPeakClampCode(_ profile: ActuatorProfile) -> UInt8 {
        let registers = DriverRegisters.derive(from: profile)
        let t = DRV2605LFormulas.sampleTime(code: registers.sampleTime)
        let f = profile.datasheet.resonanceHz
        let off = DRV2605LFormulas.closedLoopOffFraction(sampleTime: t, frequency: f)
        let peak = DRV2605LFormulas.ratedVoltageRMS(code: registers.ratedVoltage, sampleTime: t, frequency: f) / (1 - off).squareRoot()
        return UInt8(clamping: Int((peak / DriverRegisters.overdriveClampLSB).rounded(.up)))
    }

    /// The steady-state acceleration envelope at intensity 1.0, G: mean over the last 40 % of a
    /// 1 s continuous event.
    static func fullScale(_ rig: VirtualRig) throws -> Double {
        let pattern = HapticPattern(events: [HapticEvent(
            eventType: .hapticContinuous,
            parameters: [HapticEventParameter(parameterID: .hapticIntensity, value: 1), HapticEventParameter(parameterID: .hapticSharpness, value: 0.5)],
            relativeTime: 0, duration: 1.0)], parameters: [], parameterCurves: [])
        let a = try measure(rig, program: PatternCompiler(profile: rig.profile).compile(pattern), times: stride(from: 0.6, to: 0.95, by: 0.001).map { $0 }, fullScale: 1)
        return a.reduce(0, +) / Double(a.count)
    }

    /// The baseline program: the requested envelope as RTP amplitude, one linear segment per grid
    /// step (runs of equal steps merged), no pre-shift.
    public static func plainProgram(_ render: EnvelopeRender) -> DriveProgram {
        func byte(_ v: Double) -> UInt8 { UInt8(min(255, max(0, Int((v * 255).rounded())))) }
        var segments: [DriveSegment] = []
        for i in 0..<(render.count - 1) {
            let a = byte(render.intensity[i]), b = byte(render.intensity[i + 1])
            if a == 0 && b == 0 { continue }
            let start = Int64((render.time[i] * 1e6).rounded())
            let duration = UInt32(Int64((render.time[i + 1] * 1e6).rounded()) - start)
            if var last = segments.last, last.end == start, last.from == last.to, a == b, last.to == a, last.duration + duration <= 1_000_000 {
                last.duration += duration
                segments[segments.count - 1] = last
                continue
            }
            segments.append(DriveSegment(start: start, duration: duration, from: a, to: b))
        }
        // The last non-zero step ramps to 0, so the RTP input is back at 0 where the envelope ends.
        return DriveProgram(segments: segments, events: [], duration: render.time.last ?? 0)
    }

    /// Plays `program` and samples the chip's acceleration envelope (G ÷ `fullScale`) at
    /// `times` (s of pattern time). A trace window holds the envelope's peak in the window; it is
    /// read at the window's centre and interpolated linearly.
    static func measure(_ rig: VirtualRig, program: DriveProgram, times: [Double], fullScale: Double) throws -> [Double] {
        try rig.idle(until: rig.trueNow + 300_000)
        let report = try rig.play(program: program)
        let start = rig.trueStartTime(of: report)
        let end = start + ((times.last ?? 0) + 0.05) * 1e6
        while Double(rig.device.now) < end { try rig.idle(until: rig.trueNow + 50_000) }
        let trace = rig.device.chip.trace
        let period = Double(trace.samplePeriodMicros)
        let from = start + (times.first ?? 0) * 1e6 - 2 * period
        let samples = Array(trace.samples(from: UInt64(max(0, from)), to: UInt64(max(0, end + 2 * period))))
        guard !samples.isEmpty else { return times.map { _ in 0 } }
        var k = 0
        return times.map { t in
            let x = start + t * 1e6
            while k + 1 < samples.count && Double(samples[k + 1].time) + period / 2 <= x { k += 1 }
            let a = samples[k], ta = Double(a.time) + period / 2
            guard k + 1 < samples.count, x >= ta else { return a.accelerationEnvelopeG / fullScale }
            let b = samples[k + 1], tb = Double(b.time) + period / 2
            let w = min(1, max(0, (x - ta) / (tb - ta)))
            return (a.accelerationEnvelopeG + (b.accelerationEnvelopeG - a.accelerationEnvelopeG) * w) / fullScale
        }
    }

    /// The method, for the note row.
    public static func note(_ r: Result) -> String {
        String(format: "%d patterns, 1 kHz grid from the earliest drive to the end + 5τ; requested = EnvelopeRenderer intensity (after controls, 0 between events); "
            + "measured = chip acceleration envelope ÷ its steady state at intensity 1.0 (%.3f G ours, %.3f G baseline); calibrated driver both; "
            + "ours: compiler + closed loop, OD_CLAMP 0x%02X, brake 3×; baseline: requested envelope as 1 ms RTP ramps, no pre-shift, "
            + "OD_CLAMP 0x%02X (rated peak) and FB_BRAKE_FACTOR 7 written into the chip model after calibration",
            r.patterns.count, r.fullScaleG, r.baselineFullScaleG, Int(r.clampCode), Int(r.baselineClampCode))
    }

    /// Whether the target was met, and if not, the likely reason, with the attribution.
    public static func verdict(_ r: Result) -> String {
        let headroom = r.baselineClampCode > 0 ? Double(r.clampCode) / Double(r.baselineClampCode) : .nan
        let split = String(format: "attribution: compiler shaping alone (plain driver) %.1f %% FS, overdrive+brake alone (plain RTP program) %.1f %% FS",
                           100 * r.shapingOnly, 100 * r.driverOnly)
        if r.ratio >= 2 { return String(format: "%.2f× lower than plain RTP; ", r.ratio) + split }
        return String(format: "target missed (%.2f×). Overdrive (OD_CLAMP only %.2f× the rated peak) and braking shorten rises and falls, "
            + "but what remains of ours sits at the edges: no drive follows a step to 1.0, and a transient's burst is shorter than the "
            + "rise the clamp allows (docs/timing.md); ", r.ratio, headroom) + split
    }
}
