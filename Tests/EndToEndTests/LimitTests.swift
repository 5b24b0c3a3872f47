// `--limit N/D` and `--burst` through the binary: replay output worked out by
// hand from SPEC's bucket, `--trace`'s reason for a drop, `--stats`, live
// mode, and the usage errors of N/D with their hint.

import Testing

@Suite("pace --limit, end to end")
struct LimitEndToEndTests {
    // 2 per 400 ms per user (I = 200 ms), field 2 the user.
    private let session = """
        0ms alice a1
        0ms alice a2
        10ms bob b1
        100ms alice a3
        200ms alice a4
        250ms alice a5
        400ms alice a6
        450ms bob b2

        """

    @Test("keyed replay: each key's bucket, --trace names the next token, --stats counts")
    func keyedReplay() throws {
        let input = try Pace.file(Array(session.utf8))
        let result = try Pace.run(["--limit", "2/400ms", "--key-field", "2", "--replay", "--time-format", "offset",
                                   "--emit-time", "--trace", "--stats", input])
        #expect(result.status == 0)
        // alice: a1, a2 empty the bucket (A = 400 ms); the next token is at
        // A - I = 200 ms, so a3 is dropped and a4 passes (A = 600 ms); a5
        // waits for 400 ms and is dropped; a6 at 400 passes (A = 800 ms).
        // bob's bucket is his own.
        #expect(result.stdoutText == """
            0.000000\t0ms alice a1
            0.000000\t0ms alice a2
            0.010000\t10ms bob b1
            0.200000\t200ms alice a4
            0.400000\t400ms alice a6
            0.450000\t450ms bob b2

            """)
        #expect(result.stderr == """
            pace: trace: line 1: emitted at 0.000000
            pace: trace: line 2: emitted at 0.000000
            pace: trace: line 3: emitted at 0.010000
            pace: trace: line 4: dropped: over 2 per 400ms, next token at 0.200000
            pace: trace: line 5: emitted at 0.200000
            pace: trace: line 6: dropped: over 2 per 400ms, next token at 0.400000
            pace: trace: line 7: emitted at 0.400000
            pace: trace: line 8: emitted at 0.450000
            pace: stats:
              events in:           8
              emitted:             6
              dropped:             2
              distinct keys:       2
              peak active keys:    2
              clamped timestamps:  0
              bad-time lines:      0
              passed through:      0
              empty lines:         0
            pace: stats by key (top 2 of 2 by events in):
              key    in  emitted  dropped
              alice   6        4        2
              bob     2        2        0

            """)
    }

    @Test("--limit 1/D prints exactly what --throttle D prints")
    func limitOneIsThrottle() throws {
        let input = try Pace.file(Array(session.utf8))
        let common = ["--key-field", "2", "--replay", "--time-format", "offset", "--emit-time", input]
        let limit = try Pace.run(["--limit", "1/200ms"] + common)
        let throttle = try Pace.run(["--throttle", "200ms"] + common)
        #expect(limit == throttle)
        #expect(limit.stdoutText.split(separator: "\n").count == 5)
    }

    @Test("a bucket larger than the rate lets a burst through, then paces the tokens")
    func burst() throws {
        let input = "0ms a\n0ms b\n0ms c\n0ms d\n100ms e\n199ms f\n200ms g\n"
        let result = try Pace.run(["--limit", "1/200ms", "--burst", "3", "--replay", "--time-format", "offset"], stdin: input)
        // a, b, c take the three tokens (A = 600 ms); the next comes at
        // A - 2 * 200 ms = 200 ms: d, e and f are dropped, g passes.
        #expect(result == PaceResult(stdout: Array("0ms a\n0ms b\n0ms c\n200ms g\n".utf8), stderr: "", status: 0))
    }

    @Test("live: lines read together share an instant; the bucket lets N through")
    func live() throws {
        let result = try Pace.run(["--limit", "2/h"], stdin: "one\ntwo\nthree\nfour\n")
        #expect(result == PaceResult(stdout: Array("one\ntwo\n".utf8), stderr: "", status: 0))
    }

    @Test("a bad N/D: the message, its hint, exit 2", arguments: [
        (["--limit", "0/s"], "invalid rate '0/s' for '--limit': the count must be at least 1"),
        (["--limit", "1.5/s"], "invalid rate '1.5/s' for '--limit': the count must be a positive whole number"),
        (["--limit", "10/"], "invalid rate '10/' for '--limit': the duration after '/' is missing"),
        (["--limit", "/s"], "invalid rate '/s' for '--limit': the count before '/' is missing"),
        (["--limit", "10/0s"], "invalid rate '10/0s' for '--limit': the duration must be greater than zero"),
    ] as [([String], String)])
    func badRate(arguments: [String], message: String) throws {
        let result = try Pace.run(arguments, stdin: "x\n")
        #expect(result == PaceResult(stdout: [], stderr: """
            pace: \(message)
            A rate is N/D: a whole number of lines N (1 to 1000000000) per duration D, or per one unit:
            10/s, 600/h, 5/250ms, 100/1.5s (units: ns, us, ms, s, m, h).
            See 'pace --help' for more information.

            """, status: 2))
    }

    @Test("--burst errors and misplaced flags, exit 2", arguments: [
        (["--limit", "1/s", "--burst", "0"], "pace: invalid burst '0' for '--burst': it must be at least 1\n"
            + "--burst takes a positive whole number of lines, the bucket's size: --limit 10/m --burst 30.\n"
            + "See 'pace --help' for more information.\n"),
        (["--throttle", "1s", "--burst", "2"], "pace: '--burst' only applies to --limit and --rate (not '--throttle')\n" + usageHintTail),
        (["--limit", "1/s", "--max-wait", "2s"], "pace: '--max-wait' only applies to --debounce (not '--limit')\n" + usageHintTail),
    ] as [([String], String)])
    func burstErrors(arguments: [String], stderr: String) throws {
        let result = try Pace.run(arguments, stdin: "x\n")
        #expect(result == PaceResult(stdout: [], stderr: stderr, status: 2))
    }
}
