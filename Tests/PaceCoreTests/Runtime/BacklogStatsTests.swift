// `--stats`' peak backlog for `--rate`: events waiting at once, over all
// keys. The counter is SchedulerStats.held(+1/-1); these check its meaning
// on streams worked by hand, and the summary line.

import PaceCore
import PaceTesting
import Testing

@Suite struct BacklogStatsTests {
    @Test func heldCountsUpAndDownAndKeepsThePeak() {
        var stats = SchedulerStats()
        stats.held(1)
        stats.held(1)
        stats.held(-1)
        stats.held(1)
        stats.held(1)
        stats.held(-1)
        #expect(stats.backlog == 2)
        #expect(stats.peakBacklog == 3)
    }

    @Test func peakBacklogAcrossInterleavedKeys() {
        // 1 per 2 ns per key. At 0: x1 out, x2 waits for 2 (backlog 1).
        // At 1: y1 out; x3 waits for 4, y2 for 3 (3 at once). x2 goes at 2
        // and y2 at 3 (1 left), then y3 at 3 waits for 5 (2). The peak is 3.
        var driver = ReducerDriver(Rate(rate: CellRate(count: 1, per: 2, burst: 1)), keyed: true)
        driver.send(key: "x", at: 0)
        driver.send(key: "x", at: 0)
        driver.send(key: "y", at: 1)
        driver.send(key: "x", at: 1)
        driver.send(key: "y", at: 1)
        #expect(driver.stats.backlog == 3)
        driver.send(key: "y", at: 3)
        #expect(driver.stats.backlog == 2)
        driver.finish()
        #expect(driver.stats.backlog == 0)
        #expect(driver.stats.peakBacklog == 3)
        #expect(driver.emissions.map(\.time) == [0, 1, 2, 3, 4, 5])
    }

    @Test func theSummaryShowsThePeakBacklogForRateOnly() {
        var report = RunReport()
        report.scheduler.held(1)
        report.scheduler.held(1)
        report.scheduler.held(-2)
        #expect(!report.statsText.contains("backlog"))
        report.reportsBacklog = true
        #expect(report.statsText.hasSuffix("  empty lines:         0\n  peak backlog:        2\n"))
    }
}
