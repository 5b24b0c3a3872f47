// `--stats` counts distinct keys exactly, through the real binary (issue 15:
// keys were counted by a hash that put `2` and `12` together).

import Glibc
import Testing

@Suite("Distinct keys in --stats, end to end")
struct KeyStatsEndToEndTests {
    @Test("keys that collided under the old hash are two keys, and the key table agrees")
    func collidingKeys() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "2", "--stats"],
                                  stdin: "0ms 2\n0ms 12\n")
        #expect(result == PaceResult(stdout: Array("0ms 2\n0ms 12\n".utf8), stderr: """
            pace: stats:
              events in:           2
              emitted:             2
              dropped:             0
              distinct keys:       2
              peak active keys:    2
              clamped timestamps:  0
              bad-time lines:      0
              passed through:      0
              empty lines:         0
            pace: stats by key (top 2 of 2 by events in):
              key  in  emitted  dropped
              12    1        1        0
              2     1        1        0

            """, status: 0))
    }

    // Issue 21: keys reached the terminal raw, and \xff and \xfe both
    // showed as U+FFFD.
    @Test("--stats shows a key's ESC and its bytes that are not UTF-8 escaped; stdout keeps them as read")
    func escapedKeys() throws {
        let input: [UInt8] = Array("0ms \u{1B}[2J\n0ms ".utf8) + [0xFF] + Array("\n0ms ".utf8) + [0xFE]
            + Array("\n1ms ".utf8) + [0xFF] + Array("\n".utf8)
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "2", "--stats"], stdin: input)
        // Line 4 is inside \xff's window; ties (1 in) go by key bytes.
        #expect(result == PaceResult(stdout: Array(input[..<(input.count - 6)]), stderr: #"""
            pace: stats:
              events in:           4
              emitted:             3
              dropped:             1
              distinct keys:       3
              peak active keys:    3
              clamped timestamps:  0
              bad-time lines:      0
              passed through:      0
              empty lines:         0
            pace: stats by key (top 3 of 3 by events in):
              key      in  emitted  dropped
              \xff      2        1        1
              \x1b[2J   1        1        0
              \xfe      1        1        0

            """#, status: 0))
    }

    @Test("seq 1000, keyed live, is 1000 distinct keys")
    func thousandKeys() throws {
        let input = (1...1000).map { "\($0)\n" }.joined()
        let result = try Pace.run(["--throttle", "1s", "--key-field", "1", "--stats"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stdoutText == input)
        #expect(result.stderr.contains("\n  distinct keys:       1000\n"))
        #expect(result.stderr.contains("\npace: stats by key (top 10 of 1000 by events in):\n"))
    }

    @Test("SIGUSR1 in a keyed run without --stats: its summary says the distinct keys were not counted, not 0")
    func uncountedKeys() throws {
        let pace = try PipedPace(["--throttle", "1s", "--key-field", "1"])
        pace.write("a\nb\nc\n")
        for key in ["a", "b", "c"] { #expect(pace.readLine() == key) }
        #expect(pace.send(SIGUSR1))
        var summary: [String] = []
        while let line = pace.readLine(stderr: true) {
            summary.append(line)
            if line.hasPrefix("  empty lines:") { break }
        }
        #expect(summary == ["pace: stats:", "  events in:           3", "  emitted:             3",
                            "  dropped:             0", "  distinct keys:       not counted (without --stats)",
                            "  peak active keys:    3", "  clamped timestamps:  0", "  bad-time lines:      0",
                            "  passed through:      0", "  empty lines:         0"])
        let end = pace.finish()
        #expect(end.output == [])
        #expect(end.errors == "")
        #expect(end.status == 0)
    }
}
