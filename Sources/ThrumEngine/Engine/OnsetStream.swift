import Foundation
import ThrumTime

/// One onset report as it arrives from the device: which event it was, when it was asked for, when
/// the device says it started (with the bound that certainly holds) and how
/// (``HapticEngine/onsetUpdates(bufferingPolicy:)``, ``HapticEngine/observeOnsets(_:)``).
///
/// Each scheduled onset the device reports arrives once as ``Kind/reported``, in the order the
/// reports arrive; its fields are those ``HapticEngine/onsets`` then holds. It never arrives as
/// ``Kind/reported`` again: a second report of the same onset (the device ran a copy of its
/// drive again after a link stall or reclaim) that changes the record arrives as ``Kind/revised``,
/// and one that changes nothing does not arrive. A later clock sample
/// that contradicts the ones the bound was read from makes the bound suspect: that onset then
/// arrives again, as ``Kind/boundSuspect``. An onset whose report never comes back
/// (lost on the way) does not arrive; ``HapticEngine/onsets`` keeps it as `notReported`.
public struct OnsetUpdate: Sendable, Equatable {
    /// Why this update was sent.
    public enum Kind: Sendable, Equatable {
        /// The device reported the onset (on time, late or dropped), or the host knows it will not
        /// play and no report is to come: its start was cut by a schedule restart
        /// (``PlaybackReport/OnsetStatus/cutByClockMove``) or the device refused it
        /// (``PlaybackReport/OnsetStatus/refusedByDevice``).
        case reported
        /// An onset reported before has a bound that may not hold (``OnsetRecord/boundSuspect``).
        case boundSuspect
        /// An onset reported before was reported again with other figures (a copy of its drive
        /// that ran again): the record is the engine's record after that report.
        case revised
    }

    /// Why this update was sent.
    public var kind: Kind
    /// The onset's id on its device: the value ``HapticEngine/playROMEffect(_:atTime:)`` returns for
    /// a ROM effect, unique among the onsets the device scheduled.
    public var id: UInt32
    /// The onset as the engine holds it after this report.
    public var record: OnsetRecord

    /// The player that played it (``HapticPatternPlayer/playerID``).
    public var playerID: Int { record.playerID }
    /// Index of the event in its pattern.
    public var eventIndex: Int { record.patternIndex }
    /// Loop pass (0 for the first).
    public var pass: Int { record.pass }
    /// When the event was asked to be felt, engine time (s).
    public var requestedTime: Double { record.requestedTime }
    /// When the device says it was felt (its drive onset plus the felt-onset pre-shift), engine
    /// time (s); nil for a dropped one.
    public var onsetTime: Double? { record.onsetTime }
    /// The "±" of ``onsetTime`` (s): the true onset lies within it (unless ``boundSuspect``).
    public var onsetBound: Double? { record.onsetBound }
    /// How the device started it.
    public var status: PlaybackReport.OnsetStatus { record.status }
    /// Whether the bound may not hold (a contradicting clock sample).
    public var boundSuspect: Bool { record.boundSuspect }

    public init(kind: Kind, id: UInt32, record: OnsetRecord) {
        self.kind = kind
        self.id = id
        self.record = record
    }
}

/// A subscription to an engine's onsets (``HapticEngine/observeOnsets(_:)``). It lasts until
/// ``cancel()`` (or the engine goes away): it does not end when the engine stops, so a server
/// that plays many times keeps one.
public final class OnsetSubscription: @unchecked Sendable {
    private weak var device: SharedDevice?
    private let key: Int

    init(device: SharedDevice, key: Int) {
        self.device = device
        self.key = key
    }

    /// Stops the deliveries; no update is delivered after it returns (unless cancel is called from
    /// a delivery, which then is the last). Calling it again does nothing.
    public func cancel() {
        guard let device else { return }
        device.locked { device.onsetObservers.remove(key) }
    }
}

/// The device's onset observers. Used inside the device's lock.
final class OnsetObservers {
    private struct Observer {
        let key: Int
        /// The engine whose onsets it gets.
        weak var engine: HapticEngine?
        let deliver: (OnsetUpdate) -> Void
    }

    private var observers: [Observer] = []
    private var nextKey = 0

    /// How many observers are subscribed.
    var count: Int { observers.count }

    func add(engine: HapticEngine, _ deliver: @escaping (OnsetUpdate) -> Void) -> Int {
        nextKey += 1
        observers.append(Observer(key: nextKey, engine: engine, deliver: deliver))
        return nextKey
    }

    func remove(_ key: Int) { observers.removeAll { $0.key == key } }

    /// Forgets the observers whose engine went away.
    func prune() { observers.removeAll { $0.engine == nil } }

    /// Hands `update` to the observers of the engine that owns it (`owns`).
    func deliver(_ update: OnsetUpdate, to owns: (HapticEngine) -> Bool) {
        // A handler may cancel (itself or another): deliver to those subscribed when it arrived
        // and still subscribed when their turn comes.
        for observer in observers {
            guard let engine = observer.engine, owns(engine), observers.contains(where: { $0.key == observer.key }) else { continue }
            observer.deliver(update)
        }
    }
}

extension SharedDevice {
    /// Announces the report of onset `id` (and the onsets that follow it) to the observers.
    func announceOnset(_ id: UInt32, kind: OnsetUpdate.Kind = .reported) {
        onsetObservers.prune()
        guard onsetObservers.count > 0 else { return }
        let ids = [id] + (kind == .reported ? (placement.followerMarks[id] ?? []).sorted() : [])
        for mark in ids {
            guard let record = placement.marks[mark] else { continue }
            var kind = kind
            if kind == .reported {
                // One onset, one `.reported`: a repeat that changes nothing is not told again.
                if let told = placement.announcedReports.updateValue(record, forKey: mark) {
                    guard told != record else { continue }
                    kind = .revised
                }
            }
            let owner = placement.markOwners[mark]
            onsetObservers.deliver(OnsetUpdate(kind: kind, id: mark, record: record)) { engine in
                if let owner { return owner == ObjectIdentifier(engine) }
                return engine.playerIDs.contains(record.playerID)
            }
        }
    }
}

extension SharedDevice {
    /// Announces onsets the host settled without a report (``PlaybackReport/OnsetStatus/cutByClockMove``,
    /// ``PlaybackReport/OnsetStatus/refusedByDevice``): as ``OnsetUpdate/Kind/reported``, as the
    /// device's reports are, so that an observer hears of every onset once; a report of one that
    /// still comes (it did play) arrives as ``OnsetUpdate/Kind/revised``.
    func announceSettled(_ ids: [UInt32]) {
        for id in ids { announceOnset(id) }
    }
}

extension HapticEngine {
    /// Calls `handler` with each of this engine's onsets as its report arrives from the device
    /// (``OnsetUpdate``: event index, requested time, reported onset, its bound, status), until the
    /// returned subscription is cancelled; across starts, stops and plays. `handler` runs on the
    /// run thread inside the device's lock, as the engine's other handlers do: keep it short, and
    /// do not wait there for another thread that calls the engine.
    public func observeOnsets(_ handler: @escaping (OnsetUpdate) -> Void) -> OnsetSubscription {
        device.locked {
            OnsetSubscription(device: device, key: device.onsetObservers.add(engine: self, handler))
        }
    }

    /// This engine's onsets as their reports arrive, as an async sequence (``observeOnsets(_:)``).
    /// The sequence goes on across plays; it ends when the task iterating it is cancelled.
    /// Reports are buffered as `bufferingPolicy` says (all of them by default).
    public func onsetUpdates(
        bufferingPolicy: AsyncStream<OnsetUpdate>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<OnsetUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: OnsetUpdate.self, bufferingPolicy: bufferingPolicy)
        let subscription = observeOnsets { continuation.yield($0) }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }
}
