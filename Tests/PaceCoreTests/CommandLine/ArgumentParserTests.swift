// The argument parser against SPEC's usage-error table and flag rules.

import Testing
@testable import PaceCore

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
        ([], "no policy given (choose one of --debounce, --leading, --throttle, --throttle-last)"),
        (["--replay"], "no policy given (choose one of --debounce, --leading, --throttle, --throttle-last)"),
        (["--debounce", "1s", "--throttle", "1s"], "two policies given, '--debounce' and '--throttle' (choose one)"),
        (["--debunce", "1s"], "unknown option '--debunce' (did you mean '--debounce'?)"),
        (["--debounce", "1s", "--frobnicate"], "unknown option '--frobnicate'"),
        (["-x"], "unknown option '-x'"),
        (["--debounce", "300"], "invalid duration '300' for '--debounce': a number needs a unit"),
        (["--debounce", "3 s"], "invalid duration '3 s' for '--debounce': a number needs a unit"),
        (["--debounce", "3sec"], "invalid duration '3sec' for '--debounce': unknown unit"),
        (["--debounce", "3x"], "invalid duration '3x' for '--debounce': unknown unit"),
        (["--debounce", "ms"], "invalid duration 'ms' for '--debounce': it is not a number with a unit"),
        (["--debounce", ""], "invalid duration '' for '--debounce': it is empty"),
        (["--debounce", "9999999999h"], "invalid duration '9999999999h' for '--debounce': it is too large"),
        (["--debounce", "0s"], "'--debounce' must be greater than zero (got '0s')"),
        (["--throttle", "0.0000000001s"], "'--throttle' must be greater than zero (got '0.0000000001s')"),
        (["--debounce"], "missing value for '--debounce <duration>'"),
        (["--debounce", "--replay"], "missing value for '--debounce <duration>'"),
        (["--debounce", "1s", "--max-wait", "500ms"], "'--max-wait' (500ms) must be at least the debounce window (1s)"),
        (["--throttle", "1s", "--max-wait", "2s"], "'--max-wait' only applies to --debounce (not '--throttle')"),
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
        (["--debounce", "1s", "--delimiter", "ab"], "'--delimiter' takes one byte ('ab' is 2 bytes)"),
        (["--debounce", "1s", "--delimiter", ""], "'--delimiter' takes one byte (it is empty)"),
        (["--debounce", "1s", "--delimiter", "\\n"], "'--delimiter' takes one byte ('\\n' is 2 bytes)"),
        (["--debounce", "1s", "--delimiter", "é"], "'--delimiter' takes one byte ('é' is 2 bytes)"),
        (["--debounce", "1s", "--replay", "--time-field", "-1"], "invalid time field for '--time-field': '-1': field numbers have no sign"),
        (["--debounce", "1s", "--replay", "--time-field", "0"],
         "invalid time field for '--time-field': invalid field '0' (fields count from 1, up to 1000000: N, N-M or N-)"),
        (["--debounce", "1s", "--replay", "--time-field", "2-"],
         "invalid time field for '--time-field': '2-': a time field is one field (a number or a NAME), not a range"),
        (["--debounce", "1s", "--replay", "--time-field", "1,2"],
         "invalid time field for '--time-field': invalid field '1,2' (fields count from 1, up to 1000000: N, N-M or N-)"),
        (["--debounce", "1s", "--replay", "--time-field"], "missing value for '--time-field <field>'"),
        (["--debounce", "1s", "--replay", "--time-format", "record", "--time-field", "ts"],
         "'--time-field' does not apply to --time-format record (its time is the line's prefix)"),
        (["--debounce", "1s", "--replay", "--on-bad-time", "ignore"], "invalid value 'ignore' for '--on-bad-time' (choose error, skip or pass)"),
        (["--debounce", "1s", "--replay", "--time-format", "unixms"], "unknown time format 'unixms' (did you mean 'unix-ms'?)"),
        (["--debounce", "1s", "--replay", "--time-format", "epoch"], "unknown time format 'epoch'"),
        (["--debounce", "1s", "--replay", "--year", "1500"], "invalid year '1500' for '--year' (pace handles years 1678 to 2261)"),
        (["--debounce", "1s", "--replay", "--time-format", "record", "--time-field", "2"],
         "'--time-field' does not apply to --time-format record (its time is the line's prefix)"),
    ] as [([String], String)])
    func usageErrors(arguments: [String], expected: String) {
        #expect(message(arguments) == expected)
    }

    @Test("usage errors carry the usage hint; duration errors show the forms")
    func hints() throws {
        guard case let .failure(unknown) = parseArguments(["--nope"]) else { Issue.record("no error"); return }
        #expect(unknown.text == "pace: unknown option '--nope'\nUsage: pace <policy> [<options>] [<file>]\nSee 'pace --help' for more information.\n")
        guard case let .failure(duration) = parseArguments(["--leading", "5"]) else { Issue.record("no error"); return }
        #expect(duration.hint.hasPrefix("A duration is a number and a unit: 300ms, 1.5s, .5s, 2m, 250us"))
    }

    @Test("each policy flag and its window")
    func policies() throws {
        #expect(try configuration(["--debounce", "300ms"]).policy == .debounce)
        #expect(try configuration(["--debounce", "300ms"]).window == 300_000_000)
        #expect(try configuration(["--leading", "1.5s"]).policy == .leading)
        #expect(try configuration(["--leading", "1.5s"]).window == 1_500_000_000)
        #expect(try configuration(["--throttle", ".5s"]).policy == .throttleFirst)
        #expect(try configuration(["--throttle-first", "2m"]).window == 120_000_000_000)
        #expect(try configuration(["--throttle-last", "250us"]).policy == .throttleLast)
        #expect(try configuration(["--throttle-last=1h"]).window == 3_600_000_000_000)
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
        #expect(all.maxWait == 5_000_000_000)
        #expect(all.keyField == .field(3))
        #expect(all.replay && all.emitTime && all.stats)
        #expect(all.timeFormat == .unixMs)
        #expect(all.year == 2024)
        #expect(all.timeField == .number(2))
        #expect(all.onBadTime == .pass)
        #expect(all.inputPath == "-file")

        #expect(try configuration(["--throttle", "1s", "-"]).inputPath == nil)
        #expect(try configuration(["--throttle", "1s", "--record", "out.rec"]).recordPath == "out.rec")
        #expect(try configuration(["--debounce", "1s", "--max-wait", "1s"]).maxWait == 1_000_000_000)
    }

    @Test("--help and --version win, but not after --")
    func helpAndVersion() throws {
        #expect(try parseArguments(["--help"]).get() == .help)
        #expect(try parseArguments(["--debunce", "-h"]).get() == .help)
        #expect(try parseArguments(["--version"]).get() == .version)
        #expect(message(["--debounce", "1s", "--", "--help", "x"]) == "more than one input file ('--help' and 'x'); pace reads one")
    }

    @Test("help lists every flag of the table, aligned, with defaults")
    func helpText() {
        let text = PaceCore.helpText()
        for flag in flagTable {
            for name in flag.names { #expect(text.contains(name), "help lacks \(name)") }
        }
        #expect(text.contains("USAGE: pace <policy> [<options>] [<file>]"))
        #expect(text.contains("  --time-format <format>  "))
        #expect(text.contains("(default: auto) [replay]"))
        #expect(text.contains("EXAMPLES:"))
        for line in text.split(separator: "\n") { #expect(line.count <= 80, "too wide: \(line)") }
    }

    @Test("did-you-mean uses edit distance")
    func distance() {
        #expect(editDistance("--debounce", "--debunce") == 1)
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(editDistance("", "abc") == 3)
    }
}
