import ThrumTime
import ThrumWire

extension LinkSession {
    /// Takes bytes from the device, received at the clock's current time. `readerWoken`: the
    /// bytes ended a wait on the port (the reader slept and their arrival woke it), so the receive
    /// time includes a wake-up (``ClockSample/readerWoken``); false when they were already waiting.
    public func receive(_ bytes: [UInt8], readerWoken: Bool = false) {
        let now = hostClock.now()
        counters.bytesReceived += bytes.count
        if !bytes.isEmpty { lastBytesTime = now }
        receivingWoken = readerWoken
        defer { receivingWoken = false }
        let foreign = decoder.foreignFrames
        let frames = decoder.push(bytes)
        if !frames.isEmpty || decoder.foreignFrames > foreign { lastFrameTime = now }
        let keys = decoder.lastKeys
        for (index, frame) in frames.enumerated() {
            handle(frame, key: keys[index], now: now)
        }
    }

    /// One valid frame; `key` is the session key its CRC started from (nil: a plain frame).
    private func handle(_ frame: Frame, key: UInt16?, now: HostTime) {
        counters.framesReceived += 1
        if let last = lastDeviceSeq {
            let gap = frame.seq &- last &- 1
            if gap < 128 { counters.lostDeviceFrames += Int(gap) }
        }
        lastDeviceSeq = frame.seq

        // §1.3: an invalid payload invalidates the whole frame; §3.2: exactly one ACK, first.
        guard let messages = try? DeviceMessage.parsePayload(frame.payload),
            case .ack(let ack) = messages.first,
            !messages.dropFirst().contains(where: { if case .ack = $0 { true } else { false } })
        else {
            counters.badPayloads += 1
            return
        }
        handle(ack, now: now, frameBytes: frame.payload.count + ProtocolConstants.frameOverhead)
        for message in messages.dropFirst() {
            switch message {
            case .ack:
                break
            case .identifyReply(let identity):
                events.append(.identified(identity))
                if case .connecting = state, claiming == nil { identified(identity, ack: ack, now: now) }
            case .onset(let onset):
                // The device repeats each ONSET in a few later frames, so that a lost frame loses
                // no report; a repeat is the same event, device time and status (times never recur).
                if recentOnsets.contains(onset) {
                    counters.repeatedOnsets += 1
                } else {
                    if recentOnsets.count >= Self.onsetMemory { recentOnsets.removeFirst() }
                    recentOnsets.append(onset)
                    events.append(.onset(onset))
                }
            case .fault(let fault):
                if fault.knownCode == .watchdogStop { claimAfterLapse(now: now) }
                events.append(.fault(fault))
            case .calibrationResult(let report):
                events.append(.calibrated(report))
            case .state(let report):
                events.append(.powerState(report))
            case .capabilities(let capabilities):
                events.append(.capabilities(capabilities))
            case .library(let report):
                libraryReports.append(report)
            case .frameTime(let report):
                frameClock.add(frame: report.frame, device: clock.extend(DeviceTime32(rawValue: report.time)))
            case .departure(let report):
                let wait = DeviceDuration.microseconds(Int64(report.wait))
                if clock.addDeparture(ofReceive: DeviceTime32(rawValue: report.rxTime), wait: wait) { counters.departures += 1 }
            case .session(let report):
                handleSession(report, key: key, ack: ack, now: now)
            }
        }
    }

    /// How many recent ONSETs are remembered: more than the device can still be repeating
    /// (THRUM_FW_ONSET_ECHO_MAX holds three).
    static let onsetMemory = 32

    private func handle(_ ack: Acknowledgement, now: HostTime, frameBytes: Int) {
        let record = sentLog.removeValue(forKey: Self.logKey(ctrl: ack.rxCtrl, seq: ack.rxSeq))
        if let record {
            lastAnswerTime = now
            deliveredThroughOrder = max(deliveredThroughOrder, record.earliestOrder)
            noteAnswer(throughOrder: record.order)
        }
        if let record, ack.rxCtrl != 0, !record.ambiguous {
            timer.addSample(now - record.time)
            counters.roundTripSamples += 1
            clock.addSample(
                hostSend: record.time, hostReceive: now, deviceReceive: DeviceTime32(rawValue: ack.rxTime),
                outboundBytes: record.bytesThrough, readerWoken: receivingWoken, inboundBytes: frameBytes)
        }
        guard case .connected = state else { return }
        if !lane.started {
            lane.nextSeq = ack.nextSeq
            lane.creditBalance = Int(ack.credits)
            return
        }
        guard let acknowledged = lane.acknowledge(upTo: ack.nextSeq) else { return }
        lane.applyCredits(ack.credits)
        if acknowledged > 0 {
            timer.resetBackoff()
            retransmitDeadline = lane.outstanding.isEmpty ? nil : now + timer.timeout
            return
        }
        // No progress. It is a negative acknowledgement only if the named frame followed the latest
        // transmission of the oldest outstanding frame on the wire (or is it): the link keeps order,
        // so that frame was lost or rejected. ACKs naming earlier frames, or repeated in unsolicited
        // device frames, say nothing about it. (Judging a resent frame by its first copy instead,
        // so that frames queued behind a lost one do not each ask for the window again, left
        // NACKs unanswered in two-device play over ptys — a rejected frame waited for the timer
        // while its device fell silent — so it is not done; the timer's drain wait below limits
        // the resends on a slow line.)
        guard let base = lane.outstanding.first, let record, record.order >= base.lastOrder else { return }
        counters.duplicateAcknowledgements += 1
        let roundTrip = timer.smoothed ?? configuration.initialRetransmissionTimeout
        if let last = lastFastRetransmit, now - last < roundTrip { return }
        lastFastRetransmit = now
        counters.fastRetransmits += 1
        lane.retransmitPending = true
    }

    /// IDENTIFY_REPLY while connecting: a device of version 5 or later is claimed first (the link
    /// connects when it confirms the claim); an older one is connected at once.
    private func identified(_ identity: DeviceIdentity, ack: Acknowledgement, now: HostTime) {
        if identity.protocolVersion >= 5, identity.protocolVersion <= ProtocolConstants.protocolVersion,
            configuration.claimsSession
        {
            identifyDeadline = nil
            startClaim(identity, now: now)
            // asked at once, as from an older device at its reply: the request rides in the CLAIM's
            // frame, which the device runs as the new holder's
            if configuration.frameTimeInterval != nil { askFrameTimes(now: now) }
        } else {
            becomeConnected(identity, ack: ack, now: now)
        }
    }

    func becomeConnected(_ identity: DeviceIdentity, ack: Acknowledgement, now: HostTime) {
        guard (ProtocolConstants.oldestProtocolVersion...ProtocolConstants.protocolVersion).contains(identity.protocolVersion) else {
            fail(.unsupportedProtocol(version: identity.protocolVersion))
            return
        }
        state = .connected(identity)
        probingUntil = now + configuration.startupProbing
        identifyDeadline = nil
        maxPayload = identity.maxPayload == 0 ? ProtocolConstants.maxPayload
            : min(ProtocolConstants.maxPayload, Int(identity.maxPayload))
        lane.nextSeq = ack.nextSeq
        lane.creditBalance = Int(ack.credits)
        lane.compact = configuration.compactStream && identity.protocolVersion >= 2 ? CompactStreamEncoder() : nil
        lastTransmit = now
        if identity.protocolVersion >= 3, configuration.frameTimeInterval != nil, !frameTimesAsked {
            askFrameTimes(now: now)
        }
    }

    /// Whether FRAME_TIMES was asked for on this connection (or its reports came already).
    private var frameTimesAsked: Bool { frameTimesRequest != nil || !frameClock.samples.isEmpty }

    private func askFrameTimes(now: HostTime) {
        frameTimesRequest = (3, now)
        requestFrameTimes(now: now)
    }
}
