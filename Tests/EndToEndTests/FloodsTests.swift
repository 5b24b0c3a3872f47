// Issue 23 through the real binary: masked keys (`5-~`), `--exempt`,
// `--then-every` and `--count-field`, with their usage errors. Expected
// bytes are written out by hand from SPEC.

import Testing

@Suite("Floods of one message, end to end")
struct FloodsEndToEndTests {
    @Test("--stats with a masked message key lists the message templates and their counts")
    func topTemplates() throws {
        let input = """
            0ms user 4711 failed from 10.0.0.7
            1ms user 17 failed from 10.0.0.9
            2ms disk sda1 full
            3ms user 9 failed from 10.0.0.1

            """
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "2-~", "--stats"], stdin: input)
        #expect(result == PaceResult(stdout: Array("0ms user 4711 failed from 10.0.0.7\n2ms disk sda1 full\n".utf8),
                                     stderr: """
            pace: stats:
              events in:           4
              emitted:             2
              dropped:             2
              distinct keys:       2
              peak active keys:    2
              clamped timestamps:  0
              bad-time lines:      0
              passed through:      0
              empty lines:         0
            pace: stats by key (top 2 of 2 by events in):
              key                   in  emitted  dropped
              user # failed from #   3        1        2
              disk # full            1        1        0

            """, status: 0))
    }

    static let levels = """
        0ms h1 INFO a
        1ms h1 ERROR b
        2ms h1 error c
        3ms h1 INFO d
        1500ms h1 INFO e
        1600ms h1 Error f

        """

    @Test("--exempt: matching lines (ASCII case ignored) pass at once, count 1, and owe nothing")
    func exempt() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "2", "--exempt", "3=error,fatal",
                                   "--count", "--emit-time", "--stats"], stdin: Self.levels)
        #expect(String(decoding: result.stdout, as: UTF8.self) == """
            0.000000	1	0ms h1 INFO a
            0.001000	1	1ms h1 ERROR b
            0.002000	1	2ms h1 error c
            1.500000	2	1500ms h1 INFO e
            1.600000	1	1600ms h1 Error f

            """)
        #expect(result.stderr.contains("  events in:           3\n  emitted:             2\n  dropped:             1\n"))
        #expect(result.stderr.contains("  empty lines:         0\n  exempt lines:        3\n"))
        #expect(result.status == 0)
    }

    @Test("--exempt with --exec: PACE_KEY is the key the line would have had, PACE_COUNT 1")
    func exemptExec() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "2-~", "--exempt", "3=error",
                                   "--exec", #"printf '%s|%s|%s\n' "$PACE_KEY" "$PACE_COUNT" "$PACE_LINE""#],
                                  stdin: "0ms h1 INFO a1\n1ms h1 ERROR b2\n2ms h1 INFO a3\n1500ms h1 INFO a4\n")
        #expect(result == PaceResult(stdout: Array("""
            # INFO #|1|0ms h1 INFO a1
            # ERROR #|1|1ms h1 ERROR b2
            # INFO #|2|1500ms h1 INFO a4

            """.utf8), stderr: "", status: 0))
    }

    @Test("--trace says a line was exempt; --dropped gets only the policy's discards")
    func exemptTrace() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "2", "--exempt", "3=error",
                                   "--trace"], stdin: Self.levels)
        #expect(result.stderr == """
            pace: trace: line 1: emitted at 0.000000
            pace: trace: line 2: exempt, emitted at 0.001000
            pace: trace: line 3: exempt, emitted at 0.002000
            pace: trace: line 4: dropped inside the window ending at 1.000000
            pace: trace: line 5: emitted at 1.500000
            pace: trace: line 6: exempt, emitted at 1.600000

            """)
    }

    @Test("issue 23's usage errors", arguments: [
        (["--replay", "--time-field", "1~"],
         "pace: invalid time field for '--time-field': '1~': a time field is not masked ('~' is for --key-field)"),
        (["--key-field", "2,~"], "pace: invalid field list for '--key-field': '~' masks the item before it, and '2,~' has none"),
        (["--exempt", "3"], "pace: invalid value for '--exempt': '3' is not ITEM=VALUES (no '=')"),
        (["--exempt", "3-4=a"], "pace: invalid value for '--exempt': '3-4': the field is one item (a number or a NAME), not a range"),
        (["--exempt", "2,3=a"], "pace: invalid value for '--exempt': '2,3': the field is one item (a number or a NAME), not a list"),
        (["--exempt", "msg~=a"], "pace: invalid value for '--exempt': 'msg~': the field is not masked ('~' is for --key-field)"),
        (["--exempt", "level=a,,b"], "pace: invalid value for '--exempt': 'level=a,,b' has an empty value (VALUES are comma-separated, none empty)"),
        (["--exempt", "level="], "pace: invalid value for '--exempt': 'level=' has an empty value (VALUES are comma-separated, none empty)"),
    ])
    func usageErrors(_ arguments: [String], _ firstLine: String) throws {
        let result = try Pace.run(["--throttle", "1s"] + arguments)
        #expect(result.stdout.isEmpty && result.status == 2)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(result.stderr.contains("See 'pace --help' for more information.\n"))
    }
}
