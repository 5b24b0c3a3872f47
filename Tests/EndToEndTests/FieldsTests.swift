// Keys and times from structured and delimited lines, through the built
// binary: JSON members, logfmt keys, `--delimiter`, composite keys as
// `--stats` shows them, a missing time field, and usage errors. Expected
// outputs are worked out by hand from SPEC.

import Foundation
import Testing

@Suite("fields, end to end")
struct FieldsEndToEndTests {
    @Test("JSON lines: keyed by a member, timed by another; --stats shows the keys")
    func jsonLines() throws {
        let input = """
            {"ts":1795953600.0,"host":"a","msg":"one"}
            {"ts":1795953600.2,"host":"b","msg":"two"}
            {"ts":1795953600.4,"host":"a","msg":"three"}
            {"ts":1795953601.0,"host":"a","msg":"four"}
            {"ts":1795953601.1,"host":"b\\u0000","msg":"five"}

            """
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "host", "--time-field", "ts",
                                   "--emit-time", "--stats"], stdin: Array(input.utf8))
        // a: one (window to 1.0), three dropped, four at exactly 1.0 passes.
        // b and "b\0" are different keys.
        #expect(result.stdoutText == """
            1795953600.000000\t{"ts":1795953600.0,"host":"a","msg":"one"}
            1795953600.200000\t{"ts":1795953600.2,"host":"b","msg":"two"}
            1795953601.000000\t{"ts":1795953601.0,"host":"a","msg":"four"}
            1795953601.100000\t{"ts":1795953601.1,"host":"b\\u0000","msg":"five"}

            """)
        #expect(result.stderr.contains("""
              distinct keys:       3
            """))
        // The NUL of "b\0" is shown escaped (issue 21).
        #expect(result.stderr.hasSuffix(#"""
              key    in  emitted  dropped
              a       3        2        1
              b       1        1        0
              b\x00   1        1        0

            """#))
        #expect(result.status == 0)
    }

    @Test("a NAME in another script's letters: a JSON member and a logfmt key named in UTF-8, or with JSON escapes")
    func unicodeNames() throws {
        let json = "{\"hôte\":\"a\",\"n\":1}\n{\"h\\u00f4te\":\"a\",\"n\":2}\n{\"hôte\":\"b\",\"n\":3}\n"
        let keyed = try Pace.run(["--throttle", "1s", "--key-field", "hôte"], stdin: Array(json.utf8))
        #expect(keyed.stdoutText == "{\"hôte\":\"a\",\"n\":1}\n{\"hôte\":\"b\",\"n\":3}\n")
        let logfmt = "имя=x n=1\nимя=x n=2\nимя=y n=3\n"
        let pairs = try Pace.run(["--throttle", "1s", "--key-field", "имя"], stdin: Array(logfmt.utf8))
        #expect(pairs.stdoutText == "имя=x n=1\nимя=y n=3\n")
        // A word's combining marks are part of it: Devanagari's virama, and
        // a decomposed ô (o, U+0302), which matches the decomposed bytes only.
        let hindi = "नमस्ते=x n=1\nनमस्ते=x n=2\nनमस्ते=y n=3\n"
        let marked = try Pace.run(["--throttle", "1s", "--key-field", "नमस्ते"], stdin: Array(hindi.utf8))
        #expect(marked.stdoutText == "नमस्ते=x n=1\nनमस्ते=y n=3\n")
        #expect(marked.status == 0)
        let decomposed = "ho\u{0302}te"
        let both = "{\"\(decomposed)\":\"a\",\"n\":1}\n{\"\(decomposed)\":\"a\",\"n\":2}\n{\"hôte\":\"a\",\"n\":3}\n"
        let composed = try Pace.run(["--throttle", "1s", "--key-field", decomposed], stdin: Array(both.utf8))
        #expect(composed.stdoutText == "{\"\(decomposed)\":\"a\",\"n\":1}\n{\"hôte\":\"a\",\"n\":3}\n")
        // A mark does not start a NAME.
        let leading = try Pace.run(["--throttle", "1s", "--key-field", "\u{0302}x"], stdin: [])
        #expect(leading.status == 2)
        #expect(leading.stderr.hasPrefix("pace: invalid field list for '--key-field': '\u{0302}x' is not a field number or a NAME"))
    }

    @Test("logfmt: a composite key is its values joined by one space in --stats")
    func logfmtComposite() throws {
        let input = """
            time=2026-11-29T12:00:00Z level=info msg="disk full" host=h1
            time=2026-11-29T12:00:10Z level=info host=h1 msg="disk full"
            time=2026-11-29T12:00:20Z level=warn msg="disk full" host=h1
            time=2026-11-29T12:00:30Z level=info msg=disk host=full

            """
        let result = try Pace.run(["--throttle", "1m", "--replay", "--key-field", "level,msg",
                                   "--time-field", "time", "--stats"], stdin: Array(input.utf8))
        // Lines 1 and 2 share (info, disk full); line 4's (info, disk) is another key.
        #expect(result.stdoutText == """
            time=2026-11-29T12:00:00Z level=info msg="disk full" host=h1
            time=2026-11-29T12:00:20Z level=warn msg="disk full" host=h1
            time=2026-11-29T12:00:30Z level=info msg=disk host=full

            """)
        #expect(result.stderr.hasSuffix("""
            pace: stats by key (top 3 of 3 by events in):
              key             in  emitted  dropped
              info disk full   2        1        1
              info disk        1        1        0
              warn disk full   1        1        0

            """))
    }

    @Test("--delimiter: CSV fields, empty ones included; a numbered time field is the whole field")
    func delimited() throws {
        let input = "web,1795953600,GET\n,1795953600.5,GET\nweb,1795953600.9,POST\n,1795953601,x\n"
        let result = try Pace.run(["--leading", "1s", "--replay", "--delimiter", ",", "--time-field", "2",
                                   "--key-field", "1", "--emit-time"], stdin: Array(input.utf8))
        // Key "web": 0 emitted, 0.9 inside; key "": 0.5 emitted, 1.0 inside.
        #expect(result.stdoutText == "1795953600.000000\tweb,1795953600,GET\n1795953600.500000\t,1795953600.5,GET\n")
        #expect(result.status == 0)
    }

    @Test("--delimiter '\\t' means TAB; a message range is the dedupe key")
    func tabAndRange() throws {
        let input = "0ms\th\tdisk  full\n10ms\th\tdisk  full\n20ms\th\tdisk full\n"
        let result = try Pace.run(["--throttle", "1m", "--replay", "--delimiter", "\\t", "--key-field", "3-"],
                                  stdin: Array(input.utf8))
        // With TAB as the delimiter, field 3 keeps its double space: line 3 differs.
        #expect(result.stdoutText == "0ms\th\tdisk  full\n20ms\th\tdisk full\n")
        let blanks = try Pace.run(["--throttle", "1m", "--replay", "--key-field", "3-"], stdin: Array(input.utf8))
        // Split by blanks, separators do not matter: one key.
        #expect(blanks.stdoutText == "0ms\th\tdisk  full\n")
    }

    @Test("--delimiter \\xff and \\x80: any single byte, given as the raw byte in argv (issue 21)",
          arguments: [UInt8(0xFF), 0x80])
    func nonUTF8Delimiter(_ byte: UInt8) throws {
        let d = [byte]
        let input = Array("0ms".utf8) + d + Array("k".utf8) + d + Array("one\n".utf8)
            + Array("1ms".utf8) + d + Array("k".utf8) + d + Array("two\n".utf8)
            + Array("2ms".utf8) + d + Array("j".utf8) + d + Array("three\n".utf8)
        let result = try Pace.spawn([Array("--throttle".utf8), Array("1h".utf8), Array("--replay".utf8),
                                     Array("--delimiter".utf8), d, Array("--key-field".utf8), Array("2".utf8)],
                                    stdin: input)
        // Key k: line 1 passes, line 2 is inside its hour; key j: line 3.
        let lines = input.split(separator: 0x0A, omittingEmptySubsequences: false)
        #expect(result == RawResult(stdout: Array(lines[0]) + [0x0A] + Array(lines[2]) + [0x0A], stderr: [], status: 0))
    }

    @Test("journalctl -o json: __REALTIME_TIMESTAMP as unix-us")
    func journald() throws {
        let input = """
            {"__REALTIME_TIMESTAMP":"1795953600123456","_SYSTEMD_UNIT":"cron.service","MESSAGE":"tick"}
            {"__REALTIME_TIMESTAMP":"1795953600200000","_SYSTEMD_UNIT":"cron.service","MESSAGE":"tick"}

            """
        let result = try Pace.run(["--debounce", "1s", "--replay", "--time-format", "unix-us",
                                   "--time-field", "__REALTIME_TIMESTAMP", "--key-field", "_SYSTEMD_UNIT",
                                   "--emit-time"], stdin: Array(input.utf8))
        #expect(result.stdoutText == "1795953601.200000\t" + input.split(separator: "\n")[1] + "\n")
    }

    @Test("a line without its time member is a bad timestamp")
    func missingTimeMember() throws {
        let input = "{\"ts\":1795953600,\"m\":1}\n{\"m\":2}\n{\"ts\":1795953601}\n"
        let error = try Pace.run(["--throttle", "1s", "--replay", "--time-field", "ts"], stdin: Array(input.utf8))
        #expect(error == PaceResult(stdout: Array("{\"ts\":1795953600,\"m\":1}\n".utf8),
                                    stderr: "pace: line 2: no time field 'ts' (no such JSON member or logfmt key)\n",
                                    status: 1))
        let skip = try Pace.run(["--throttle", "1s", "--replay", "--time-field", "ts", "--on-bad-time", "skip"],
                                stdin: Array(input.utf8))
        #expect(skip.stdoutText == "{\"ts\":1795953600,\"m\":1}\n{\"ts\":1795953601}\n")
    }

    @Test("a record's key is read past its prefix, as live mode read the line")
    func recordWithName() throws {
        let input = "1795953600.000000\t{\"host\":\"a\"}\n1795953600.100000\thost=a\n1795953600.200000\t{\"host\":\"b\"}\n"
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "record", "--key-field", "host"],
                                  stdin: Array(input.utf8))
        #expect(result.stdoutText == "{\"host\":\"a\"}\n{\"host\":\"b\"}\n")
    }

    @Test("live mode keys by a JSON member too")
    func live() throws {
        let input = "{\"host\":\"a\",\"n\":1}\n{\"host\":\"b\",\"n\":2}\n{\"host\":\"a\",\"n\":3}\nhost=b n=4\n"
        let result = try Pace.run(["--throttle", "1h", "--key-field", "host"], stdin: Array(input.utf8))
        // Within the hour, only each key's first line (a JSON and a logfmt b are the same key).
        #expect(result == PaceResult(stdout: Array("{\"host\":\"a\",\"n\":1}\n{\"host\":\"b\",\"n\":2}\n".utf8),
                                     stderr: "", status: 0))
    }

    @Test("bad field lists and delimiters are usage errors", arguments: [
        (["--key-field", "2,,3"], "pace: invalid field list for '--key-field': an empty item in the field list '2,,3'"),
        (["--key-field", "3-2"], "pace: invalid field list for '--key-field': '3-2': a range N-M needs N <= M"),
        (["--delimiter", "::"], "pace: '--delimiter' takes one byte ('::' is 2 bytes)"),
        (["--replay", "--time-field", "ts", "--time-format", "record"],
         "pace: '--time-field' does not apply to --time-format record (its time is the line's prefix)"),
    ])
    func usageErrors(_ arguments: [String], _ firstLine: String) throws {
        let result = try Pace.run(["--throttle", "1s"] + arguments)
        #expect(result.stdout.isEmpty && result.status == 2)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(result.stderr.contains("See 'pace --help' for more information.\n"))
    }
}
