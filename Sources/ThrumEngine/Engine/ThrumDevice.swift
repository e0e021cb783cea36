import ThrumCompiler
import ThrumLibrary
import ThrumLink
import ThrumTime
import ThrumWire

/// A Thrum device on a link, as a tool uses it before (and beside) an engine: connect and
/// identify, configure the driver, calibrate it or write a kept calibration back, read and write
/// the preset library, and make the engines that play on it (``HapticEngine/init(device:profile:configuration:runMode:)``).
///
/// The public way onto a device for tools (the CLI, a studio page, a labgrid driver): it holds the
/// device's session and offers only the device's own actions; the link, the pump and the clock
/// model stay inside the engine. Once an engine runs, read the device through it
/// (``HapticEngine/linkHealth``, ``HapticEngine/deviceStatus``, ``HapticEngine/observeOnsets(_:)``).
///
/// Threading: like the link under it, call it from one thread at a time, and not while an engine
/// on it runs by itself (``SharedDevice/RunMode/realTime``): an engine in
/// ``SharedDevice/RunMode/manual`` runs in its caller's calls, so between them is fine.
public final class ThrumDevice {
    let session: DeviceSession

    /// A device on `pump`'s transport, not yet connected (``open()``). `endpointName` names it in
    /// errors (the port's path); `configuration` tunes the connection (timeouts, lead, latency
    /// learning, calibration waits).
    public init(pump: any LinkPump, endpointName: String, configuration: DeviceSessionConfiguration = DeviceSessionConfiguration()) {
        session = DeviceSession(pump: pump, endpointName: endpointName, configuration: configuration)
    }

    /// The device of a session the package made (a ``ThrumHarness`` rig's).
    package init(session: DeviceSession) { self.session = session }

    // MARK: Connecting

    /// Connects: sends IDENTIFY until the device answers or the connect timeout passes.
    /// - Throws: `.deviceDidNotAnswer`, `.linkFailed` (a protocol version this host does not
    ///   speak), `.transport`.
    @discardableResult
    public func open() throws(EngineError) -> DeviceIdentity { try session.open() }

    /// Sends the driver configuration for an actuator (``ThrumCompiler/DriverRegisters/derive(from:)``):
    /// SAMPLE_TIME, then rated voltage, overdrive clamp, drive time and open-loop period. A changed
    /// rated voltage or clamp makes the device calibrate again (``waitForDriverReady()``).
    public func configureDriver(_ registers: DriverRegisters) { session.configureDriver(registers) }

    /// Pings until the clock model has enough samples to schedule in device time.
    /// - Throws: `.clockDidNotConverge`, or a link error.
    public func synchronizeClock() throws(EngineError) { try session.synchronizeClock() }

    /// Runs the link until a device that reports USB start-of-frame times has sent enough of them
    /// to count its crystal against the frame grid, or `timeout` passed (``LinkHealth/frameDriftPPM``).
    /// - Throws: a link error.
    public func awaitFrameCount(timeout: HostDuration) throws(EngineError) { try session.awaitFrameCount(timeout: timeout) }

    /// Ends this host's session at a normal close (RELEASE, PROTOCOL.md §3.8), so that the
    /// device's watchdog reports no fault when the host falls silent.
    public func release() { session.release() }

    // MARK: State

    /// What the device said about itself (firmware, protocol, device id, capabilities) and the
    /// state it last reported (calibration, power, faults).
    public var status: DeviceStatus { session.status }

    /// The link's figures now (round trip, clock offset, drift and bound, faults), with the lead
    /// a session would schedule with.
    public var linkHealth: LinkHealth { session.linkHealth }

    /// What this link's round trip costs streamed drive on this device, in one line; nil when
    /// the device's queue covers the round trip (``DeviceSession/roundTripLimit``).
    public var roundTripLimit: String? { session.roundTripLimit }

    /// The long round trips said on this device's session so far, oldest first: at connect, and
    /// when the smoothed round trip first crossed the limit later, or grew half as long again
    /// (``RoundTripWarning``). An engine on the device reads them in ``HapticEngine/linkHealth``.
    public var roundTripWarnings: [RoundTripWarning] { session.roundTripWarnings }

    /// Called with each long round trip as it is found (``roundTripWarnings``), from the thread
    /// that runs the link: the caller's in a manual engine, the engine's own in a real-time one.
    public var onRoundTripWarning: ((RoundTripWarning) -> Void)? {
        get { session.roundTripWarningHandler }
        set { session.roundTripWarningHandler = newValue }
    }

    // MARK: Calibration

    /// Waits until a calibration the device started by itself (a changed configuration) has
    /// reported; returns its result, nil when none ran.
    /// - Throws: `.calibrationFailed` (its report attached), `.calibrationTimedOut`, or a link error.
    @discardableResult
    public func waitForDriverReady() throws(EngineError) -> CalibrationReport? { try session.waitForDriverReady() }

    /// Runs the driver's auto-calibration (CALIBRATE; the actuator buzzes for 250–450 ms), waits
    /// for its result and for the actuator to come to rest.
    /// - Throws: `.calibrationFailed` (its report attached), `.calibrationTimedOut`, or a link error.
    @discardableResult
    public func calibrate() throws(EngineError) -> CalibrationReport { try session.calibrate() }

    /// The last calibration result of this connection (a passed or failed report), nil before one.
    public var calibrationResult: CalibrationReport? { session.calibrationResult }

    /// Writes a kept calibration back into a driver that lost it (RESTORE_CALIBRATION, no buzz)
    /// and returns what the driver holds afterwards (`.restored` when it went in); nil when the
    /// device does not know the message or did not answer.
    /// - Throws: a link error.
    public func restoreCalibration(_ words: CalibrationWords) throws(EngineError) -> DriverCalibration? {
        try session.restoreCalibration(words)
    }

    // MARK: Preset library

    /// LIBRARY_QUERY: what the device's library storage holds (status, slot, sequence, size, CRC,
    /// capacity).
    /// - Throws: ``LibraryClientError`` (a device without the library protocol, no reply, a link error).
    public func libraryStatus() throws(LibraryClientError) -> LibraryStatusReport { try session.libraryStatus() }

    /// Reads the active library image back and checks it (its CRC-32 against LIBRARY_QUERY's).
    /// - Throws: ``LibraryClientError`` `.noStorage`, `.noLibrary`, or a read that failed.
    public func readLibrary() throws(LibraryClientError) -> (image: LibraryImage, bytes: [UInt8], status: LibraryStatusReport) {
        try session.readLibrary()
    }

    /// Writes a library image (its bytes, ``ThrumLibrary/LibraryImage/encode()``) into the slot not
    /// in use and switches to it once the device has checked it; `progress` is called as bytes
    /// are acknowledged. An image built for another actuator than `expectedProfile` is refused
    /// before anything is written. `shouldStop` (asked as acknowledgements come) true before
    /// LIBRARY_COMMIT went out ends the write: ``LibraryClientError/interrupted(bytesWritten:totalBytes:)``.
    /// - Throws: ``LibraryClientError``.
    @discardableResult
    public func writeLibrary(
        _ image: [UInt8], expectedProfile: LibraryImage.Profile? = nil, progress: (LibraryWriteProgress) -> Void = { _ in },
        shouldStop: () -> Bool = { false }
    ) throws(LibraryClientError) -> LibraryStatusReport {
        try session.writeLibrary(image, expectedProfile: expectedProfile, progress: progress, shouldStop: shouldStop)
    }
}

extension HapticEngine {
    /// Creates an engine on `device` (opened or not; ``start()`` connects it). Engines on the same
    /// device share it: the first one's `profile`, `configuration` and `runMode` are the device's
    /// (``init(session:profile:configuration:runMode:)``).
    public convenience init(
        device: ThrumDevice, profile: ActuatorProfile = .default, configuration: Configuration = Configuration(),
        runMode: SharedDevice.RunMode? = nil
    ) {
        self.init(session: device.session, profile: profile, configuration: configuration, runMode: runMode)
    }
}
