// The counters the scheduler keeps for `--stats`: plain integers, bumped on
// the per-line path only where the scheduler already does the work they count.

/// Counters the scheduler keeps for `--stats`.
package struct SchedulerStats: Equatable, Sendable {
    package var eventsIn: Int64 = 0
    package var emitted: Int64 = 0
    package var distinctKeys: Int64 = 0
    /// `distinctKeys` is an estimate (more keys than DistinctKeys counts
    /// exactly).
    package var distinctKeysEstimated = false
    package var activeKeys: Int64 = 0
    package var peakActiveKeys: Int64 = 0
    /// The most events held at once (`--rate`'s peak backlog).
    package var peakBacklog: Int64 = 0
    /// `--then-every`: discards it let through instead.
    package var thenEveryPasses: Int64 = 0
    /// `--count`: discards of keys forgotten with their count (see
    /// ForgottenCounts), never counted.
    package var uncountedDiscards: Int64 = 0
    /// `--batch`: batches out (what a timer or a full batch sends, even a
    /// batch of one; a throttle-last line out at once is none), and the
    /// most lines in one.
    package var batches: Int64 = 0
    package var largestBatch: Int64 = 0
    /// `--resolve-after`: episodes opened, resolved, and the most open at once.
    package var episodesOpened: Int64 = 0
    package var episodesResolved: Int64 = 0
    package var peakOpenEpisodes: Int64 = 0
    /// Episodes open now (`--metrics`' gauge).
    package var openEpisodes: Int64 = 0
    package init() {}
}
