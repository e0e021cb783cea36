extension LinkSession {
    /// Drops SEGMENTs queued on the sequenced lane that have not gone out yet (for example, held
    /// back for credits) and returns how many. A streaming scheduler calls it together with an
    /// any-lane STOP: frames already in flight reach the device before the STOP and are emptied by
    /// it, while queued ones would otherwise arrive after it and play.
    @discardableResult
    public func discardQueuedSegments() -> Int { lane.discardQueuedSegments() }

    /// Drops the queued (not yet framed) SEGMENTs that start at or after device time `start`
    /// (wrap-aware), for a CUT at `start` that would remove them on the device anyway; returns how many.
    @discardableResult
    public func discardQueuedSegments(startingAtOrAfter start: UInt32) -> Int { lane.discardQueuedSegments(from: start) }

    /// Messages queued on the sequenced lane and not yet framed.
    public var queuedCount: Int { lane.queue.count }
}

extension LinkSession {
    /// Counts `slots` device queue slots as taken by a message that does not carry them itself
    /// (GO takes one per preloaded segment, PROTOCOL.md §2.4), until the next ACK's credits
    /// (which include it once the device ran it) replace the balance.
    public func reserveCredits(_ slots: Int) { lane.creditBalance -= slots }
}

extension LinkSession {
    /// The compact stream's encoder while the device speaks it (protocol version 2 and
    /// ``LinkConfiguration/compactStream``), with its counts; nil while SEGMENTs go out as they are.
    public var compactStream: CompactStreamEncoder? { lane.compact }
}
