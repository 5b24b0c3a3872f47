// The argument parser against SPEC's usage-error table: each message, the
// hints, did-you-mean; and --help and --version, which win over the errors.
// What a run's configuration holds is ParsedConfigurationTests'; the help
// text, HelpTextTests'.

import Testing
@testable import PaceCore
import PaceTesting

private func message(_ arguments: [String]) -> String? {
    if case let .failure(error) = parseArguments(arguments) { return error.message }
    return nil
}

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

    @Test("did-you-mean uses edit distance")
    func distance() {
        #expect(editDistance("--debounce", "--debunce") == 1)
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(editDistance("", "abc") == 3)
        #expect(editDistance("--recrod", "--record") == 1)
        #expect(editDistance("ca", "abc") == 3)
    }
}
