// The argument parser against SPEC's usage-error table and flag rules.

import Testing
@testable import PaceCore
import PaceTesting

private func message(_ arguments: [String]) -> String? {
    if case let .failure(error) = parseArguments(arguments) { return error.message }
    return nil
}

private func configuration(_ arguments: [String]) throws -> Configuration {
    switch parseArguments(arguments) {
    case let .success(.run(configuration)): return configuration
    case let .success(other): throw ParseFailure(description: "expected a run, got \(other)")
    case let .failure(error): throw ParseFailure(description: error.message)
    }
}

private struct ParseFailure: Error, CustomStringConvertible { var description: String }

@Suite("Command line")
struct ArgumentParserTests {
    @Test("every usage error of SPEC's table, with its message", arguments: [
        ([], "no policy given (choose one of --debounce, --leading, --throttle, --throttle-last, --limit, --rate)"),
        (["--replay"], "no policy given (choose one of --debounce, --leading, --throttle, --throttle-last, --limit, --rate)"),
        (["--debounce", "1s", "--throttle", "1s"], "two policies given, '--debounce' and '--throttle' (choose one)"),
        (["--debunce", "1s"], "unknown option '--debunce' (did you mean '--debounce'?)"),
        (["--debounce", "1s", "--frobnicate"], "unknown option '--frobnicate'"),
        (["--debounce", "1s", "--=x"], "unknown option '--=x'"),
        (["-x"], "unknown option '-x'"),
        (["-debounce", "1s"], "unknown option '-debounce' (did you mean '--debounce'?)"),
        (["-version"], "unknown option '-version' (did you mean '--version'?)"),
        (["--debounce", "300"], "invalid duration '300' for '--debounce': a number needs a unit"),
        (["--debounce", "3 s"], "invalid duration '3 s' for '--debounce': unexpected ' ' after '3' (no space between the number and its unit)"),
        (["--debounce", "3sec"], "invalid duration '3sec' for '--debounce': unknown unit"),
        (["--debounce", "3x"], "invalid duration '3x' for '--debounce': unknown unit"),
        (["--debounce", "5MS"], "invalid duration '5MS' for '--debounce': unknown unit (units are lower case)"),
        (["--throttle", "1s", "--exec", ""], "'--exec' needs a command (it is empty)"),
        (["--throttle", "1s", "--exec", " \t"], "'--exec' needs a command (it is empty)"),
        (["--throttle", "1s", "--exec", "true", "--jobs", "+2"],
         "invalid value '+2' for '--jobs' (a whole number from 1 to 100000)"),
        (["--throttle", "1s", "--replay", "--year", "+2020"],
         "invalid year '+2020' for '--year' (a year is its digits alone; pace handles years 1677 to 2262)"),
        (["--throttle", "1s", "--replay", "--year", "20x"],
         "invalid year '20x' for '--year' (a year is its digits alone; pace handles years 1677 to 2262)"),
        (["--throttle", "1s", "--replay", "--year", ""],
         "invalid year '' for '--year' (a year is its digits alone; pace handles years 1677 to 2262)"),
        (["--throttle", "1s", "--replay", "--year", "99999999999999999999"],
         "invalid year '99999999999999999999' for '--year' (pace handles years 1677 to 2262)"),
        (["--throttle", "1s", "--then-every", "9223372036854775808"],
         "invalid value '9223372036854775808' for '--then-every' (it is too large)"),
        (["--debounce", "ms"], "invalid duration 'ms' for '--debounce': it is not a number with a unit"),
        (["--debounce", ""], "invalid duration '' for '--debounce': it is empty"),
        (["--debounce", "9999999999h"], "invalid duration '9999999999h' for '--debounce': it is too large"),
        (["--debounce", "0s"], "'--debounce' must be greater than zero (got '0s')"),
        (["--throttle", "0.0000000001s"], "'--throttle' must be greater than zero (got '0.0000000001s')"),
        (["--debounce"], "missing value for '--debounce <duration>'"),
        (["--debounce", "--replay"], "missing value for '--debounce <duration>'"),
        (["--debounce", "1s", "--max-wait", "500ms"], "'--max-wait' (500ms) must be at least the debounce window (1s)"),
        (["--throttle", "1s", "--max-wait", "2s"], "'--max-wait' only applies to --debounce (not '--throttle')"),
        (["--debounce", "1s", "--trailing"], "'--trailing' only applies to --leading (not '--debounce')"),
        (["--trailing", "--throttle-first", "1s"], "'--trailing' only applies to --leading (not '--throttle-first')"),
        (["--limit", "5/s", "--trailing"], "'--trailing' only applies to --leading (not '--limit')"),
        (["--trailing"], "no policy given (choose one of --debounce, --leading, --throttle, --throttle-last, --limit, --rate)"),
        (["--leading", "1s", "--trailing=yes"], "option '--trailing' takes no value"),
        (["--leading", "1s", "--trailing", "--trailing"], "option '--trailing' given more than once"),
        (["--debounce", "1s", "--time-format", "unix"], "'--time-format' only applies with --replay"),
        (["--debounce", "1s", "--year", "2020"], "'--year' only applies with --replay"),
        (["--debounce", "1s", "--time-field", "2"], "'--time-field' only applies with --replay"),
        (["--debounce", "1s", "--on-bad-time", "skip"], "'--on-bad-time' only applies with --replay"),
        (["--debounce", "1s", "--replay", "--record", "f"], "'--record' is for live mode and cannot be used with --replay"),
        (["--debounce", "1s", "a", "b"], "more than one input file ('a' and 'b'); pace reads one"),
        (["--debounce", "1s", "--debounce", "2s"], "option '--debounce' given more than once"),
        (["--throttle", "1s", "--throttle-first", "2s"], "option '--throttle-first' given more than once (same as '--throttle')"),
        (["--debounce", "1s", "--replay", "--replay"], "option '--replay' given more than once"),
        (["--debounce", "1s", "--replay=yes"], "option '--replay' takes no value"),
        (["--debounce", "1s", "--key-field", "0"],
         "invalid field list for '--key-field': invalid field '0' (fields count from 1, up to 1000000: N, N-M or N-)"),
        (["--debounce", "1s", "--key-field", "2x"],
         "invalid field list for '--key-field': invalid field '2x' (fields count from 1, up to 1000000: N, N-M or N-)"),
        (["--debounce", "1s", "--key-field", "1,,2"], "invalid field list for '--key-field': an empty item in the field list '1,,2'"),
        (["--debounce", "1s", "--key-field", "2,"], "invalid field list for '--key-field': an empty item in the field list '2,'"),
        (["--debounce", "1s", "--key-field", ""], "invalid field list for '--key-field': an empty field list"),
        (["--debounce", "1s", "--key-field", "-1"], "invalid field list for '--key-field': '-1': field numbers have no sign"),
        (["--debounce", "1s", "--key-field", "+2"], "invalid field list for '--key-field': '+2': field numbers have no sign"),
        (["--debounce", "1s", "--key-field", "-x"],
         "invalid field list for '--key-field': '-x' is not a field number or a NAME (a NAME starts with a letter, '_' or '@')"),
        (["--debounce", "1s", "--key-field", "-"],
         "invalid field list for '--key-field': '-' is not a field number or a NAME (a NAME starts with a letter, '_' or '@')"),
        (["--debounce", "1s", "--key-field", "2,1~~"], "invalid field list for '--key-field': '1~~': one '~' masks an item (it ends it once)"),
        (["--debounce", "1s", "--key-field", "2-+3"], "invalid field list for '--key-field': '2-+3': field numbers have no sign"),
        (["--debounce", "1s", "--key-field", "4-2"], "invalid field list for '--key-field': '4-2': a range N-M needs N <= M"),
        (["--debounce", "1s", "--key-field", "2-3-4"],
         "invalid field list for '--key-field': invalid field '2-3-4' (fields count from 1, up to 1000000: N, N-M or N-)"),
        (["--debounce", "1s", "--key-field", ".host"],
         "invalid field list for '--key-field': '.host' is not a field number or a NAME (a NAME starts with a letter, '_' or '@')"),
        (["--debounce", "1s", "--key-field", "host name"],
         "invalid field list for '--key-field': 'host name' is not a NAME: ' ' (a NAME holds letters, digits and '_ - @ .')"),
        (["--debounce", "1s", "--key-field", "a/b"],
         "invalid field list for '--key-field': 'a/b' is not a NAME: '/' (a NAME holds letters, digits and '_ - @ .')"),
        // Letters of any script; other characters are named as they are.
        (["--debounce", "1s", "--key-field", "h€"],
         "invalid field list for '--key-field': 'h€' is not a NAME: '€' (a NAME holds letters, digits and '_ - @ .')"),
        (["--debounce", "1s", "--key-field", "€h"],
         "invalid field list for '--key-field': '€h' is not a field number or a NAME (a NAME starts with a letter, '_' or '@')"),
        (["--debounce", "1s", "--key-field", "a\u{7F}"],
         "invalid field list for '--key-field': 'a\u{7F}' is not a NAME: byte 127 (a NAME holds letters, digits and '_ - @ .')"),
        (["--debounce", "1s", "--delimiter", "ab"], "'--delimiter' takes one byte ('ab' is 2 bytes)"),
        (["--debounce", "1s", "--delimiter", ""], "'--delimiter' takes one byte (it is empty)"),
        (["--debounce", "1s", "--delimiter", "\\n"], "'--delimiter' takes one byte ('\\n' is 2 bytes)"),
        (["--debounce", "1s", "--delimiter", "é"], "'--delimiter' takes one byte ('é' is 2 bytes)"),
        (["--debounce", "1s", "--replay", "--time-field", "-1"], "invalid time field for '--time-field': '-1': field numbers have no sign"),
        (["--debounce", "1s", "--replay", "--time-field", "0"],
         "invalid time field for '--time-field': invalid field '0' (fields count from 1, up to 1000000)"),
        (["--debounce", "1s", "--replay", "--time-field", "2-"],
         "invalid time field for '--time-field': '2-': a time field is one field (a number or a NAME), not a range"),
        (["--debounce", "1s", "--replay", "--time-field", "1,2"],
         "invalid time field for '--time-field': '1,2': a time field is one field (a number or a NAME), not a list"),
        (["--debounce", "1s", "--replay", "--time-field", "ts,2"],
         "invalid time field for '--time-field': 'ts,2': a time field is one field (a number or a NAME), not a list"),
        (["--debounce", "1s", "--replay", "--time-field", "2-3-4"],
         "invalid time field for '--time-field': invalid field '2-3-4' (fields count from 1, up to 1000000)"),
        (["--debounce", "1s", "--replay", "--time-field"], "missing value for '--time-field <field>'"),
        (["--debounce", "1s", "--replay", "--time-format", "record", "--time-field", "ts"],
         "'--time-field' does not apply to --time-format record (its time is the line's prefix)"),
        (["--debounce", "1s", "--replay", "--on-bad-time", "ignore"], "invalid value 'ignore' for '--on-bad-time' (choose error, skip or pass)"),
        (["--debounce", "1s", "--replay", "--time-format", "unixms"], "unknown time format 'unixms' (did you mean 'unix-ms'?)"),
        (["--debounce", "1s", "--replay", "--time-format", "epoch"], "unknown time format 'epoch'"),
        (["--debounce", "1s", "--replay", "--year", "1500"], "invalid year '1500' for '--year' (pace handles years 1677 to 2262)"),
        (["--debounce", "1s", "--replay", "--year", "1676"], "invalid year '1676' for '--year' (pace handles years 1677 to 2262)"),
        (["--debounce", "1s", "--replay", "--year", "2263"], "invalid year '2263' for '--year' (pace handles years 1677 to 2262)"),
        (["--debounce", "1s", "--replay", "--time-format", "record", "--time-field", "2"],
         "'--time-field' does not apply to --time-format record (its time is the line's prefix)"),
    ] as [([String], String)])
    func usageErrors(arguments: [String], expected: String) {
        #expect(message(arguments) == expected)
    }

    // Issue 15: messages that named the wrong problem, or none.
    @Test("messages say what is wrong", arguments: [
        (["--throttle", "1s", "--record", ""], "--record: the file name is empty"),
        (["--throttle", "1s", "--record="], "--record: the file name is empty"),
        (["--throttle", "1s", ""], "the input file name is empty (use - for stdin)"),
        (["--throttle", "1s", "--key-field", "1000001"], "invalid field list for '--key-field': invalid field '1000001' (fields count from 1, up to 1000000: N, N-M or N-)"),
        (["--throttle", "1s", "--replay", "--time-field", "1000001"], "invalid time field for '--time-field': invalid field '1000001' (fields count from 1, up to 1000000)"),
        (["--debounce", "1..5s"], "invalid duration '1..5s' for '--debounce': unexpected '.' after '1.'"),
        (["--debounce", "1,5s"], "invalid duration '1,5s' for '--debounce': unexpected ',' after '1' (the decimal point is '.')"),
        (["--debounce", "1_000ms"], "invalid duration '1_000ms' for '--debounce': unexpected '_' after '1' (digits are written without separators)"),
        (["--debounce", "1s,"], "invalid duration '1s,' for '--debounce': unexpected ',' after '1s'"),
        (["--on-bad", "x"], "unknown option '--on-bad' (did you mean '--on-bad-time'?)"),
        (["--key", "2"], "unknown option '--key' (did you mean '--key-field'?)"),
        (["--key=2"], "unknown option '--key' (did you mean '--key-field'?)"),
        (["--rec", "x"], "unknown option '--rec' (did you mean '--record'?)"),
        (["--re"], "unknown option '--re' (did you mean '--resolve-after' or '--replay' or '--record'?)"),
        (["--throttle-"], "unknown option '--throttle-' (did you mean '--throttle-first' or '--throttle-last'?)"),
        (["--delay", "1s"], "unknown option '--delay'"),
        (["--recrod", "x"], "unknown option '--recrod' (did you mean '--record'?)"),
        (["--stat"], "unknown option '--stat' (did you mean '--state' or '--stats'?)"),
        (["--"], "no policy given (choose one of --debounce, --leading, --throttle, --throttle-last, --limit, --rate)"),
    ] as [([String], String)])
    func clearMessages(arguments: [String], expected: String) {
        #expect(message(arguments) == expected)
    }

    @Test("the years at the edges of pace's range are taken", arguments: [1677, 2262])
    func edgeYears(year: Int) throws {
        #expect(try configuration(["--debounce", "1s", "--replay", "--year", String(year)]).year == year)
    }

    @Test("usage errors carry the usage hint; duration errors show the forms")
    func hints() throws {
        guard case let .failure(unknown) = parseArguments(["--nope"]) else { Issue.record("no error"); return }
        #expect(unknown.text == "pace: unknown option '--nope'\nUsage: pace <policy> [<options>] [<file>]\nSee 'pace --help' for more information.\n")
        guard case let .failure(duration) = parseArguments(["--leading", "5"]) else { Issue.record("no error"); return }
        #expect(duration.hint.hasPrefix("A duration is a number and a unit: 300ms, 1.5s, .5s, 2m, 250us"))
    }

    // Issue 21: --time-field's hint offered ranges and lists, which it refuses.
    @Test("a bad --time-field's hint offers one number or NAME only", arguments: ["1,2", "2-", "0", "-1", ".ts"])
    func timeFieldHint(value: String) throws {
        guard case let .failure(error) = parseArguments(["--debounce", "1s", "--replay", "--time-field", value]) else {
            Issue.record("no error"); return
        }
        #expect(error.hint == """
            --time-field takes one field: a number N (1-based, where the timestamp starts) or a NAME
            (a JSON member path such as ts or log.time, or a logfmt key), not a list or a range: 2, ts.
            See 'pace --help' for more information.
            """)
    }

    @Test("each policy flag and its window")
    func policies() throws {
        #expect(try configuration(["--debounce", "300ms"]).policy == .debounce(300_000_000, maxWait: nil))
        #expect(try configuration(["--leading", "1.5s"]).policy == .leading(1_500_000_000))
        #expect(try configuration(["--leading", "1.5s", "--trailing"]).policy == .leadingTrailing(1_500_000_000))
        #expect(try configuration(["--trailing", "--leading=2s"]).policy == .leadingTrailing(2_000_000_000))
        #expect(try configuration(["--throttle", ".5s"]).policy == .throttle(500_000_000))
        #expect(try configuration(["--throttle-first", "2m"]).policy == .throttle(120_000_000_000))
        #expect(try configuration(["--throttle-last", "250us"]).policy == .throttleLast(250_000))
        #expect(try configuration(["--throttle-last=1h"]).policy == .throttleLast(3_600_000_000_000))
    }

    @Test("defaults and every option")
    func options() throws {
        let defaults = try configuration(["--debounce", "1s"])
        #expect(defaults.replay == false && defaults.timeFormat == .auto && defaults.timeField == .number(1))
        #expect(defaults.delimiter == nil)
        #expect(defaults.onBadTime == .error && defaults.keyField == nil && defaults.inputPath == nil && defaults.year == nil)

        let all = try configuration(["--debounce", "1s", "--max-wait=5s", "--key-field", "3", "--replay",
                                     "--time-format", "unix-ms", "--year", "2024", "--time-field=2",
                                     "--on-bad-time", "pass", "--emit-time", "--stats", "--", "-file"])
        #expect(all.policy == .debounce(1_000_000_000, maxWait: 5_000_000_000))
        #expect(all.keyField == .field(3))
        #expect(all.replay && all.emitTime && all.stats)
        #expect(all.timeFormat == .unixMs)
        #expect(all.year == 2024)
        #expect(all.timeField == .number(2))
        #expect(all.onBadTime == .pass)
        #expect(all.inputPath == Array("-file".utf8))

        #expect(try configuration(["--throttle", "1s", "-"]).inputPath == nil)
        #expect(try configuration(["--throttle", "1s", "--record", "out.rec"]).recordPath == Array("out.rec".utf8))
        #expect(try configuration(["--debounce", "1s", "--max-wait", "1s"]).policy
                == .debounce(1_000_000_000, maxWait: 1_000_000_000))
    }

    @Test("FILE and --record keep the bytes they were given, UTF-8 or not")
    func pathBytes() throws {
        let arguments: [[UInt8]] = [Array("--throttle".utf8), Array("1s".utf8), Array("--record".utf8),
                                    [0xFE, 0x2E, 0x72], [0xFF, 0x2E, 0x6C]]
        guard case let .success(.run(parsed)) = parseArguments(bytes: arguments) else { Issue.record("no run"); return }
        #expect(parsed.recordPath == [0xFE, 0x2E, 0x72])
        #expect(parsed.inputPath == [0xFF, 0x2E, 0x6C])
        let inline: [[UInt8]] = [Array("--throttle".utf8), Array("1s".utf8), Array("--record=".utf8) + [0xC3, 0x3D]]
        guard case let .success(.run(parsed)) = parseArguments(bytes: inline) else { Issue.record("no run"); return }
        #expect(parsed.recordPath == [0xC3, 0x3D])
    }

    @Test("--delimiter takes any single byte, UTF-8 or not (issue 21): arguments are bytes")
    func delimiterBytes() throws {
        for byte: UInt8 in [0xFF, 0x80, 0xC3] {
            for form in [[Array("--delimiter".utf8), [byte]], [Array("--delimiter=".utf8) + [byte]]] {
                let arguments = [Array("--throttle".utf8), Array("1s".utf8)] + form
                guard case let .success(.run(parsed)) = parseArguments(bytes: arguments) else {
                    Issue.record("refused: \(form)")
                    continue
                }
                #expect(parsed.delimiter == byte)
            }
        }
        // Two bytes that are not UTF-8 are two bytes, quoted as given.
        let two = [Array("--throttle".utf8), Array("1s".utf8), Array("--delimiter".utf8), [0xFF, 0xFE]]
        guard case let .failure(error) = parseArguments(bytes: two) else { Issue.record("accepted"); return }
        #expect(error.messageBytes == Array("'--delimiter' takes one byte ('".utf8) + [0xFF, 0xFE] + Array("' is 2 bytes)".utf8))
    }

    @Test("a field NAME's byte that is not UTF-8 is named as it is, not as U+FFFD's first byte")
    func nameByte() throws {
        for flag in ["--key-field", "--time-field"] {
            let arguments = [Array("--throttle".utf8), Array("1s".utf8), Array("--replay".utf8), Array(flag.utf8), [0x61, 0xFF]]
            guard case let .failure(error) = parseArguments(bytes: arguments) else { Issue.record("accepted"); continue }
            #expect(error.message.hasSuffix("is not a NAME: byte 255 (a NAME holds letters, digits and '_ - @ .')"))
        }
    }

    @Test("--help and --version win, but not after --")
    func helpAndVersion() throws {
        #expect(try parseArguments(["--help"]).get() == .help)
        #expect(try parseArguments(["--debunce", "-h"]).get() == .help)
        #expect(try parseArguments(["--version"]).get() == .version)
        #expect(message(["--debounce", "1s", "--", "--help", "x"]) == "more than one input file ('--help' and 'x'); pace reads one")
        // A flag's value is its value, as readTyped takes it: `--dropped -h`
        // names a file; `--dropped --help` leaves --dropped without one.
        guard case let .run(configuration) = try parseArguments(["--debounce", "1s", "--dropped", "-h"]).get() else {
            Issue.record("--dropped -h is not a run")
            return
        }
        #expect(configuration.droppedPath == Array("-h".utf8))
        #expect(try parseArguments(["--debounce", "1s", "--dropped", "--help"]).get() == .help)
        #expect(try parseArguments(["--debounce", "1s", "--dropped=x", "-h"]).get() == .help)
        // No duration could be `-h`: help.
        #expect(try parseArguments(["--debounce", "-h"]).get() == .help)
        guard case let .run(running) = try parseArguments(["--debounce", "1s", "--exec", "-h"]).get() else {
            Issue.record("--exec -h is not a run")
            return
        }
        #expect(running.exec?.command == Array("-h".utf8))
    }

    @Test("--version names the commit when the build knew it, and only then")
    func versionText() {
        #expect(PaceCore.versionText(version: "0.1.0", commit: "abc1234") == "pace 0.1.0 (commit abc1234)\n")
        #expect(PaceCore.versionText(version: "0.1.0", commit: "abc1234-dirty") == "pace 0.1.0 (commit abc1234-dirty)\n")
        #expect(PaceCore.versionText(version: "0.1.0", commit: nil) == "pace 0.1.0\n")
        // A plain `swift build` (these tests') has no commit in it.
        #expect(buildCommit == nil)
    }

    @Test("help is exactly this text: every flag of the table, aligned, with defaults")
    func helpText() {
        // The whole text, not pieces of it: `contains("--throttle")` would be
        // satisfied by `--throttle-last` alone. A flag added to the table
        // shows here as a difference to read and accept.
        let expected = """
        OVERVIEW: Rate-limit a stream of lines: debounce, throttle, limit or pace them.

        pace reads lines as timestamped events, passes them through one policy,
        and writes the lines that survive to stdout, byte for byte. Live, time is
        each line's arrival; with --replay, it is a timestamp read from the line,
        and the output is the same on every run.

        USAGE: pace <policy> [<options>] [<file>]

        ARGUMENTS:
          <file>                  The input (default: stdin; '-' is stdin too).

        POLICIES (exactly one):
          --debounce <duration>   Trailing debounce: emit the last line of a burst once
                                  <duration> of silence has passed.
          --leading <duration>    Leading-edge debounce: emit the first line of a burst
                                  at once, then stay silent until <duration> of silence
                                  has passed.
          --throttle, --throttle-first <duration>
                                  Throttle, first: emit a line at once, then drop
                                  everything for <duration> after that emission.
          --throttle-last <duration>
                                  Throttle, latest: emit a line at once; keep only the
                                  latest line of each <duration> window and emit it when
                                  the window ends.
          --limit <n/duration>    Count limit: at most <n> lines per <duration> pass, in
                                  bursts of up to --burst; the rest are dropped (10/s,
                                  600/h, 5/250ms).
          --rate <n/duration>     Pacing: lines are delayed, never dropped, so that at
                                  most <n> per <duration> go out, in bursts of up to
                                  --burst (default 1: one every <duration>/<n>).

        OPTIONS:
          --max-wait <duration>   With --debounce: no line stays pending longer than
                                  <duration> after the first line pending since the last
                                  emission (>= the debounce window).
          --trailing              With --leading: also emit the last line of a burst, if
                                  it is not its first, when the burst ends (one window
                                  after that line).
          --batch <n>             With --debounce or --throttle-last: keep up to <n>
                                  pending lines together instead of the latest alone,
                                  and emit them all at once, in input order, as one
                                  batch (at once when <n> are pending; with --exec, one
                                  command).
          --burst <count>         With --limit or --rate: the bucket's size, a positive
                                  whole number of lines that may go out at once.
                                  (default: the <n> of --limit, 1 for --rate)
          --resolve-after <duration>
                                  Episodes: a 'resolved' line (the key's last line
                                  again) once a key has had no line for <duration> and
                                  nothing pending; every output line is marked first,
                                  repeat, resolved or exempt (a TAB column after the
                                  prefixes; PACE_EVENT with --exec).
          --key-field <fields>    Independent state per key: the key is the values of
                                  <fields>, a comma-separated list of N (field N,
                                  1-based), N-M, N- and NAMEs (a JSON member such as
                                  kubernetes.pod, or a logfmt key): 3, 2,4, 5-, host. An
                                  item followed by ~ is masked: each run of letters,
                                  digits, _ and . holding a digit becomes # (5-~, msg~:
                                  one key per message template). Lines lacking them
                                  share the empty key.
          --exempt <item=values>  Lines whose field <item> (a number or a NAME) has one
                                  of <values> (comma-separated, ASCII case ignored) pass
                                  outside the policy, at once, counting 1:
                                  level=error,fatal.
          --then-every <m>        Of the lines a key's policy would drop, let every
                                  <m>th in a row through (an integer >= 2), counting
                                  <m>; not with --rate or --batch.
          --delimiter <byte>      Split fields at each <byte> (as cut -d; '\\t' is TAB)
                                  instead of at runs of spaces and tabs.
          --replay                Replay mode: time comes from each line's timestamp, on
                                  a virtual clock (deterministic output).
          --time-format <format>  auto, unix, unix-ms, unix-us, unix-ns, iso8601,
                                  syslog, clf, offset, record, or a strptime-style
                                  pattern with % directives. (default: auto) [replay]
          --year <year>           The year of timestamps that carry none (syslog,
                                  patterns without %Y %y %s). (default: the current UTC
                                  year) [replay]
          --time-field <field>    The timestamp starts at field <field> (a number,
                                  1-based; with --delimiter, it is that field's whole
                                  value), or is the whole value of the JSON member or
                                  logfmt key <field>; an opening '[' is skipped.
                                  (default: 1) [replay]
          --on-bad-time <action>  A line whose timestamp does not parse: error (stop,
                                  exit 1), skip (drop it), or pass (write it through at
                                  once). (default: error) [replay]
          --emit-time             Prefix each output line with its emission time in
                                  seconds (6 decimals) and a TAB.
          --count                 Prefix each output line with a count and a TAB (after
                                  --emit-time's prefix): the line itself plus the lines
                                  of its key dropped since that key's previous output
                                  line.
          --count-field <name>    The count of --count inside the line instead:
                                  ,"<name>":N before a JSON object's closing brace, else
                                  ' <name>=N' (a space, then the pair) appended; not
                                  with --count or --exec.
          --dropped <file>        Write every input line that does not reach stdout to
                                  <file> (created or truncated), as it is dropped; with
                                  --emit-time, after the time it was dropped and a TAB.
          --record <file>         Live mode: also write every input line to <file> with
                                  its arrival time, for a later --replay --time-format
                                  record.
          --state <file>          Live mode: keep each key's windows, buckets, owed
                                  counts and open episodes in <file> across runs: loaded
                                  at start if it exists, saved at exit and at most once
                                  a minute while something changed (see STATE in the
                                  manual).
          --stats                 At exit, print a summary on stderr: lines in, emitted,
                                  dropped, keys, clamped and bad timestamps, empty lines
                                  (with --count, dropped lines left uncounted); with
                                  --key-field, also in, emitted and dropped for the top
                                  10 keys. Bounded memory: past 1,000,000 keys the key
                                  count is an estimate, past 100,000 the table comes
                                  from a summary (both say so).
          --trace                 Print each input line's fate on stderr as it becomes
                                  certain: emitted (when), replaced by which line,
                                  dropped inside which window, skipped.
          --progress              While pace runs, a status line on stderr when it is a
                                  terminal: lines in, emitted, discarded, active keys,
                                  lines per second; in replay also the time reached and,
                                  for a file, how much is read and the time left.
          --metrics <file>        Keep the run's counters in <file> in the Prometheus
                                  text format (for node_exporter's textfile collector),
                                  rewritten at most once a second and at exit.
          --marbles               After the replay, draw input and output per key as
                                  marble diagrams on stderr, scaled to the terminal
                                  width (COLUMNS, else 80; first 10000 events). [replay]
          --exec <command>        Instead of writing each emitted line, run /bin/sh -c
                                  <command> with the line on stdin and PACE_LINE,
                                  PACE_KEY, PACE_TIME and PACE_COUNT in its environment;
                                  at most one command per key at a time. A failed
                                  command makes pace exit 123.
          --on-busy <action>      With --exec: what a line does while its key's command
                                  runs or waits: queue (run after it), drop (discard the
                                  line), or restart (SIGTERM the running command; the
                                  newest line runs next). (default: queue)
          --jobs <n>              With --exec: at most <n> commands at once, 1 to 100000
                                  (live; replay runs one at a time). (default: 1)
          --kill-after <duration>
                                  With --exec: a command sent SIGTERM (by restart, or a
                                  signal to pace) that still runs after <duration> gets
                                  SIGKILL. (default: 5s)
          -h, --help              Show this help and exit.
          --version               Show the version and exit.

        Durations are a number and a unit: 300ms, 1.5s, .5s, 2m, 250us (ns us ms s m h).
        Rates are N/D, N lines (1 to 10^9) per duration or unit: 10/s, 600/h, 5/250ms.

        EXAMPLES:
          Each changed file, once its burst of events has been quiet for 300 ms:
            inotifywait -m -r src | pace --debounce 300ms --key-field 3

          The same, pace running the build; a newer save cancels a stale build:
            inotifywait -m -r src |
              pace --debounce 300ms --key-field 3 --exec 'make' --on-busy restart

          Notify at most once a minute per host:
            tail -F app.log | pace --throttle 1m --key-field host \\
              --exec 'notify-send "$PACE_KEY" "$PACE_LINE"'

          At most one line per host per minute from a log:
            tail -F app.log | pace --throttle 1m --key-field 2

          At most 10 lines a minute per host, the rest dropped:
            tail -F app.log | pace --limit 10/m --key-field 2

          Pace a log out at 100 lines a second:
            pace --rate 100/s app.log | nc -q1 collector 5140

          Replay a recorded log to see what a 2 s debounce would have let through:
            pace --debounce 2s --replay --time-format iso8601 --emit-time app.log

          Dedupe a log: one line per message (field 5 on) per minute, with its count:
            pace --throttle 1m --key-field 5- --count --replay app.log

          Audit a throttle afterwards: what it dropped, most frequent first:
            tail -F app.log | pace --throttle 10s --key-field 2 --dropped dropped.log
            sort dropped.log | uniq -c | sort -rn | head

          Record a live session once, then tune the window offline:
            cmd | pace --debounce 300ms --record session.rec
            pace --debounce 500ms --replay --time-format record session.rec

        """
        let text = PaceCore.helpText()
        #expect(text == expected)
        for line in text.split(separator: "\n") { #expect(line.count <= 80, "too wide: \(line)") }
    }

    @Test("did-you-mean uses edit distance")
    func distance() {
        #expect(editDistance("--debounce", "--debunce") == 1)
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(editDistance("", "abc") == 3)
        #expect(editDistance("--recrod", "--record") == 1)
        #expect(editDistance("ca", "abc") == 3)
    }
}
