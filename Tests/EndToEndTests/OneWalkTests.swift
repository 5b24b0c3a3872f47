// Values found in one walk of the line (issues 23 and 25), through the built
// binary: a JSON line's time, key and `--exempt` members found together, and
// a whitespace key with its `--exempt` field. The lines put the members in
// every order, nest and escape them, duplicate and leave them out; expected
// bytes are worked out by hand from SPEC.

import Foundation
import Testing

@Suite("one walk of the line, end to end")
struct OneWalkEndToEndTests {
    static let bom = "\u{FEFF}"

    /// Line by line (throttle 1s, keyed by host, ERROR exempt):
    /// 1 (BOM) a at 0.0, emitted; 2 a at 0.1 (escaped name), dropped;
    /// 3 b, level ERROR: exempt; 4 b at 0.3 (a nested host and ts are not
    /// its own), emitted: the exempt line touched no state; 5 the first host,
    /// c, counts: emitted; 6 a bad time; 7 no host: the empty key, emitted;
    /// 8 exempt (time after level after host); 9 a at 1.0, the window over.
    static let json = bom + #"""
        {"host":"a","ts":1795953600.0,"level":"info","msg":"1"}
        {"ts":1795953600.1,"h\u006fst":"a","level":"info","msg":"2"}
        {"ts":1795953600.2,"host":"b","level":"ERROR","msg":"3"}
        {"req":{"host":"a","ts":1},"ts":1795953600.3,"host":"b","msg":"4"}
        {"ts":1795953600.4,"host":"c","host":"a","msg":"5"}
        {"ts":"late","host":"a","msg":"6"}
        {"ts":1795953600.5,"msg":"7"}
        {"host":"a","level":"error","ts":1795953600.6}
        {"msg":"9","ts":1795953601.0,"host":"a"}

        """#

    static func lines(_ numbers: [Int]) -> String {
        let all = json.split(separator: "\n", omittingEmptySubsequences: false)
        return numbers.map { all[$0 - 1] + "\n" }.joined()
    }

    @Test("JSON: time, key and --exempt members in every order, nested, escaped, duplicated, missing")
    func jsonMembersInOneWalk() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "host", "--time-field", "ts",
                                   "--exempt", "level=error", "--on-bad-time", "pass", "--count", "--stats"],
                                  stdin: Array(Self.json.utf8))
        let expected = Self.lines([1, 3, 4, 5, 6, 7, 8, 9]).split(separator: "\n").enumerated().map { n, line in
            // --count: line 9 (a) counts itself and line 2; the rest 1.
            (n == 7 ? "2\t" : "1\t") + line + "\n"
        }.joined()
        #expect(result.stdoutText == expected)
        // The policy sees lines 1, 2, 4, 5, 7 and 9: the exempt and the
        // passed lines are outside it.
        #expect(result.stderr.contains("""
              events in:           6
              emitted:             5
              dropped:             1
              distinct keys:       4
            """))
        #expect(result.stderr.contains("  bad-time lines:      1\n  passed through:      1\n"))
        #expect(result.stderr.contains("  exempt lines:        2\n"))
        #expect(result.status == 0)
    }

    @Test("JSON: a bad time stops the run with its message; a missing time member is named")
    func badTimeMessages() throws {
        let late = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "host", "--time-field", "ts"],
                                stdin: Array(Self.lines([1, 6]).utf8))
        #expect(late == PaceResult(stdout: Array(Self.lines([1]).utf8),
                                   stderr: "pace: line 2: timestamp does not match unix, the format --time-format auto found on the first timestamped line\n", status: 1))
        let missing = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "host", "--time-field", "ts",
                                    "--exempt", "level=info"],
                                   stdin: Array((Self.lines([3]) + #"{"host":"a","level":"info"}"# + "\n").utf8))
        #expect(missing == PaceResult(stdout: Array(Self.lines([3]).utf8),
                                      stderr: "pace: line 2: no time field 'ts' (no such JSON member or logfmt key)\n",
                                      status: 1))
    }

    @Test("JSON: the key is the time member's own value when both name it")
    func keyIsTheTimeMember() throws {
        let input = #"{"ts":1795953600.0}"# + "\n" + #"{"ts":1795953600.0}"# + "\n" + #"{"ts":1795953600.5}"# + "\n"
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "ts", "--time-field", "ts"],
                                  stdin: Array(input.utf8))
        #expect(result.stdoutText == #"{"ts":1795953600.0}"# + "\n" + #"{"ts":1795953600.5}"# + "\n")
    }

    @Test("whitespace: --exempt's field before, after or the key's own, and lines too short for either")
    func whitespaceKeyAndExempt() throws {
        let input = """
            0.0 a x ERROR
            0.1 a x INFO
            0.2 b ERROR
            0.3 b y INFO
            0.4 ERROR
            0.5
            0.6 ERROR c INFO

            """
        func lines(_ numbers: [Int]) -> String {
            let all = input.split(separator: "\n")
            return numbers.map { all[$0 - 1] + "\n" }.joined()
        }
        // Key 2, exempt 4: line 1 (ERROR) exempt, so 2 is a's first; 3 b
        // (no field 4); 4 b dropped; 5 the key ERROR (no field 4); 6 the
        // empty key (too short for both); 7 ERROR dropped.
        let after = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--key-field", "2",
                                  "--exempt", "4=error"], stdin: input)
        #expect(after.stdoutText == lines([1, 2, 3, 5, 6]))
        // Key 4, exempt 2: lines 1 ERROR and 2 INFO; 3 the empty key (no
        // field 4); 4 INFO dropped; 5 exempt; 6 the empty key dropped (too
        // short for both); 7 exempt.
        let before = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--key-field", "4",
                                   "--exempt", "2=error"], stdin: input)
        #expect(before.stdoutText == lines([1, 2, 3, 5, 7]))
        // Key 2, exempt 2 (fields split at each space): 1 a; 2 a dropped;
        // 3, 4, 5 and 7 exempt; 6 the empty key.
        let same = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--key-field", "2",
                                 "--exempt", "2=b,error", "--delimiter", " "], stdin: input)
        #expect(same.stdoutText == lines([1, 3, 4, 5, 6, 7]))
    }
}
