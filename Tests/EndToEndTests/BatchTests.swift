// `--batch N` through the built binary: usage errors, replay's output bytes
// and `--stats`' rows, `--exec` running one command per batch (the command
// writes its stdin and environment to files, compared as bytes), `--on-busy
// drop` discarding a batch whole, and live mode through a pipe. Live tests
// synchronise on lines read (stdout, `--trace` on stderr), never on sleeps.

import Foundation
import Glibc
import Testing

@Suite("--batch, end to end")
struct BatchEndToEndTests {
    @Test("usage errors: --batch without --debounce or --throttle-last, or not a positive whole number", arguments: [
        (["--throttle", "1s", "--batch", "3"], "'--batch' only applies to --debounce and --throttle-last (not '--throttle')", false),
        (["--rate", "1/s", "--batch", "3"], "'--batch' only applies to --debounce and --throttle-last (not '--rate')", false),
        (["--debounce", "1s", "--batch", "0"], "invalid batch size '0' for '--batch': it must be at least 1", true),
        (["--debounce", "1s", "--batch", "1.5"], "invalid batch size '1.5' for '--batch': it must be a positive whole number", true),
        (["--throttle-last", "1s", "--batch=-2"], "invalid batch size '-2' for '--batch': it must be a positive whole number", true),
        (["--throttle-last", "1s", "--batch", "2147483648"], "invalid batch size '2147483648' for '--batch': it must be at most 2147483647", true),
    ] as [([String], String, Bool)])
    func usage(arguments: [String], message: String, batchHint: Bool) throws {
        let result = try Pace.run(arguments, stdin: "a\n")
        let hint = batchHint
            ? "--batch takes a positive whole number of lines, the most pending at once: --debounce 2s --batch 100.\n"
                + "See 'pace --help' for more information.\n"
            : usageHintTail
        #expect(result == PaceResult(stdout: [], stderr: "pace: \(message)\n" + hint, status: 2))
    }

    @Test("replay: batches at their emission times, each line with its own prefixes; --stats' rows")
    func replayBytes() throws {
        // Per host: a's 0, 1, 2 fill a batch of 3 at 2; b's 1.5 goes out
        // alone 5 s after it; a's 4 and 8 at 12, 8 s (max-wait) after 4.
        let input = "0 a 1\n1 a 2\n1.5 b 3\n2 a 4\n4 a 5\n8 a 6\n"
        let result = try Pace.run(["--debounce", "5s", "--max-wait", "8s", "--batch", "3", "--key-field", "2",
                                   "--replay", "--time-format", "unix", "--emit-time", "--count", "--stats"],
                                  stdin: input)
        #expect(result.stdoutText == """
            2.000000\t1\t0 a 1
            2.000000\t1\t1 a 2
            2.000000\t1\t2 a 4
            6.500000\t1\t1.5 b 3
            12.000000\t1\t4 a 5
            12.000000\t1\t8 a 6

            """)
        #expect(result.stderr.contains("  empty lines:         0\n  batches:             3\n  largest batch:       3\n"))
        #expect(result.status == 0)
    }

    @Test("with --resolve-after: a batch is one output, all its lines one mark; the resolved line after the last batch")
    func batchesWithEpisodes() throws {
        // --throttle-last 5s --batch 2: 0 at once (first); 1 and 2 fill a
        // batch at 2 (repeat, both); 3 at the window's end, 7; resolved at
        // max(3 + 10, 7) = 13, owing nothing.
        let result = try Pace.run(["--throttle-last", "5s", "--batch", "2", "--resolve-after", "10s", "--replay",
                                   "--time-format", "unix", "--emit-time", "--count"], stdin: "0 a\n1 b\n2 c\n3 d\n")
        #expect(result == PaceResult(stdout: Array("""
            0.000000\t1\tfirst\t0 a
            2.000000\t1\trepeat\t1 b
            2.000000\t1\trepeat\t2 c
            7.000000\t1\trepeat\t3 d
            13.000000\t0\tresolved\t3 d

            """.utf8), stderr: "", status: 0))
        // A batch that opens the episode: both lines first.
        let opening = try Pace.run(["--debounce", "1s", "--batch", "3", "--resolve-after", "10s", "--replay",
                                    "--time-format", "unix", "--exec", "echo \"$PACE_LINE|$PACE_EVENT|$PACE_BATCH\""],
                                   stdin: "0 a\n0.5 b\n")
        #expect(opening == PaceResult(stdout: Array("0.5 b|first|2\n0.5 b|resolved|1\n".utf8), stderr: "", status: 0))
    }

    @Test("without --batch, --stats has no batch rows")
    func noBatchRows() throws {
        let result = try Pace.run(["--debounce", "5s", "--replay", "--time-format", "unix", "--stats"], stdin: "0 a\n")
        #expect(!result.stderr.contains("batch"))
        #expect(result.stderr.hasSuffix("  empty lines:         0\n"))
    }

    @Test("--exec: a batch is one command, its lines on stdin, PACE_LINE its last, PACE_COUNT their sum, PACE_BATCH its size")
    func execBatch() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = String(decoding: dir.path, as: UTF8.self)
        let command = """
            printf '%s|%s|%s|%s\\n' "$PACE_LINE" "$PACE_KEY" "$PACE_COUNT" "${PACE_BATCH-unset}" >> '\(path)/env'
            { cat; echo --; } >> '\(path)/stdin'
            """
        // --throttle-last 10s: 0 goes out alone (PACE_BATCH=1); 1, 2, 3
        // fill the batch at 3; 5 at the window's end, 13.
        let input = "0 a\n1 b\n2 c\n3 d\n5 e\n"
        let result = try Pace.run(["--throttle-last", "10s", "--batch", "3", "--replay", "--time-format", "unix",
                                   "--exec", command], stdin: Array(input.utf8),
                                  environment: ProcessInfo.processInfo.environment.merging(["PACE_BATCH": "inherited"]) { $1 })
        #expect(result == PaceResult(stdout: [], stderr: "", status: 0))
        #expect(String(decoding: dir.read(Array("env".utf8)) ?? [], as: UTF8.self) == "0 a||1|1\n3 d||3|3\n5 e||1|1\n")
        #expect(String(decoding: dir.read(Array("stdin".utf8)) ?? [], as: UTF8.self)
            == "0 a\n--\n1 b\n2 c\n3 d\n--\n5 e\n--\n")
        // Without --batch, PACE_BATCH is not set (an inherited one neither).
        let plain = try Pace.run(["--throttle-last", "10s", "--replay", "--time-format", "unix", "--exec",
                                  "echo \"${PACE_BATCH-unset}\" >> '\(path)/plain'"], stdin: Array("0 a\n".utf8),
                                 environment: ProcessInfo.processInfo.environment.merging(["PACE_BATCH": "inherited"]) { $1 })
        #expect(plain.status == 0)
        #expect(String(decoding: dir.read(Array("plain".utf8)) ?? [], as: UTF8.self) == "unset\n")
    }

    @Test("--exec: a failed batch is reported by its last line's number")
    func failedBatch() throws {
        let result = try Pace.run(["--debounce", "1s", "--batch", "2", "--replay", "--time-format", "unix",
                                   "--exec", "exit 3"], stdin: "0 a\n0 b\n")
        #expect(result == PaceResult(stdout: [], stderr: "pace: line 2: command exited with status 3\n", status: 123))
    }

    @Test("--on-busy drop discards a batch whole: its lines to --dropped, owed to the next PACE_COUNT")
    func onBusyDropsABatch() throws {
        let c = try Commands("echo \"start $n $PACE_COUNT $PACE_BATCH\"; gate $n; ev end")
        c.makeGates(["1"])
        let dropped = c.dir + "/dropped"
        let pace = try PipedPace(["--throttle-last", "1h", "--batch", "2", "--on-busy", "drop", "--dropped", dropped,
                                  "--trace", "--stats", "--exec", c.command])
        pace.write("1 a\n")
        #expect(pace.readLine() == "start 1 1 1")
        // 2 and 3 fill a batch at once while 1's command runs: dropped.
        pace.write("2 a\n3 a\n")
        var trace: [String] = []
        while let line = pace.readLine(stderr: true) {
            trace.append(line)
            if line.contains("not run") { break }
        }
        #expect(trace.last == "pace: trace: line 3: not run: its key's command is busy (--on-busy drop)")
        c.release("1")
        #expect(pace.readLine() == "end 1")
        while let line = pace.readLine(stderr: true), !line.contains("line 1: command exited") {}
        // 4 waits in the window and goes out at end of input, owing 2.
        pace.write("4 a\n")
        pace.closeInput()
        #expect(pace.readLine() == "start 4 3 1")
        #expect(pace.readLine() == "end 4")
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        // The batch of 2 and 4's batch of one (1 went out at once, alone).
        #expect(errors.contains("  batches:             2\n  largest batch:       2\n  commands run:        2\n"
                                + "  commands failed:     0\n  commands restarted:  0\n  commands not run:    2\n"))
        #expect(status == 0)
        #expect((try? String(contentsOfFile: dropped, encoding: .utf8)) == "2 a\n3 a\n")
    }

    @Test("live: --debounce 50ms --batch 3 sends a full batch at once, the rest once quiet or at end of input")
    func live() throws {
        let pace = try PipedPace(["--debounce", "50ms", "--batch", "3", "--stats"])
        pace.write("a\nb\nc\n")
        #expect(pace.readLine() == "a")
        #expect(pace.readLine() == "b")
        #expect(pace.readLine() == "c")
        pace.write("d\n")
        #expect(pace.readLine() == "d")
        pace.write("e\nf\n")
        pace.closeInput()
        #expect(pace.readLine() == "e")
        #expect(pace.readLine() == "f")
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(errors.contains("  events in:           6\n  emitted:             6\n  dropped:             0\n"))
        #expect(errors.contains("  batches:             3\n  largest batch:       3\n"))
        #expect(status == 0)
    }
}
