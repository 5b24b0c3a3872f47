// The texts of --progress and --metrics, byte for byte, written by hand.

import Testing
@testable import PaceCore

@Suite("Watch texts")
struct WatchTextTests {
    private var figures: WatchFigures {
        var f = WatchFigures()
        f.linesRead = 120
        f.emitted = 80
        f.discarded = 38
        f.pending = 2
        f.badTime = 1
        f.keysActive = 2
        return f
    }

    @Test("the status line: live, replay, replay of a file with the time left; cut one column short of the width")
    func progress() {
        let live = ProgressFigures(figures: figures, linesPerSecond: 40)
        #expect(String(decoding: progressText(live, width: 80), as: UTF8.self)
                == "in 120, emitted 80, discarded 38, keys 2, 40 lines/s")
        var replay = figures
        replay.virtualTime = Instant(nanoseconds: 12_500_000_000)
        let file = ProgressFigures(figures: replay, linesPerSecond: 40, position: (offset: 430, size: 1000),
                                   timeLeft: Nanoseconds(11_200_000_000))
        #expect(String(decoding: progressText(file, width: 200), as: UTF8.self)
                == "in 120, emitted 80, discarded 38, keys 2, 40 lines/s, time 12.500000, 43% read, 0:12 left")
        #expect(String(decoding: progressText(file, width: 21), as: UTF8.self) == "in 120, emitted 80, ")
        #expect(progressText(file, width: 0) == [])
        #expect(clockText(Nanoseconds(0)) == "0:00")
        #expect(clockText(Nanoseconds(750_000_000_000)) == "12:30")
        #expect(clockText(Nanoseconds(3_723_000_000_000)) == "1:02:03")
    }

    @Test("the metrics file: every HELP, TYPE and value; --exec's counters only with it")
    func metrics() {
        var f = figures
        f.commands = (started: 7, failed: 1)
        let text = metricsText(f, startTime: Instant(nanoseconds: 1_796_000_000_250_000_000))
        #expect(text == """
            # HELP pace_lines_read_total Lines read from the input.
            # TYPE pace_lines_read_total counter
            pace_lines_read_total 120
            # HELP pace_lines_emitted_total Lines written to stdout or run as a command.
            # TYPE pace_lines_emitted_total counter
            pace_lines_emitted_total 80
            # HELP pace_lines_discarded_total Lines discarded (what --dropped gets).
            # TYPE pace_lines_discarded_total counter
            pace_lines_discarded_total 38
            # HELP pace_lines_bad_time_total Lines whose timestamp did not parse.
            # TYPE pace_lines_bad_time_total counter
            pace_lines_bad_time_total 1
            # HELP pace_lines_exempt_total Lines let through outside the policy by --exempt.
            # TYPE pace_lines_exempt_total counter
            pace_lines_exempt_total 0
            # HELP pace_commands_started_total Commands of --exec started.
            # TYPE pace_commands_started_total counter
            pace_commands_started_total 7
            # HELP pace_commands_failed_total Commands of --exec that failed.
            # TYPE pace_commands_failed_total counter
            pace_commands_failed_total 1
            # HELP pace_keys_active Keys with policy state now.
            # TYPE pace_keys_active gauge
            pace_keys_active 2
            # HELP pace_lines_pending Lines read and not yet decided.
            # TYPE pace_lines_pending gauge
            pace_lines_pending 2
            # HELP pace_start_time_seconds When pace started, in seconds since the Unix epoch.
            # TYPE pace_start_time_seconds gauge
            pace_start_time_seconds 1796000000.250000

            """)
        #expect(!metricsText(figures, startTime: Instant(nanoseconds: 0)).contains("pace_commands"))
    }
}
