// --trace, --marbles and --stats' table of keys, through the binary: stdout
// carries only the surviving lines; everything else is on stderr.

import Testing

@Suite("Trace and marbles, end to end")
struct TraceTests {
    private let session = """
        0ms alice login
        40ms bob login
        90ms alice click
        150ms alice click
        400ms bob click
        420ms alice click
        900ms bob logout

        """

    @Test("--trace, --marbles and --stats together, keyed (the README's example)")
    func readmeExample() throws {
        let input = try Pace.file(Array(session.utf8))
        let result = try Pace.run(["--throttle", "200ms", "--key-field", "2", "--replay", "--trace", "--marbles",
                                   "--stats", input], environment: ["COLUMNS": "60"])
        #expect(result.status == 0)
        #expect(result.stdoutText == "0ms alice login\n40ms bob login\n400ms bob click\n420ms alice click\n900ms bob logout\n")
        // 60 - 2 - 9 ("alice out") - 1 = 48 columns; column = floor(t * 47 / 0.9).
        #expect(result.stderr == """
            pace: trace: line 1: emitted at 0.000000
            pace: trace: line 2: emitted at 0.040000
            pace: trace: line 3: dropped inside the window ending at 0.200000
            pace: trace: line 4: dropped inside the window ending at 0.200000
            pace: trace: line 5: emitted at 0.400000
            pace: trace: line 6: emitted at 0.420000
            pace: trace: line 7: emitted at 0.900000
            pace: marbles: 0.000000 s to 0.900000 s, 0.019148 s per column
              alice in  a---b--c-------------d
              alice out a--------------------d
              bob in    --a-----------------b--------------------------c
              bob out   --a-----------------b--------------------------c
              a-z: a key's events in order (o after the 26th); in out, the ones emitted
              2-9: that many in one column, *: 10 or more; -: none
            pace: stats:
              events in:           7
              emitted:             5
              dropped:             2
              distinct keys:       2
              peak active keys:    2
              clamped timestamps:  0
              bad-time lines:      0
              passed through:      0
              empty lines:         0
            pace: stats by key (top 2 of 2 by events in):
              key    in  emitted  dropped
              alice   4        2        2
              bob     3        3        0

            """, "\(result)")
    }

    @Test("--trace on a bad timestamp that ends input: the pending line's fate, then the error")
    func traceBeforeBadTimeError() throws {
        let result = try Pace.run(["--debounce", "300ms", "--replay", "--trace"],
                                  stdin: "0ms a\n100ms b\n\nnot a time\n500ms c\n")
        #expect(result.status == 1)
        #expect(result.stdoutText == "100ms b\n")
        #expect(result.stderr == """
            pace: trace: line 1: replaced by line 2
            pace: trace: line 3: empty, skipped
            pace: trace: line 2: still pending at end of input, emitted at 0.400000
            pace: line 4: timestamp does not match offset, the format --time-format auto found on the first timestamped line

            """, "\(result)")
    }

    @Test("--trace live: each line's fate, the times from the clock")
    func traceLive() throws {
        let result = try Pace.run(["--throttle", "1h", "--trace"], stdin: "a\nb\n")
        #expect(result.status == 0)
        #expect(result.stdoutText == "a\n")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(result)")
        #expect(lines.first?.hasPrefix("pace: trace: line 1: emitted at ") == true, "\(result)")
        #expect(lines.last?.hasPrefix("pace: trace: line 2: dropped inside the window ending at ") == true, "\(result)")
    }

    // Issue 21: a key's escape sequence reached the terminal raw.
    @Test("--marbles over a run from 1677 to 1970 (more than 2^63 ns) draws it, and --stats follows")
    func marblesAcrossCenturies() throws {
        let input = "1677-09-21T00:12:43.145224192Z a\n1970-01-01T00:00:00Z b\n"
        let result = try Pace.run(["--throttle", "1s", "--replay", "--marbles", "--stats"], stdin: Array(input.utf8),
                                  environment: ["COLUMNS": "20"])
        #expect(result.status == 0)
        #expect(result.stdoutText == input)
        // 20 - 2 - 3 - 1 = 14 columns: b, 9223372036.854775808 s after a, in the
        // last; a's time shown to the microsecond at or before it.
        #expect(result.stderr.hasPrefix("""
            pace: marbles: -9223372036.854776 s to 0.000000 s, 709490156.681136 s per column
              in  a------------b
              out a------------b

            """))
        #expect(result.stderr.contains("pace: stats:\n  events in:           2\n  emitted:             2\n"))
    }

    @Test("--marbles labels a key with an ESC and a byte that is not UTF-8 escaped")
    func escapedMarbleLabels() throws {
        let key: [UInt8] = Array("\u{1B}[2J".utf8) + [0xFF]
        let input = Array("0ms ".utf8) + key + Array("\n100ms ".utf8) + key + Array("\n".utf8)
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "2", "--marbles"], stdin: input,
                                  environment: ["COLUMNS": "40"])
        #expect(result.stdout == Array(input[..<(input.count - 12)]))
        // Label `\x1b[2J\xff out`: 15, so 40 - 2 - 15 - 1 = 22 columns over
        // 0.1 s: 0.1 -> column 21; 0.1 / 21 = 0.004761 s per column.
        #expect(result.stderr == #"""
            pace: marbles: 0.000000 s to 0.100000 s, 0.004761 s per column
              \x1b[2J\xff in  a--------------------b
              \x1b[2J\xff out a
              a-z: a key's events in order (o after the 26th); in out, the ones emitted
              2-9: that many in one column, *: 10 or more; -: none

            """#, "\(result)")
        #expect(result.status == 0)
    }

    @Test("--marbles without --replay is a usage error")
    func marblesNeedReplay() throws {
        let result = try Pace.run(["--debounce", "1s", "--marbles"], stdin: "")
        #expect(result == PaceResult(stdout: [], stderr: "pace: '--marbles' only applies with --replay\n" + usageHintTail,
                                     status: 2))
    }
}
