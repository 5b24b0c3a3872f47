// How `--trace`, `--stats`' per-key table and `--marbles` watch a run: every
// event that enters, every emission, every event a policy discards, every line
// that never reached the policy. The scheduler is specialised for its
// observer, and with `NoObserver` (`isActive` false) every call and the work
// to prepare it compile away: the hot path is unchanged when none of them is
// asked for.

/// Watches a scheduler's events. Calls come in the order fates become
/// certain; `line` bytes are valid only for the call.
public protocol SchedulerObserver {
    /// False only for `NoObserver`: the scheduler then makes no calls.
    static var isActive: Bool { get }
    /// An event entered its key's policy.
    mutating func entered(_ event: EventNumber, line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                          at time: Instant)
    /// An event was written; `atEnd` when end of input released it.
    mutating func emitted(_ event: EventNumber, line: UnsafeRawBufferPointer, at time: Instant, atEnd: Bool)
    /// A pending event was replaced by a later one of its key.
    mutating func replaced(_ event: EventNumber, by later: EventNumber)
    /// An incoming event was dropped inside a window ending at `windowEnd`.
    mutating func dropped(_ event: EventNumber, windowEnd: Instant?)
    /// A line that never reached the policy (the driver reports these).
    mutating func bypassed(_ line: EventNumber, _ why: Bypass, at time: Instant)
    /// A good moment to write out what was gathered (the drivers call it).
    mutating func flush()
}

/// Why a line never reached the policy.
public enum Bypass: Equatable, Sendable {
    /// Empty (replay): skipped.
    case empty
    /// Its timestamp did not parse, and `--on-bad-time skip` dropped it.
    case badTimeSkipped
    /// Its timestamp did not parse, and `--on-bad-time pass` wrote it.
    case badTimePassed
}

/// The observer of a run that watches nothing.
public struct NoObserver: SchedulerObserver {
    public static var isActive: Bool { false }
    public init() {}
    @inline(__always)
    public mutating func entered(_ event: EventNumber, line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                                 at time: Instant) {}
    @inline(__always)
    public mutating func emitted(_ event: EventNumber, line: UnsafeRawBufferPointer, at time: Instant, atEnd: Bool) {}
    @inline(__always)
    public mutating func replaced(_ event: EventNumber, by later: EventNumber) {}
    @inline(__always)
    public mutating func dropped(_ event: EventNumber, windowEnd: Instant?) {}
    @inline(__always)
    public mutating func bypassed(_ line: EventNumber, _ why: Bypass, at time: Instant) {}
    @inline(__always)
    public mutating func flush() {}
}
