// `--resolve-after`, through the real binary: the mark column's bytes in
// replay, a live episode resolving on its own through a pipe and at end of
// input or a signal, PACE_EVENT, usage errors, and a recorded live run
// replaying to the same output. Expected bytes are written by hand.

import Foundation
import Glibc
import Testing

@Suite("Episodes (--resolve-after), end to end")
struct EpisodeEndToEndTests {
    static let input = "1 a x\n1.5 a y\n2 b z\n5 a w\n9 b q\n"
    static let replay = ["--replay", "--time-format", "unix", "--throttle", "1s", "--key-field", "2",
                         "--resolve-after", "2s"]

    // a: line 1 first; line 2 dropped inside the window; quiet from 1.5 s,
    // resolved at 3.5 s with line 2 again, owing its one drop. b: line 3,
    // resolved at 4 s with nothing owed. Then a and b again, each on its own.
    @Test("replay: the mark after the --emit-time and --count prefixes; the resolved line is the last line")
    func replayBytes() throws {
        let result = try Pace.run(Self.replay + ["--emit-time", "--count"], stdin: Self.input)
        #expect(result == PaceResult(stdout: Array("""
            1.000000\t1\tfirst\t1 a x
            2.000000\t1\tfirst\t2 b z
            3.500000\t1\tresolved\t1.5 a y
            4.000000\t0\tresolved\t2 b z
            5.000000\t1\tfirst\t5 a w
            7.000000\t0\tresolved\t5 a w
            9.000000\t1\tfirst\t9 b q
            11.000000\t0\tresolved\t9 b q

            """.utf8), stderr: "", status: 0))
    }

    // b: resolved 1 s after its line, well before the end of time. a: its
    // last line (the second, dropped in the window) plus Q lies past
    // Int64's end, which no timer holds: the episode closes when replay's
    // clock has run to the end of time, owing its one drop.
    @Test("replay: an episode whose T lies past the end of time closes there, with its owed count")
    func pastTheEndOfTime() throws {
        let result = try Pace.run(["--replay", "--time-format", "unix-ns", "--throttle", "1s", "--key-field", "2",
                                   "--resolve-after", "1s", "--count", "--emit-time"],
                                  stdin: "9223372030000000000 b\n9223372036854775000 a\n9223372036854775001 a\n")
        #expect(result == PaceResult(stdout: Array("""
            9223372030.000000\t1\tfirst\t9223372030000000000 b
            9223372031.000000\t0\tresolved\t9223372030000000000 b
            9223372036.854775\t1\tfirst\t9223372036854775000 a
            9223372036.854775\t1\tresolved\t9223372036854775001 a

            """.utf8), stderr: "", status: 0))
    }

    // a: line 1 first; lines 2 and 3 inside its window, the second of them
    // let through by --then-every 2 (a repeat of the open episode, count 2);
    // resolved at 3.4 s with line 3 again, owing nothing. With
    // --count-field, the count goes into the line after the mark (a
    // resolved line's 0 too); --exempt's line is marked exempt.
    @Test("with --then-every, --count-field and --exempt: a let-through line is a repeat; the member follows the mark")
    func withIssue23Flags() throws {
        let input = "1 a {}\n1.2 a {\"x\":2}\n1.4 a {\"x\":3}\n1.5 b ERROR z\n"
        let thinned = try Pace.run(Self.replay + ["--then-every", "2", "--count"], stdin: input)
        #expect(thinned == PaceResult(stdout: Array("""
            1\tfirst\t1 a {}
            2\trepeat\t1.4 a {"x":3}
            1\tfirst\t1.5 b ERROR z
            0\tresolved\t1.4 a {"x":3}
            0\tresolved\t1.5 b ERROR z

            """.utf8), stderr: "", status: 0))
        let fielded = try Pace.run(Self.replay + ["--count-field", "n", "--exempt", "3=error"], stdin: input)
        #expect(fielded == PaceResult(stdout: Array("""
            first\t1 a {} n=1
            exempt\t1.5 b ERROR z n=1
            resolved\t1.4 a {"x":3} n=2

            """.utf8), stderr: "", status: 0))
    }

    @Test("replay: repeat while the key goes on, exempt for a line passed outside the policy")
    func repeatAndExempt() throws {
        let input = "1 a one\n1.5 a two\n2.5 a three\nbad a four\n3 b five\n"
        let result = try Pace.run(Self.replay + ["--on-bad-time", "pass"], stdin: input)
        #expect(result == PaceResult(stdout: Array("""
            first\t1 a one
            repeat\t2.5 a three
            exempt\tbad a four
            first\t3 b five
            resolved\t2.5 a three
            resolved\t3 b five

            """.utf8), stderr: "", status: 0))
    }

    @Test("--stats: the episodes' rows")
    func stats() throws {
        let result = try Pace.run(Self.replay + ["--stats"], stdin: Self.input)
        #expect(result.status == 0)
        #expect(result.stderr.contains("""
              episodes opened:     4
              episodes resolved:   4
              peak open episodes:  2

            """))
    }

    @Test("--exec: PACE_EVENT is the mark, PACE_COUNT a resolved line's discards")
    func execEvent() throws {
        let result = try Pace.run(Self.replay + ["--exec", "echo \"$PACE_EVENT $PACE_COUNT $PACE_TIME $PACE_LINE\""],
                                  stdin: "1 a x\n1.5 a y\n")
        #expect(result == PaceResult(stdout: Array("""
            first 1 1.000000 1 a x
            resolved 1 3.500000 1.5 a y

            """.utf8), stderr: "", status: 0))
        let unset = try Pace.run(["--replay", "--time-format", "unix", "--throttle", "1s",
                                  "--exec", "echo \"[${PACE_EVENT-unset}]\""], stdin: "1 a x\n")
        #expect(unset == PaceResult(stdout: Array("[unset]\n".utf8), stderr: "", status: 0))
    }

    @Test("--resolve-after with a bad or zero duration is a usage error", arguments: [
        (["--resolve-after", "0s"], "'--resolve-after' must be greater than zero (got '0s')"),
        (["--resolve-after", "5"], "invalid duration '5' for '--resolve-after': a number needs a unit"),
    ] as [([String], String)])
    func usage(arguments: [String], message: String) throws {
        let result = try Pace.run(["--throttle", "1s"] + arguments, stdin: "a\n")
        #expect(result == PaceResult(stdout: [], stderr: """
            pace: \(message)
            A duration is a number and a unit: 300ms, 1.5s, .5s, 2m, 250us (units: ns, us, ms, s, m, h).
            See 'pace --help' for more information.

            """, status: 2))
    }

    // Live: the resolved line comes on its own, Q after the key's last line
    // (a dropped one, which it owes), while input stays open.
    @Test("live --throttle 1s --resolve-after 200ms: the resolved line comes on its own")
    func live() throws {
        let pace = try PipedPace(["--throttle", "1s", "--resolve-after", "200ms", "--count"])
        pace.write("a\n")
        #expect(pace.readLine() == "1\tfirst\ta")
        pace.write("b\n")
        #expect(pace.readLine() == "1\tresolved\tb")
        let end = pace.finish()
        #expect(end.output == [])
        #expect(end.errors == "")
        #expect(end.status == 0)
    }

    @Test("live: end of input closes an open episode at once")
    func liveEnd() throws {
        let pace = try PipedPace(["--throttle", "1s", "--resolve-after", "1h", "--count"])
        pace.write("a\n")
        #expect(pace.readLine() == "1\tfirst\ta")
        pace.write("b\n")
        #expect(pace.waitUntilInputDrained())
        let end = pace.finish()
        #expect(String(decoding: end.output, as: UTF8.self) == "1\tresolved\tb\n")
        #expect(end.status == 0)
    }

    @Test("live: SIGTERM closes open episodes at once, after the pending lines, and exits 143")
    func sigterm() throws {
        let pace = try PipedPace(["--debounce", "10s", "--resolve-after", "1h", "--key-field", "1"])
        pace.write("k1 one\nk2 two\nk1 three\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.send(SIGTERM))
        let end = pace.finish(closingInput: false)
        #expect(String(decoding: end.output, as: UTF8.self) == """
            first\tk2 two
            first\tk1 three
            resolved\tk2 two
            resolved\tk1 three

            """)
        #expect(end.status == 143)
    }

    @Test("--trace says when a key's episode resolves; --marbles draws the resolved line as !")
    func traceAndMarbles() throws {
        let flags = ["--replay", "--time-format", "unix", "--throttle", "2s", "--resolve-after", "3s"]
        let traced = try Pace.run(flags + ["--trace"], stdin: "0 a x\n1 a y\n")
        #expect(traced == PaceResult(stdout: Array("first\t0 a x\nresolved\t1 a y\n".utf8), stderr: """
            pace: trace: line 1: emitted at 0.000000
            pace: trace: line 2: dropped inside the window ending at 2.000000
            pace: trace: line 2: its key's episode resolved at 4.000000 (this line again)

            """, status: 0))
        // 24 columns over 4 s: the events at columns 0 and 5, the resolved
        // line at 23.
        let drawn = try Pace.run(flags + ["--marbles"], stdin: Array("0 a x\n1 a y\n".utf8),
                                 environment: ["COLUMNS": "30"])
        #expect(drawn.stderr == """
            pace: marbles: 0.000000 s to 4.000000 s, 0.173913 s per column
              in  a----b
              out a----------------------!
              a-z: a key's events in order (o after the 26th); in out, the ones emitted
              2-9: that many in one column, *: 10 or more; -: none
              !: a key's episode resolved (--resolve-after)

            """)
        #expect(drawn.status == 0)
    }
}
