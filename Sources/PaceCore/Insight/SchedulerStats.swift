// The counters the scheduler keeps for `--stats`: plain integers, bumped on
// the per-line path only where the scheduler already does the work they count.

/// Counters the scheduler keeps for `--stats`.
public struct SchedulerStats: Equatable, Sendable {
    public var eventsIn: Int64 = 0
    public var emitted: Int64 = 0
    public var distinctKeys: Int64 = 0
    /// `distinctKeys` is an estimate (more keys than DistinctKeys counts
    /// exactly).
    public var distinctKeysEstimated = false
    public var activeKeys: Int64 = 0
    public var peakActiveKeys: Int64 = 0
    /// The most events held at once (`--rate`'s peak backlog).
    public var peakBacklog: Int64 = 0
    /// `--count`: discards of keys forgotten with their count (see
    /// ForgottenCounts), never counted.
    public var uncountedDiscards: Int64 = 0
    public init() {}
}
