// Insight: seeing what a run did and why. This room holds the observer the
// scheduler tells of every fate (RunInsight: `--trace`, `--stats`' table of
// keys and distinct keys, `--marbles`), the recording and drawing of
// marbles, the bounded counters behind `--stats` (DistinctKeys,
// HeavyHitters, SchedulerStats) and the summary's text (StatsText.swift).
//
// The scheduler is generic over its observer, as it is over its sink: with
// `NoObserver` (`isActive` false) every call and the work to prepare it
// compile away, so a run that asks for none of these runs the instructions
// it would run without them. (Held as an optional instead, the tests where
// it would be told cost 5 to 10 instructions a line, 2% of a debounce.)

/// Watches a scheduler's events. Calls come in the order fates become
/// certain; bytes are valid only for the call.
package protocol SchedulerObserver: AnyObject {
    /// False only for `NoObserver`: the scheduler then makes no calls.
    static var isActive: Bool { get }
    /// An event entered its key's policy.
    func entered(_ event: EventNumber, key: UnsafeRawBufferPointer, at time: Instant)
    /// A key joined the key table; true if it is known to be new to the run.
    func keyJoined(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Bool
    /// A line was written; `atEnd` when end of input released it.
    func emitted(_ emission: Emission, atEnd: Bool)
    /// `--batch`: a batch goes out now, `first` its oldest event (its lines
    /// follow, through `emitted`); a default does nothing.
    func batched(_ batch: BatchRelease, first: EventNumber)
    /// A pending event was replaced by a later one of its key.
    func replaced(_ event: EventNumber, by later: EventNumber)
    /// An incoming event was dropped inside a window ending at `windowEnd`.
    func dropped(_ event: EventNumber, windowEnd: Instant?)
    /// A line that never reached the policy.
    func bypassed(_ line: EventNumber, _ why: Bypass, at time: Instant)
    /// A discarded event was emitted instead, by `--then-every`.
    func letThrough(_ emission: Emission)
    /// A good moment to write out what was gathered.
    func flush()
    /// The distinct-key count when it is an estimate, else nil.
    var distinctKeysEstimate: Int64? { get }
    /// What it has for `--stats` (the busiest keys) and, given a width,
    /// `--marbles`' diagram.
    func results(into report: inout RunReport, marblesWidth: Int?)
}

extension SchedulerObserver {
    /// Only RunInsight cares what goes out as a batch.
    package func batched(_ batch: BatchRelease, first: EventNumber) {}
}

/// Why a line never reached the policy.
package enum Bypass: Equatable, Sendable {
    /// Empty (replay): skipped.
    case empty
    /// Its timestamp did not parse, and `--on-bad-time skip` dropped it.
    case badTimeSkipped
    /// Its timestamp did not parse, and `--on-bad-time pass` wrote it.
    case badTimePassed
    /// `--exempt`: written at once, at its event time.
    case exempt
}


/// The observer of a run that watches nothing.
package final class NoObserver: SchedulerObserver {
    package static var isActive: Bool { false }
    package init() {}
    package func entered(_ event: EventNumber, key: UnsafeRawBufferPointer, at time: Instant) {}
    package func keyJoined(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Bool { false }
    package func emitted(_ emission: Emission, atEnd: Bool) {}
    package func replaced(_ event: EventNumber, by later: EventNumber) {}
    package func dropped(_ event: EventNumber, windowEnd: Instant?) {}
    package func bypassed(_ line: EventNumber, _ why: Bypass, at time: Instant) {}
    package func letThrough(_ emission: Emission) {}
    package func flush() {}
    package var distinctKeysEstimate: Int64? { nil }
    package func results(into report: inout RunReport, marblesWidth: Int?) {}
}
