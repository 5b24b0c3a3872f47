// Every kind of usage error in SPEC's table, through the real binary: the
// message and its hint on stderr, nothing on stdout, exit 2. (The parser's
// unit tests check each message in detail; these check the process.)

import Foundation
import Testing

@Suite("Usage errors, end to end")
struct UsageEndToEndTests {
    @Test("pace: <what is wrong>, a hint, nothing on stdout, exit 2", arguments: [
        ([], "no policy given (choose one of --debounce, --leading, --throttle, --throttle-last, --limit, --rate)"),
        (["--debounce", "1s", "--leading", "1s"], "two policies given, '--debounce' and '--leading' (choose one)"),
        (["--debunce", "1s"], "unknown option '--debunce' (did you mean '--debounce'?)"),
        (["--debounce", "1s", "--max-wait", "1ms"], "'--max-wait' (1ms) must be at least the debounce window (1s)"),
        (["--leading", "1s", "--max-wait", "2s"], "'--max-wait' only applies to --debounce (not '--leading')"),
        (["--throttle-last", "1s", "--trailing"], "'--trailing' only applies to --leading (not '--throttle-last')"),
        (["--debounce", "1s", "--time-field", "2"], "'--time-field' only applies with --replay"),
        (["--debounce", "1s", "--replay", "--record", "x"], "'--record' is for live mode and cannot be used with --replay"),
        (["--debounce", "1s", "--replay", "--time-format", "%Y %Q"], "unknown directive '%Q' in --time-format '%Y %Q'"),
        (["--debounce", "1s", "one", "two"], "more than one input file ('one' and 'two'); pace reads one"),
        (["--debounce", "1s", "--debounce", "1s"], "option '--debounce' given more than once"),
        (["--throttle", "1s", "--record", ""], "--record: the file name is empty"),
        (["--debounce", "1s", "--replay", "--year", "2263"], "invalid year '2263' for '--year' (pace handles years 1677 to 2262)"),
        (["--on-bad", "x"], "unknown option '--on-bad' (did you mean '--on-bad-time'?)"),
        (["--key", "2"], "unknown option '--key' (did you mean '--key-field'?)"),
        (["--rec", "x"], "unknown option '--rec' (did you mean '--record'?)"),
        (["--delay", "1s"], "unknown option '--delay'"),
    ] as [([String], String)])
    func usageError(arguments: [String], message: String) throws {
        let result = try Pace.run(arguments, stdin: "0ms a\n")
        #expect(result == PaceResult(stdout: [], stderr: "pace: \(message)\n" + usageHintTail, status: 2))
    }

    @Test("a duration error's hint shows the forms", arguments: [
        (["--debounce", "300"], "invalid duration '300' for '--debounce': a number needs a unit"),
        (["--throttle", "0ms"], "'--throttle' must be greater than zero (got '0ms')"),
        (["--debounce", "1..5s"], "invalid duration '1..5s' for '--debounce': unexpected '.' after '1.'"),
        (["--debounce", "1,5s"], "invalid duration '1,5s' for '--debounce': unexpected ',' after '1' (the decimal point is '.')"),
        (["--debounce", "1_000ms"], "invalid duration '1_000ms' for '--debounce': unexpected '_' after '1' (digits are written without separators)"),
    ] as [([String], String)])
    func durationHint(arguments: [String], message: String) throws {
        let result = try Pace.run(arguments)
        #expect(result == PaceResult(stdout: [], stderr: """
            pace: \(message)
            A duration is a number and a unit: 300ms, 1.5s, .5s, 2m, 250us (units: ns, us, ms, s, m, h).
            See 'pace --help' for more information.

            """, status: 2))
    }

    @Test("--time-field 1,2: the message and hint say one field, offering no list or range (issue 21)")
    func timeFieldList() throws {
        let result = try Pace.run(["--debounce", "1s", "--replay", "--time-field", "1,2"], stdin: "0ms a\n")
        #expect(result == PaceResult(stdout: [], stderr: """
            pace: invalid time field for '--time-field': '1,2': a time field is one field (a number or a NAME), not a list
            --time-field takes one field: a number N (1-based, where the timestamp starts) or a NAME
            (a JSON member path such as ts or log.time, or a logfmt key), not a list or a range: 2, ts.
            See 'pace --help' for more information.

            """, status: 2))
    }

    @Test("--help and --version go to stdout, exit 0")
    func helpAndVersion() throws {
        let help = try Pace.run(["--help"])
        #expect(help.status == 0 && help.stderr == "")
        #expect(help.stdoutText.hasPrefix("OVERVIEW: Rate-limit a stream of lines"))
        #expect(help.stdoutText.contains("\nUSAGE: pace <policy> [<options>] [<file>]\n"))
        #expect(try Pace.run(["--version"]) == PaceResult(stdout: Array(expectedVersion.utf8), stderr: "", status: 0))
    }

    /// A plain `swift build` knows no commit; a binary of Scripts/install
    /// names its own, which .ci/run passes in PACE_EXPECTED_COMMIT when it
    /// runs these tests against one.
    private var expectedVersion: String {
        guard let commit = ProcessInfo.processInfo.environment["PACE_EXPECTED_COMMIT"], !commit.isEmpty else {
            return "pace 0.1.0\n"
        }
        return "pace 0.1.0 (commit \(commit))\n"
    }

    @Test("a write error on stdout for --help or --version: pace: stdout: <error>, exit 1",
          arguments: ["--help", "--version"])
    func helpWriteError(flag: String) throws {
        let full = try Pace.spawn([Array(flag.utf8)], stdout: Array("/dev/full".utf8))
        #expect(full == RawResult(stdout: [], stderr: Array("pace: stdout: No space left on device\n".utf8), status: 1))
        let closed = try Pace.spawn([Array(flag.utf8)], closed: [1])
        #expect(closed == RawResult(stdout: [], stderr: Array("pace: stdout: Bad file descriptor\n".utf8), status: 1))
    }
}
