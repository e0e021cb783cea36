import ThrumTime

/// One clock-sync sample: a host frame's send time, the host time its ACK arrived, and the device
/// time (extended to 64 bits) at which the device received it.
public struct ClockSample: Sendable, Hashable {
    /// When the host handed the frame to the transport.
    public var hostSend: HostTime
    /// When the ACK naming the frame arrived.
    public var hostReceive: HostTime
    /// The ACK's `rx_time`, extended to 64 bits (µs).
    public var deviceReceive: UInt64

    /// Creates a sample.
    public init(hostSend: HostTime, hostReceive: HostTime, deviceReceive: UInt64) {
        self.hostSend = hostSend
        self.hostReceive = hostReceive
        self.deviceReceive = deviceReceive
    }

    /// The round trip the sample measured.
    public var roundTrip: HostDuration { hostReceive - hostSend }
}

/// Maps host time to device time: device µs = offset + (1 + drift) · host µs, fitted by
/// RTT-weighted least squares over a sliding window of ACK samples (DESIGN.md §4).
///
/// Each sample's device time is matched to its host send time plus the path delay, taken as half
/// the smallest round trip in the window; a sample weighs 1/(rtt − minRTT + ε)², so samples
/// delayed by queueing barely count.
public struct ClockModel: Sendable {
    /// The tunables.
    public let configuration: ClockModelConfiguration
    /// The samples in the window, oldest first.
    public private(set) var samples: [ClockSample] = []
    private var extender = DeviceTimeExtender()
    private var fit: ClockFit?

    /// Creates an empty model.
    public init(configuration: ClockModelConfiguration = .init()) { self.configuration = configuration }

    /// The number of samples in the window.
    public var sampleCount: Int { samples.count }

    /// Adds a sample whose device time is the raw 32-bit `rx_time`, and refits.
    public mutating func addSample(hostSend: HostTime, hostReceive: HostTime, deviceReceive: UInt32) {
        addSample(ClockSample(hostSend: hostSend, hostReceive: hostReceive, deviceReceive: extender.extend(deviceReceive)))
    }

    /// Adds a sample whose device time is already extended, and refits.
    public mutating func addSample(_ sample: ClockSample) {
        samples.append(sample)
        let horizon = sample.hostReceive - configuration.windowDuration
        samples.removeAll { $0.hostReceive < horizon }
        if samples.count > configuration.windowSamples { samples.removeFirst(samples.count - configuration.windowSamples) }
        fit = ClockFit(samples: samples, configuration: configuration, previousSlope: fit?.slope)
    }

    /// Half the smallest round trip in the window: the assumed one-way delay.
    public var pathDelay: HostDuration { fit?.pathDelay ?? .zero }

    /// The device time (µs, 64-bit extended) at host time `time`; 0 before any sample.
    public func deviceTime(at time: HostTime) -> UInt64 {
        guard let fit else { return 0 }
        let dy = fit.offset + fit.slope * (time - fit.hostReference).microseconds
        let value = Double(Int64(bitPattern: fit.deviceReference)) + dy.rounded()
        return value <= 0 ? 0 : UInt64(value)
    }

    /// The device's 32-bit clock reading at host time `time` (for SEGMENT `start`).
    public func deviceTime32(at time: HostTime) -> UInt32 { UInt32(truncatingIfNeeded: deviceTime(at: time)) }

    /// The host time at which the device clock reads `deviceTime` (µs, 64-bit extended).
    public func hostTime(atDevice deviceTime: UInt64) -> HostTime {
        guard let fit else { return .zero }
        let dy = Double(Int64(bitPattern: deviceTime) - Int64(bitPattern: fit.deviceReference))
        return fit.hostReference + .seconds((dy - fit.offset) / fit.slope / 1e6)
    }

    /// Extends a 32-bit device time (e.g. an ONSET `time`) to 64 bits near the latest sample.
    public func extend(_ deviceTime: UInt32) -> UInt64 {
        DeviceTimeExtender.extend(deviceTime, near: extender.latest ?? UInt64(deviceTime))
    }

    /// Device clock rate error relative to the host, in parts per million (positive: device fast).
    public var driftPPM: Double { ((fit?.slope ?? 1) - 1) * 1e6 }

    /// The standard error of the fitted device time near the newest sample (half the round trip
    /// with a single sample; zero with none).
    public var errorEstimate: HostDuration { fit?.error ?? .zero }

    /// Enough samples over a long enough span, and a small enough error estimate.
    public var isConverged: Bool {
        guard let fit, samples.count >= configuration.convergenceSamples else { return false }
        return fit.slopeFitted && fit.error <= configuration.convergenceError
    }
}
