// Issue 23 through the real binary: masked keys (`5-~`), `--exempt`,
// `--then-every` and `--count-field`, with their usage errors. Expected
// bytes are written out by hand from SPEC.

import Foundation
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

    @Test("--then-every 3 under --throttle: every third discard in a row goes out at once, counting 3")
    func thenEveryThrottle() throws {
        let input = (0..<8).map { "\($0)ms a\n" }.joined() + "1500ms a\n"
        let result = try Pace.run(["--throttle", "1s", "--replay", "--then-every", "3", "--count", "--emit-time",
                                   "--trace"], stdin: input)
        // 1ms and 2ms are dropped, 3ms goes out (3); 4ms and 5ms dropped,
        // 6ms out (3); 7ms dropped. The window never moved: 1500ms opens the
        // next one and counts itself and 7ms.
        #expect(String(decoding: result.stdout, as: UTF8.self) == """
            0.000000\t1\t0ms a
            0.003000\t3\t3ms a
            0.006000\t3\t6ms a
            1.500000\t2\t1500ms a

            """)
        #expect(result.stderr.contains("pace: trace: line 4: let through by --then-every, emitted at 0.003000\n"))
        #expect(result.stderr.contains("pace: trace: line 8: dropped inside the window ending at 1.000000\n"))
    }

    @Test("--then-every 2 under --debounce: the replaced pending line goes out, the new one stays pending")
    func thenEveryDebounce() throws {
        let result = try Pace.run(["--debounce", "1s", "--replay", "--then-every", "2", "--emit-time"],
                                  stdin: "0ms a\n1ms b\n2ms c\n3ms d\n4ms e\n")
        #expect(result == PaceResult(stdout: Array("""
            0.002000\t1ms b
            0.004000\t3ms d
            1.004000\t4ms e

            """.utf8), stderr: "", status: 0))
    }

    @Test("--then-every: --stats counts the lines it let through")
    func thenEveryStats() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--then-every", "2", "--stats"],
                                  stdin: "0ms a\n1ms a\n2ms a\n3ms a\n")
        #expect(result.stdout == Array("0ms a\n2ms a\n".utf8))
        #expect(result.stderr.contains("  events in:           4\n  emitted:             2\n  dropped:             2\n"))
        #expect(result.stderr.contains("  empty lines:         0\n  then-every passes:   1\n"))
    }

    @Test("--count-field: a member before a JSON object's closing brace, else a logfmt pair before a final CR")
    func countField() throws {
        let input: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("""
            {"a":1}
            { }
             {"x":2} \r
            plain line
            line cr\r
            {broken
            {}
            {"a":1}
            {"a":1}

            """.utf8)
        let result = try Pace.run(["--throttle", "1s", "--count-field", "n", "--replay", "--time-format", "offset",
                                   "--on-bad-time", "pass"], stdin: input)
        // Every line has a bad timestamp and passes through: count 1.
        #expect(result == PaceResult(stdout: [0xEF, 0xBB, 0xBF] + Array("""
            {"a":1,"n":1}
            { "n":1}
             {"x":2,"n":1} \r
            plain line n=1
            line cr n=1\r
            {broken n=1
            {"n":1}
            {"a":1,"n":1}
            {"a":1,"n":1}

            """.utf8), stderr: "", status: 0))
    }

    @Test("--count-field on JSON lines: objects Python's json module reads, the member equal to --count's number")
    func countFieldJSON() throws {
        var lines = ""
        for i in 0..<200 { lines += "{\"ts\": \(1_795_953_600 + i / 7), \"host\": \"h\(i % 3)\", \"m\": \"x\\\"}\"}\n" }
        let withField = try Pace.run(["--throttle", "2s", "--replay", "--key-field", "host", "--time-field", "ts",
                                      "--count-field", "n"], stdin: lines)
        let withCount = try Pace.run(["--throttle", "2s", "--replay", "--key-field", "host", "--time-field", "ts",
                                      "--count"], stdin: lines)
        #expect(withField.status == 0 && withCount.status == 0)
        let check = try Pace.run(["-c", """
            import json, sys
            for line in sys.stdin:
                o = json.loads(line)
                print(o["n"], o["ts"], o["host"])
            """], stdin: withField.stdout, executable: URL(fileURLWithPath: "/usr/bin/python3"))
        let expected = String(decoding: withCount.stdout, as: UTF8.self).split(separator: "\n").map { line in
            let parts = line.split(separator: "\t", maxSplits: 1)
            let host = parts[1].split(separator: "\"")[5]
            let ts = parts[1].split(separator: ":")[1].split(separator: ",")[0].trimmingPrefix(" ")
            return "\(parts[0]) \(ts) \(host)\n"
        }.joined()
        #expect(check.status == 0)
        #expect(String(decoding: check.stdout, as: UTF8.self) == expected)
        #expect(expected.split(separator: "\n").count > 6)
    }

    @Test("issue 23's usage errors", arguments: [
        (["--replay", "--time-field", "1~"],
         "pace: invalid time field for '--time-field': '1~': a time field is not masked ('~' is for --key-field)"),
        (["--key-field", "2,~"], "pace: invalid field list for '--key-field': '~' masks the item before it, and '2,~' has none"),
        (["--exempt", "3"], "pace: invalid value for '--exempt': '3' is not ITEM=VALUES (no '=')"),
        (["--exempt", "3-4=a"], "pace: invalid value for '--exempt': '3-4': the field is one item (a number or a NAME), not a range"),
        (["--exempt", "2,3=a"], "pace: invalid value for '--exempt': '2,3': the field is one item (a number or a NAME), not a list"),
        (["--exempt", "msg~=a"], "pace: invalid value for '--exempt': 'msg~': the field is not masked ('~' is for --key-field)"),
        // A bad number names the one form an ITEM's number has.
        (["--exempt", "0=a"], "pace: invalid value for '--exempt': invalid field '0' (fields count from 1, up to 1000000)"),
        (["--exempt", "level=a,,b"], "pace: invalid value for '--exempt': 'level=a,,b' has an empty value (VALUES are comma-separated, none empty)"),
        (["--then-every", "1"], "pace: invalid value '1' for '--then-every' (an integer of at least 2)"),
        (["--then-every", "2.5"], "pace: invalid value '2.5' for '--then-every' (an integer of at least 2)"),
        (["--count-field", "n", "--count"], "pace: '--count-field' and '--count' cannot be used together (one count per line)"),
        (["--count-field", "n", "--exec", "true"], "pace: '--count-field' does not apply to --exec (the command gets PACE_COUNT)"),
        (["--count-field", "5"], "pace: invalid NAME '5' for '--count-field'"),
        (["--exempt", "level="], "pace: invalid value for '--exempt': 'level=' has an empty value (VALUES are comma-separated, none empty)"),
    ])
    func usageErrors(_ arguments: [String], _ firstLine: String) throws {
        let rate = try Pace.run(["--rate", "1/s", "--then-every", "2"])
        #expect(rate.stdout.isEmpty && rate.status == 2)
        #expect(rate.stderr.hasPrefix("pace: '--then-every' does not apply to --rate (it never drops a line)\n"))
        let batch = try Pace.run(["--debounce", "1s", "--batch", "3", "--then-every", "2"])
        #expect(batch.stdout.isEmpty && batch.status == 2)
        #expect(batch.stderr.hasPrefix("pace: '--then-every' and '--batch' cannot be used together (a batch discards nothing)\n"))
        let result = try Pace.run(["--throttle", "1s"] + arguments)
        #expect(result.stdout.isEmpty && result.status == 2)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(result.stderr.contains("See 'pace --help' for more information.\n"))
    }
}
