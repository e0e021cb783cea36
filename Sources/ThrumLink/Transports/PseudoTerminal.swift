import ThrumTime

/// A new pseudo-terminal pair: the master side as a transport for whoever serves (the virtual
/// device behind `thrum sim`), and the slave path (`/dev/pts/N`) for a client to open.
///
/// The pair is made with `posix_openpt`, `grantpt`, `unlockpt` and `ptsname_r`; both sides are
/// put in raw mode.
///
/// **Why the creator keeps the slave side open.** On Linux, once no descriptor on the slave side
/// is open, `read` on the master fails with EIO and `poll` reports POLLHUP, continuously, until a
/// client opens the slave again; the slave's raw-mode settings are also lost when its last
/// descriptor closes. With `keepsDeviceSideOpen` (the default) the creator holds one slave
/// descriptor for its whole life, so the server sees a quiet line between clients and every client
/// finds the terminal already raw. The cost: the server cannot learn that a client left from a
/// hang-up (it must rely on the protocol's own timeouts), and bytes it writes with no client
/// connected stay queued — ``PseudoTerminalTransport`` discards them when a client opens the
/// device. With `keepsDeviceSideOpen: false` the master reports ``TransportError/disconnected``
/// whenever no client has the slave open.
public final class PseudoTerminal: @unchecked Sendable {
    /// The slave side's path, e.g. `/dev/pts/3`: what a client opens (and `thrum sim` prints).
    public let devicePath: String
    /// The master side, for the server.
    public let master: PseudoTerminalTransport
    private let system: any TermiosSystem
    private let heldSlave: DescriptorChannel?

    /// Creates a pseudo-terminal pair (`posix_openpt`, `grantpt`, `unlockpt`, `ptsname_r`,
    /// `open` of the slave, `cfmakeraw` on both sides).
    ///
    /// - Parameters:
    ///   - keepsDeviceSideOpen: Whether to hold the slave side open for the life of this object
    ///     (see the type's discussion).
    ///   - writeTimeout: How long the master's writes wait for room before failing.
    /// - Throws: ``TransportError/openFailed(path:reason:)`` (path `/dev/ptmx`) when any step fails.
    public convenience init(keepsDeviceSideOpen: Bool = true, writeTimeout: HostDuration = .seconds(5))
        throws(TransportError)
    {
        try self.init(
            keepsDeviceSideOpen: keepsDeviceSideOpen, writeTimeout: writeTimeout, system: RealTermiosSystem(),
            clock: MonotonicClock())
    }

    init(keepsDeviceSideOpen: Bool, writeTimeout: HostDuration, system: any TermiosSystem, clock: any HostClock)
        throws(TransportError)
    {
        self.system = system
        let multiplexer = "/dev/ptmx"
        func fail(_ step: String, _ e: SystemErrno) -> TransportError {
            .openFailed(path: multiplexer, reason: "\(step): \(e)")
        }
        let masterFD: CInt
        switch system.openPseudoTerminalMaster(flags: Platform.pseudoTerminalMasterFlags) {
        case .success(let fd): masterFD = fd
        case .failure(let e): throw fail("posix_openpt", e)
        }
        var slaveFD: CInt? = nil
        func cleanUp() {
            if let slaveFD { _ = system.close(slaveFD) }
            _ = system.close(masterFD)
        }
        let path: String
        do throws(TransportError) {
            if case .failure(let e) = system.grantPseudoTerminal(masterFD) { throw fail("grantpt", e) }
            if case .failure(let e) = system.unlockPseudoTerminal(masterFD) { throw fail("unlockpt", e) }
            switch system.pseudoTerminalSlavePath(masterFD) {
            case .success(let p): path = p
            case .failure(let e): throw fail("ptsname_r", e)
            }
            switch system.open(path, flags: Platform.terminalOpenFlags) {
            case .success(let fd): slaveFD = fd
            case .failure(let e): throw fail("open \(path)", e)
            }
            if case .failure(let e) = system.makeRaw(slaveFD!) { throw fail("raw mode on \(path)", e) }
            if case .failure(let e) = system.makeRaw(masterFD) { throw fail("raw mode on master", e) }
        } catch {
            cleanUp()
            throw error
        }
        if !keepsDeviceSideOpen, let fd = slaveFD {
            _ = system.close(fd)
            slaveFD = nil
        }
        self.devicePath = path
        self.heldSlave = slaveFD.map {
            DescriptorChannel(
                adopting: $0, name: path, system: system, clock: clock, isSocket: false, writeTimeout: writeTimeout)
        }
        self.master = PseudoTerminalTransport(
            adopting: DescriptorChannel(
                adopting: masterFD, name: "pty master of \(path)", system: system, clock: clock, isSocket: false,
                writeTimeout: writeTimeout))
    }

    /// Closes the master and the held slave descriptor (`close(2)`); a connected client then sees
    /// a hang-up (``TransportError/disconnected``).
    public func close() {
        master.close()
        heldSlave?.close()
    }

    deinit { close() }
}
