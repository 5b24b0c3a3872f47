// `--stats`' peak backlog for `--rate`: the most events held at once, over
// all keys, as the scheduler counts them on every hold. These check its
// meaning on streams worked by hand, through the runtime (the test clock, and
// a whole replay), and the summary line.

import Glibc
@testable import PaceCore
import PaceTesting
import Testing

private func rate(_ count: Int64, per period: Nanoseconds, burst: Int64 = 1) -> Rate<EventNumber> {
    Rate(rate: CellRate(count: count, per: period, burst: burst))
}

@Suite struct BacklogStatsTests {
    @Test func thePeakIsKeptWhileTheBacklogFallsAndGrowsAgain() {
        // 1 per 2 ns, one key: a out at 0, b and c held for 2 and 4 (2 at
        // once); b is out by 3, when d is held for 6 (2 again, not 3). c and
        // d are out by 6, when e, f and g come: held for 8, 10 and 12, 3 at
        // once.
        var clock = TestClock(policy: rate(1, per: 2))
        clock.send("a", at: 0)
        clock.send("b", at: 0)
        clock.send("c", at: 0)
        #expect(clock.stats.peakBacklog == 2)
        clock.send("d", at: 3)
        #expect(clock.stats.peakBacklog == 2)
        clock.send("e", at: 6)
        #expect(clock.stats.peakBacklog == 2)
        clock.send("f", at: 6)
        clock.send("g", at: 6)
        #expect(clock.stats.peakBacklog == 3)
        clock.finish()
        #expect(clock.stats.peakBacklog == 3)
        #expect(clock.emissions.map(\.time) == [0, 2, 4, 6, 8, 10, 12])
        #expect(clock.emissions.map { String(decoding: $0.line, as: UTF8.self) } == ["a", "b", "c", "d", "e", "f", "g"])
    }

    @Test func peakBacklogAcrossInterleavedKeys() {
        // 1 per 2 ns per key. At 0: x1 out, x2 waits for 2 (backlog 1).
        // At 1: y1 out; x3 waits for 4, y2 for 3 (3 at once). x2 goes at 2
        // and y2 at 3 (1 left), then y3 at 3 waits for 5 (2). The peak is 3.
        var clock = TestClock(policy: rate(1, per: 2), keyed: true)
        clock.send("x1", key: "x", at: 0)
        clock.send("x2", key: "x", at: 0)
        #expect(clock.stats.peakBacklog == 1)
        clock.send("y1", key: "y", at: 1)
        clock.send("x3", key: "x", at: 1)
        clock.send("y2", key: "y", at: 1)
        #expect(clock.stats.peakBacklog == 3)
        #expect(clock.heldKeys == 2)
        // x2 at 2 and y2 at 3 go out before y3 comes at 3.
        clock.send("y3", key: "y", at: 3)
        #expect(clock.takeEmissions() == [Emitted(time: 0, "x1"), Emitted(time: 1, "y1"), Emitted(time: 2, "x2"),
                                          Emitted(time: 3, "y2")])
        #expect(clock.nextDeadline == 4)
        clock.finish()
        #expect(clock.takeEmissions() == [Emitted(time: 4, "x3"), Emitted(time: 5, "y3")])
        #expect(clock.stats.peakBacklog == 3)
        #expect(clock.heldKeys == 0)
    }

    @Test func aReplayReportsThePeakBacklog() throws {
        // --rate 1/100ms over two keys (field 2): x's three lines at 0 leave
        // two waiting, y's two at 0.05 one more: 3 at once, until x's
        // second goes out at 0.1. (Without --stats: no key table after the
        // summary, which is then the summary alone.)
        guard case let .success(.run(configuration)) = parseArguments(
            ["--rate", "1/100ms", "--key-field", "2", "--replay", "--time-format", "unix"]) else {
            Issue.record("bad arguments")
            return
        }
        let input = "0 x a\n0 x b\n0 x c\n0.05 y d\n0.05 y e\n"
        let fd = memoryFile(Array(input.utf8))
        defer { close(fd) }
        var reader = LineReader(fd: fd)
        var sink = RecordingSink()
        let report = runReplay(configuration, defaultYear: 2026, input: &reader, sink: &sink, signals: .none)
        let ms: Int64 = 1_000_000
        #expect(sink.emissions == [
            Emitted(time: 0, "0 x a"), Emitted(time: Instant(50 * ms), "0.05 y d"),
            Emitted(time: Instant(100 * ms), "0 x b"), Emitted(time: Instant(150 * ms), "0.05 y e"),
            Emitted(time: Instant(200 * ms), "0 x c"),
        ])
        #expect(report.scheduler.peakBacklog == 3)
        #expect(report.reportsBacklog)
        #expect(report.statsText.hasSuffix("  empty lines:         0\n  peak backlog:        3\n"))
    }

    @Test func theSummaryShowsThePeakBacklogForRateOnly() {
        var report = RunReport()
        report.scheduler.peakBacklog = 2
        #expect(!report.statsText.contains("backlog"))
        report.reportsBacklog = true
        #expect(report.statsText.hasSuffix("  empty lines:         0\n  peak backlog:        2\n"))
    }

    @Test func onlyRateReportsItsBacklog() {
        // Debounce holds lines too, but --stats says nothing of a backlog.
        guard case let .success(.run(configuration)) = parseArguments(
            ["--debounce", "1s", "--replay", "--time-format", "unix", "--stats"]) else {
            Issue.record("bad arguments")
            return
        }
        let fd = memoryFile(Array("0 a\n".utf8))
        defer { close(fd) }
        var reader = LineReader(fd: fd)
        var sink = RecordingSink()
        let report = runReplay(configuration, defaultYear: 2026, input: &reader, sink: &sink, signals: .none)
        #expect(!report.reportsBacklog)
        #expect(!report.statsText.contains("backlog"))
    }
}
