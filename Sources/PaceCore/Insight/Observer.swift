// Insight: seeing what a run did and why. This room holds the observer the
// scheduler tells of every fate (RunInsight: `--trace`, `--stats`' table of
// keys and distinct keys, `--marbles`), the recording and drawing of
// marbles, the bounded counters behind `--stats` (DistinctKeys,
// HeavyHitters, SchedulerStats) and the summary's text (StatsText.swift).
//
// The scheduler holds the observer as an optional, chosen at run time: a
// run that asks for none of these pays one predictable branch where the
// observer would be told, and none of its memory.

/// Why a line never reached the policy.
package enum Bypass: Equatable, Sendable {
    /// Empty (replay): skipped.
    case empty
    /// Its timestamp did not parse, and `--on-bad-time skip` dropped it.
    case badTimeSkipped
    /// Its timestamp did not parse, and `--on-bad-time pass` wrote it.
    case badTimePassed
}

