// `--limit N/D`, `--rate N/D` and `--burst B` on the command line: SPEC's
// N/D syntax with bare units, its bounds, and each usage error with its hint.
// Both steps of the parser are run directly (`readTyped`, then `validate`),
// and `parseArguments` is checked to run what they give.

import Testing
@testable import PaceCore
import PaceTesting

private func validated(_ arguments: [String]) -> Result<Configuration, UsageError> {
    do throws(UsageError) {
        return .success(try validate(try readTyped(arguments.map { Array($0.utf8) })))
    } catch {
        return .failure(error)
    }
}

private func message(_ arguments: [String]) -> String? {
    if case let .failure(error) = validated(arguments) { return error.message }
    return nil
}

@Suite("Command line: --limit, --rate, --burst")
struct RateArgumentTests {
    @Test("N/D with a duration or a bare unit", arguments: [
        (["--limit", "10/s"], 10, 1_000_000_000),
        (["--limit", "600/h"], 600, 3_600_000_000_000),
        (["--limit", "5/250ms"], 5, 250_000_000),
        (["--limit=100/1.5s"], 100, 1_500_000_000),
        (["--limit", "10/m"], 10, 60_000_000_000),
        (["--limit", "1/ns"], 1, 1),
        (["--limit", "5/5ns"], 5, 5),
        (["--limit", "1000000000/s"], 1_000_000_000, 1_000_000_000),
        (["--limit", "007/us"], 7, 1_000),
        (["--rate", "100/s"], 100, 1_000_000_000),
        (["--rate", "3/72h"], 3, 259_200_000_000_000),
    ] as [([String], Int64, Int64)])
    func rates(arguments: [String], count: Int64, period: Int64) throws {
        let configuration = try validated(arguments).get()
        let bucket = CellRate(count: count, per: Nanoseconds(period), burst: arguments[0].hasPrefix("--limit") ? count : 1)
        #expect(configuration.policy == (arguments[0].hasPrefix("--limit") ? .limit(bucket) : .rate(bucket)))
    }

    @Test("the burst defaults to N for --limit and 1 for --rate")
    func burstDefaults() throws {
        let limit = try validated(["--limit", "10/s"]).get()
        #expect(limit.policy == .limit(CellRate(count: 10, per: 1_000_000_000, burst: 10)))
        let rate = try validated(["--rate", "10/s"]).get()
        #expect(rate.policy == .rate(CellRate(count: 10, per: 1_000_000_000, burst: 1)))
        let given = try validated(["--rate", "10/s", "--burst", "30", "--key-field", "2"]).get()
        #expect(given.policy == .rate(CellRate(count: 10, per: 1_000_000_000, burst: 30)))
        #expect(try validated(["--limit", "10/s", "--burst=9223372036854775807"]).get().policy
                == .limit(CellRate(count: 10, per: 1_000_000_000, burst: .max)))
    }

    @Test("every bad N/D or --burst is a usage error", arguments: [
        (["--limit", "0/s"], "invalid rate '0/s' for '--limit': the count must be at least 1"),
        (["--limit", "1.5/s"], "invalid rate '1.5/s' for '--limit': the count must be a positive whole number"),
        (["--limit", "-1/s"], "invalid rate '-1/s' for '--limit': the count must be a positive whole number"),
        (["--limit", "+1/s"], "invalid rate '+1/s' for '--limit': the count must be a positive whole number"),
        (["--limit", "10/"], "invalid rate '10/' for '--limit': the duration after '/' is missing"),
        (["--limit", "/s"], "invalid rate '/s' for '--limit': the count before '/' is missing"),
        (["--limit", "10"], "invalid rate '10' for '--limit': expected N/D, a count and a duration"),
        (["--limit", "10s"], "invalid rate '10s' for '--limit': expected N/D, a count and a duration"),
        (["--limit", "10/0s"], "invalid rate '10/0s' for '--limit': the duration must be greater than zero"),
        (["--limit", "10/0.1ns"], "invalid rate '10/0.1ns' for '--limit': the duration must be greater than zero"),
        (["--limit", "10/5"], "invalid rate '10/5' for '--limit': '5' is neither a duration (a number and a unit) nor a unit"),
        (["--limit", "10/sec"], "invalid rate '10/sec' for '--limit': 'sec' is neither a duration (a number and a unit) nor a unit"),
        (["--rate", "1/S"], "invalid rate '1/S' for '--rate': 'S' has an unknown unit (units are lower case)"),
        (["--limit", "5/10MS"], "invalid rate '5/10MS' for '--limit': '10MS' has an unknown unit (units are lower case)"),
        (["--limit", "10/s/s"], "invalid rate '10/s/s' for '--limit': 's/s' is neither a duration (a number and a unit) nor a unit"),
        (["--limit", "10/9999999999h"], "invalid rate '10/9999999999h' for '--limit': the duration is too large"),
        (["--limit", "1000000001/s"], "invalid rate '1000000001/s' for '--limit': the count must be at most 1000000000"),
        (["--limit", "99999999999999999999/s"], "invalid rate '99999999999999999999/s' for '--limit': the count must be at most 1000000000"),
        (["--limit", "10/5ns"], "invalid rate '10/5ns' for '--limit': at most one line per nanosecond: the count must not exceed the 5 ns of '5ns'"),
        (["--rate", "2/ns"], "invalid rate '2/ns' for '--rate': at most one line per nanosecond: the count must not exceed the 1 ns of 'ns'"),
        (["--rate", "0/s"], "invalid rate '0/s' for '--rate': the count must be at least 1"),
        (["--limit"], "missing value for '--limit <n/duration>'"),
        (["--limit", "10/s", "--burst", "0"], "invalid burst '0' for '--burst': it must be at least 1"),
        (["--limit", "10/s", "--burst", "-1"], "invalid burst '-1' for '--burst': it must be a positive whole number"),
        (["--limit", "10/s", "--burst", "1.5"], "invalid burst '1.5' for '--burst': it must be a positive whole number"),
        (["--limit", "10/s", "--burst", "ten"], "invalid burst 'ten' for '--burst': it must be a positive whole number"),
        (["--limit", "10/s", "--burst="], "invalid burst '' for '--burst': it must be a positive whole number"),
        (["--rate", "10/s", "--burst", "9223372036854775808"], "invalid burst '9223372036854775808' for '--burst': it is too large"),
        (["--burst", "3"], "no policy given (choose one of --debounce, --leading, --throttle, --throttle-last, --limit, --rate)"),
        (["--throttle", "1s", "--burst", "3"], "'--burst' only applies to --limit and --rate (not '--throttle')"),
        (["--debounce", "1s", "--burst", "3"], "'--burst' only applies to --limit and --rate (not '--debounce')"),
        (["--limit", "10/s", "--max-wait", "2s"], "'--max-wait' only applies to --debounce (not '--limit')"),
        (["--rate", "10/s", "--max-wait", "2s"], "'--max-wait' only applies to --debounce (not '--rate')"),
        (["--limit", "10/s", "--rate", "1/s"], "two policies given, '--limit' and '--rate' (choose one)"),
        (["--limit", "10/s", "--burst", "2", "--burst", "3"], "option '--burst' given more than once"),
    ] as [([String], String)])
    func usageErrors(arguments: [String], expected: String) {
        #expect(message(arguments) == expected)
    }

    @Test("rate and burst errors carry a hint with the forms")
    func hints() {
        guard case let .failure(rate) = validated(["--limit", "1.5/s"]) else { Issue.record("no error"); return }
        #expect(rate.text == """
            pace: invalid rate '1.5/s' for '--limit': the count must be a positive whole number
            A rate is N/D: a whole number of lines N (1 to 1000000000) per duration D, or per one unit:
            10/s, 600/h, 5/250ms, 100/1.5s (units: ns, us, ms, s, m, h).
            See 'pace --help' for more information.

            """)
        guard case let .failure(burst) = validated(["--limit", "1/s", "--burst", "0"]) else { Issue.record("no error"); return }
        #expect(burst.hint.hasPrefix("--burst takes a positive whole number of lines"))
    }

    @Test("--limit and --rate run as validated")
    func wiring() throws {
        #expect(try parseArguments(["--limit", "10/s"]).get() == .run(try validated(["--limit", "10/s"]).get()))
        let rate = ["--rate", "10/s", "--burst", "3", "--key-field", "2"]
        #expect(try parseArguments(rate).get() == .run(try validated(rate).get()))
    }
}
