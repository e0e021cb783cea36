import Foundation

/// How the coil terminals are driven during a step.
public enum CoilDrive: Sendable, Equatable {
    /// A voltage source (H-bridge output) of the given volts; the coil sees a low impedance,
    /// so back-EMF drives current and adds electrical damping.
    case voltage(Double)
    /// Open terminals (Hi-Z, standby): no current, no electrical damping.
    case highImpedance
}

/// Time-domain physics of a linear resonant actuator (reference §5.1).
///
/// Equations:
/// * mechanical: m·ẍ + c·ẋ + k·x = Bl·i
/// * electrical: L·di/dt + R·i + Bl·ẋ = v
///
/// Integration: per internal step the current is advanced with the exact exponential solution
/// of the coil equation for the step's constant v and ẋ (L/R ≈ 4 µs is far below the 20 µs step,
/// so explicit Euler on L would be unstable; the exponential form is stable for any step and
/// keeps L instead of neglecting it). The mechanics then take a semi-implicit (symplectic)
/// Euler step, which keeps the undamped oscillator's energy bounded; at ω₀·dt ≈ 0.026 its
/// frequency error is below 0.01 %.
///
/// Case acceleration: by momentum conservation the case + jig (mass M) receives −m·ẍ, so
/// a_case = −(m/M)·ẍ. Near resonance this equals §5.1's (k·x + c·ẋ)/M up to the small coil force.
public struct LRAModel: Sendable {
    /// Standard gravity used to express acceleration in G.
    public static let standardGravity = 9.80665
    /// Default internal integration step: 20 µs (≈ 240 steps per cycle at 205 Hz).
    public static let defaultMaxStep = 20e-6

    /// The actuator being simulated.
    public let parameters: LRAParameters
    /// Largest internal step in seconds; longer `step` calls are subdivided.
    public let maxStep: Double

    /// Displacement of the moving mass from rest, metres.
    public private(set) var position: Double = 0
    /// Velocity of the moving mass, m/s.
    public private(set) var velocity: Double = 0
    /// Coil current, amperes.
    public private(set) var current: Double = 0
    /// Relative acceleration ẍ of the moving mass at the end of the last step, m/s².
    public private(set) var massAcceleration: Double = 0
    /// Voltage applied during the last step (0 when Hi-Z).
    public private(set) var appliedVoltage: Double = 0
    /// Simulated time in seconds since creation.
    public private(set) var elapsed: Double = 0

    // Cached coefficients so the step is plain arithmetic.
    private let k: Double, c: Double, invM: Double, bl: Double, invR: Double, rOverL: Double
    private let omega: Double, caseScaleG: Double
    private let nominalDecay: Double

    /// Creates an actuator at rest.
    public init(parameters: LRAParameters, maxStep: Double = LRAModel.defaultMaxStep) {
        self.parameters = parameters
        self.maxStep = maxStep
        k = parameters.springConstant
        c = parameters.mechanicalDamping
        invM = 1 / parameters.movingMass
        bl = parameters.forceFactor
        invR = 1 / parameters.coilResistance
        rOverL = parameters.coilInductance > 0 ? parameters.coilResistance / parameters.coilInductance : .infinity
        omega = parameters.angularResonance
        caseScaleG = parameters.movingMass / parameters.jigMass / LRAModel.standardGravity
        nominalDecay = rOverL.isInfinite ? 0 : exp(-rOverL * maxStep)
    }

    /// Back-EMF Bl·ẋ in volts.
    public var backEMF: Double { bl * velocity }
    /// Instantaneous case acceleration on the jig, in G (signed).
    public var caseAccelerationG: Double { -massAcceleration * caseScaleG }
    /// Amplitude of the case acceleration inferred from the oscillator state, in G:
    /// (m/M)·ω₀·√((ω₀x)² + ẋ²). Smooth (no ripple at the carrier), unlike a windowed peak of
    /// `caseAccelerationG`; exact for free oscillation at f₀.
    public var accelerationAmplitudeG: Double {
        let wx = omega * position
        return caseScaleG * omega * (wx * wx + velocity * velocity).squareRoot()
    }
    /// Amplitude of the back-EMF inferred from the oscillator state, Bl·√((ω₀x)² + ẋ²), volts.
    public var backEMFAmplitude: Double {
        let wx = omega * position
        return bl * (wx * wx + velocity * velocity).squareRoot()
    }

    /// Advances by `duration` seconds with `voltage` across the coil (low-impedance source).
    public mutating func step(voltage: Double, duration: Double) {
        step(drive: .voltage(voltage), duration: duration)
    }

    /// Advances by `duration` seconds with the coil open (Hi-Z).
    public mutating func stepOpenCircuit(duration: Double) {
        step(drive: .highImpedance, duration: duration)
    }

    /// Advances by `duration` seconds, subdividing into steps of at most ``maxStep``.
    public mutating func step(drive: CoilDrive, duration: Double) {
        guard duration > 0 else { return }
        let n = max(1, Int((duration / maxStep).rounded(.up)))
        let dt = duration / Double(n)
        let open: Bool
        let v: Double
        switch drive {
        case .voltage(let volts): open = false; v = volts
        case .highImpedance: open = true; v = 0
        }
        for _ in 0..<n { integrate(voltage: v, open: open, dt: dt) }
    }

    /// Whether the state is a fixed point of ``integrate(voltage:open:dt:)`` with the coil open,
    /// for every step up to `dt`: no current, and a velocity and position so small (subnormal,
    /// long after the last drive) that the step's changes round away, so every step leaves them,
    /// and the acceleration, bit for bit as they are. Only ``elapsed`` would still move.
    func isAtRestOpen(upTo dt: Double) -> Bool {
        guard current == 0, appliedVoltage == 0 else { return false }
        let a = (bl * current - c * velocity - k * position) * invM
        // Smaller steps change less: |a·dt| and |v·dt| only shrink, so they round away too.
        return a == massAcceleration && velocity + a * dt == velocity && position + velocity * dt == position
    }

    /// Lets `duration` seconds pass at a fixed point (``isAtRestOpen(upTo:)``): only ``elapsed``
    /// moves (by one sum, not the steps' running sum).
    mutating func rest(for duration: Double) {
        elapsed += duration
    }

    /// One internal step of exactly `dt` seconds; the chip model calls this directly.
    @inline(__always)
    mutating func integrate(voltage: Double, open: Bool, dt: Double) {
        if open {
            // A truly open coil carries no current (the ≈4 µs inductive tail is below the step).
            current = 0
            appliedVoltage = 0
        } else {
            let iInf = (voltage - bl * velocity) * invR
            let decay = dt == maxStep ? nominalDecay : (rOverL.isInfinite ? 0 : exp(-rOverL * dt))
            current = iInf + (current - iInf) * decay
            appliedVoltage = voltage
        }
        let a = (bl * current - c * velocity - k * position) * invM
        velocity += a * dt
        position += velocity * dt
        massAcceleration = a
        elapsed += dt
    }
}
