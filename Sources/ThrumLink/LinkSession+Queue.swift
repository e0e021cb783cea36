extension LinkSession {
    /// The device queue slots this host may still fill: the free slots of the device's newest
    /// ACK (its credits) less the segments sent since and not yet acknowledged. The device's
    /// queue holds its `queueSlots` (IDENTIFY_REPLY) less this many entries, as far as the host
    /// knows; zero before the first ACK.
    public var queueCredits: Int { lane.creditBalance }
}
