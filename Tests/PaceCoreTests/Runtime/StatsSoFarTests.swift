// SIGUSR1's summary of the run so far says what the final one would say of
// the same moment: lines the policy still holds (`--rate`'s waiting lines, a
// debounce's pending one) are pending, not dropped; and it has the rows the
// run's flags give the final one (`peak backlog`, `uncounted discards`).

@testable import PaceCore
import Testing

@Suite struct StatsSoFarTests {
    /// The report the driver starts a `--rate --count` run with.
    private var rateCounted: RunReport {
        var report = RunReport()
        report.reportsBacklog = true
        report.counted = true
        return report
    }

    @Test func waitingLinesArePendingNotDropped() {
        // --rate: 5 lines read together, 1 out, 4 waiting.
        var stats = SchedulerStats()
        stats.eventsIn = 5
        stats.emitted = 1
        stats.distinctKeys = 1
        stats.activeKeys = 1
        stats.peakActiveKeys = 1
        stats.peakBacklog = 4
        #expect(rateCounted.soFar(stats, topKeys: nil, pending: 4).statsText == """
            pace: stats:
              events in:           5
              emitted:             1
              dropped:             0
              pending:             4
              distinct keys:       1
              peak active keys:    1
              clamped timestamps:  0
              bad-time lines:      0
              passed through:      0
              empty lines:         0
              peak backlog:        4
              uncounted discards:  0

            """)
    }

    @Test func aReplacedLineIsDroppedAndItsReplacementPending() {
        // --debounce: 3 lines of one burst, the first two replaced.
        var stats = SchedulerStats()
        stats.eventsIn = 3
        let report = RunReport().soFar(stats, topKeys: nil, pending: 1)
        #expect(report.dropped == 2)
        #expect(report.statsText.contains("  dropped:             2\n  pending:             1\n"))
    }

    @Test func withNothingPendingTheSummaryIsTheFinalOne() {
        // Every line decided: no pending row, the rows of the final summary.
        var stats = SchedulerStats()
        stats.eventsIn = 5
        stats.emitted = 5
        stats.distinctKeys = 1
        stats.peakActiveKeys = 1
        stats.peakBacklog = 4
        var final = rateCounted
        final.scheduler = stats
        #expect(rateCounted.soFar(stats, topKeys: nil, pending: 0).statsText == final.statsText)
        #expect(final.statsText == """
            pace: stats:
              events in:           5
              emitted:             5
              dropped:             0
              distinct keys:       1
              peak active keys:    1
              clamped timestamps:  0
              bad-time lines:      0
              passed through:      0
              empty lines:         0
              peak backlog:        4
              uncounted discards:  0

            """)
    }
}
