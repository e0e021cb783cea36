import ThrumTime
import ThrumWire

/// Sessions (PROTOCOL.md §3.8): a link to a device of version 5 or later claims it at connect,
/// after IDENTIFY_REPLY and before its first sequenced frame, and from then on writes and reads
/// only frames in its session's key. Another host's CLAIM ends the link with
/// ``LinkFailure/takenOver(session:deviceTime:)``; ``release()`` ends the session at a normal close.
extension LinkSession {
    /// Ends the session at a normal close: RELEASE goes out (in the session's key) at the next
    /// ``takeOutgoing()``, so the device's watchdog reports no fault when this host falls silent.
    /// Nothing for a device that holds no session of this link (an older device).
    public func release() {
        guard sessionConfirmed, !releaseSent, case .connected = state else { return }
        releaseSent = true
        immediate.append(.release)
    }

    /// A link used again after ``release()`` (an engine started again) claims its session again
    /// first: the same session, so its sequence and stream state go on.
    func reclaimIfReleased() {
        guard releaseSent, case .connected = state else { return }
        releaseSent = false
        claimOutgoing = true
    }

    /// The device's watchdog stopped it (FAULT 5, in this session's key): this host fell silent
    /// for a second (a run loop left idle), and the session lapsed with it (PROTOCOL.md §3.8), so
    /// the device answers none of its frames now. The CLAIM goes out again at once — the same
    /// session, so its sequence and stream state go on — rather than after
    /// ``pollReclaim(now:)``'s quiet time: pings sent after an idle are answered, and the clock
    /// resynchronization that follows an idle gets its samples from the first one (it got none for
    /// 0.5 s before).
    func claimAfterLapse(now: HostTime) {
        guard sessionConfirmed, !releaseSent, case .connected = state else { return }
        lastReclaim = now
        claimOutgoing = true
        counters.reclaims += 1
    }

    /// A device that says nothing at all while this link sends has most likely reset and forgotten
    /// the session (it drops frames of a key it does not know without a word): the CLAIM goes out
    /// again, so that its answers (and the clock jump that reveals the reboot) come back. Never
    /// while bytes arrive, even undecodable ones: then the device is talking to another host (a
    /// takeover whose notices another reader took), and claiming again would take it back.
    func pollReclaim(now: HostTime) {
        guard sessionConfirmed, !releaseSent, let sent = lastTransmit else { return }
        let quiet = max(.milliseconds(300), configuration.pingInterval * 2, timer.timeout)
        let heard = [lastBytesTime, lastAnswerTime, lastReclaim].compactMap { $0 }.max() ?? sent
        guard sent > heard, now - heard >= quiet else { return }
        lastReclaim = now
        claimOutgoing = true
        counters.reclaims += 1
    }

    /// Starts claiming a device that identified itself as `identity` (version 5 or later).
    func startClaim(_ identity: DeviceIdentity, now: HostTime) {
        claiming = (identity, 0, now)
        choose(session: pickSession(avoiding: nil))
        sendClaim(now: now)
    }

    /// CLAIM retries while no SESSION claimed came; gives up after as many as IDENTIFY gets.
    func pollClaim(now: HostTime) {
        guard var claim = claiming, now >= claim.due else { return }
        if claim.attempts >= configuration.identifyAttempts {
            // a device still sending answers queued ahead of this host's (a slow line) is waited
            // for as at IDENTIFY (``LinkConfiguration/identifyPatience``)
            if deviceBusy(now: now), patienceLeft(now: now) {
                claim.due = now + configuration.identifyRetryInterval
                claiming = claim
            } else {
                fail(.claimUnanswered(attempts: claim.attempts))
            }
        } else {
            sendClaim(now: now)
        }
    }

    private func sendClaim(now: HostTime) {
        guard var claim = claiming else { return }
        claim.attempts += 1
        claim.due = now + configuration.identifyRetryInterval
        claiming = claim
        claimOutgoing = true
    }

    private func choose(session: UInt32) {
        self.session = session
        let key = CRC16.sessionKey(session)
        sessionKey = key
        decoder.keys = [key]
    }

    /// The configured session when it may be claimed, else a random one (never 0, never one whose
    /// key is the plain CRC start, never `avoiding`).
    private func pickSession(avoiding refused: UInt32?) -> UInt32 {
        if let fixed = configuration.session, HostMessage.isClaimable(fixed), fixed != refused { return fixed }
        var generator = SystemRandomNumberGenerator()
        while true {
            let candidate = UInt32.random(in: 1...UInt32.max, using: &generator)
            if HostMessage.isClaimable(candidate), candidate != refused { return candidate }
        }
    }

    /// SESSION: about this link's session only, and believed only in the frame kind the device
    /// sends it in (claimed and taken in the session's key, refused plain).
    func handleSession(_ report: SessionReport, key: UInt16?, ack: Acknowledgement, now: HostTime) {
        guard let session, report.session == session else { return }
        let inOurKey = key != nil && key == sessionKey
        switch report.status {
        case ProtocolConstants.sessionClaimed where inOurKey:
            guard let claim = claiming else { return }  // a repeated answer
            claiming = nil
            sessionConfirmed = true
            decoder.acceptsPlain = false
            becomeConnected(claim.identity, ack: ack, now: now)
        case ProtocolConstants.sessionTaken where inOurKey:
            fail(.takenOver(session: session, deviceTime: report.at))
        case ProtocolConstants.sessionRefused where key == nil && claiming != nil:
            // the holder's key is ours: another session, claimed at once
            choose(session: pickSession(avoiding: session))
            sendClaim(now: now)
        default:
            break
        }
    }
}
