// --trace and --marbles for the count policies: a line `--limit` drops says
// which limit it was over and when its key's next token comes; the marbles
// draw `--limit`'s drops and `--rate`'s delays. Expected texts are worked out
// by hand in the comments.

@testable import PaceCore
import PaceTesting
import Testing

/// 2 per 400 ms (I = 200 ms) on keys x and y (field 2).
private let lines = """
    0.000 x a
    0.000 x b
    0.050 x c
    0.100 y d
    0.250 x e
    0.300 x f

    """

@Suite("Trace and marbles: --limit, --rate")
struct LimitInsightTests {
    @Test("--limit: over N per D, next token at the instant a line of the key would pass")
    func limitTrace() {
        let run = replay(["--limit", "2/400ms", "--key-field", "2", "--replay", "--time-format", "unix", "--trace"], lines)
        // x: a and b empty the bucket (A = 0.4); the next token is at
        // A - I = 0.2, so c is dropped; e at 0.25 passes (A = 0.6), and the
        // next token is then at 0.4: f is dropped.
        #expect(run.stdout == "0.000 x a\n0.000 x b\n0.100 y d\n0.250 x e\n")
        #expect(run.trace == """
            pace: trace: line 1: emitted at 0.000000
            pace: trace: line 2: emitted at 0.000000
            pace: trace: line 3: dropped: over 2 per 400ms, next token at 0.200000
            pace: trace: line 4: emitted at 0.100000
            pace: trace: line 5: emitted at 0.250000
            pace: trace: line 6: dropped: over 2 per 400ms, next token at 0.400000

            """)
    }

    @Test("--limit with --burst: the next token is not the bucket's refill")
    func limitTraceWithBurst() {
        // 1 per 100 ms, bucket of 3, unkeyed: a, b, c at 0 leave A = 0.3; the
        // next token comes at A - 2 * I = 0.1 (the key is idle only at 0.3).
        let run = replay(["--limit", "1/100ms", "--burst", "3", "--replay", "--time-format", "unix", "--trace"],
                         "0 a\n0 b\n0 c\n0.05 d\n")
        #expect(run.trace.hasSuffix("pace: trace: line 4: dropped: over 1 per 100ms, next token at 0.100000\n"))
    }

    @Test("--limit marbles: the drops are missing from out")
    func limitMarbles() {
        let run = replay(["--limit", "2/400ms", "--key-field", "2", "--replay", "--time-format", "unix", "--marbles"],
                         lines, columns: 40)
        // 40 - 2 - 5 - 1 = 32 columns over 0.3 s: column = floor(t * 31 / 0.3):
        // 0.05 -> 5, 0.1 -> 10, 0.25 -> 25, 0.3 -> 31.
        #expect(run.report.marbles == """
            pace: marbles: 0.000000 s to 0.300000 s, 0.009677 s per column
              x in  2----c-------------------d-----e
              x out 2------------------------d
              y in  ----------a
              y out ----------a
              a-z: a key's events in order (o after the 26th); in out, the ones emitted
              2-9: that many in one column, *: 10 or more; -: none

            """)
    }

    @Test("--rate marbles: every line comes out, later")
    func rateMarbles() {
        // --rate 1/100ms: four lines at 0 go out at 0, 0.1, 0.2 and 0.3.
        let run = replay(["--rate", "1/100ms", "--replay", "--time-format", "unix", "--marbles"],
                         "0 a\n0 b\n0 c\n0 d\n", columns: 20)
        #expect(run.stdout == "0 a\n0 b\n0 c\n0 d\n")
        // 20 - 2 - 3 - 1 = 14 columns over 0.3 s: column = floor(t * 13 / 0.3):
        // 0.1 -> 4, 0.2 -> 8, 0.3 -> 13.
        #expect(run.report.marbles == """
            pace: marbles: 0.000000 s to 0.300000 s, 0.023076 s per column
              in  4
              out a---b---c----d
              a-z: a key's events in order (o after the 26th); in out, the ones emitted
              2-9: that many in one column, *: 10 or more; -: none

            """)
    }

    @Test("--rate trace: each line emitted at its due time")
    func rateTrace() {
        // 2 per 100 ms, bucket of 2: a and b at once (A = 0.1), c waits
        // for A - I = 0.05 (A = 0.15), d at 0.2 finds a token, e at 0.2
        // too (A = 0.25 then 0.3) and f waits for 0.25, past the end of
        // input.
        let run = replay(["--rate", "2/100ms", "--burst", "2", "--replay", "--time-format", "unix", "--trace"],
                         "0 a\n0 b\n0 c\n0.2 d\n0.2 e\n0.2 f\n")
        #expect(run.stdout == "0 a\n0 b\n0 c\n0.2 d\n0.2 e\n0.2 f\n")
        #expect(run.trace == """
            pace: trace: line 1: emitted at 0.000000
            pace: trace: line 2: emitted at 0.000000
            pace: trace: line 3: emitted at 0.050000
            pace: trace: line 4: emitted at 0.200000
            pace: trace: line 5: emitted at 0.200000
            pace: trace: line 6: still pending at end of input, emitted at 0.250000

            """)
    }

    @Test("durations in a trace read as typed", arguments: [
        (1, "1ns"), (1_500, "1500ns"), (250_000_000, "250ms"), (1_000_000_000, "1s"), (1_500_000_000, "1500ms"),
        (60_000_000_000, "1m"), (3_600_000_000_000, "1h"), (90 * 60_000_000_000, "90m"), (2_000, "2us"),
    ] as [(Int64, String)])
    func durations(ns: Int64, text: String) {
        #expect(durationText(Nanoseconds(ns)) == text)
    }
}
