// `--marbles` keeps every event it draws in memory, so it records only the
// first 10,000 events (their emissions still count) and draws at most 20
// keys, and the diagram says what it left out (MarbleRecording). A real
// replay over both limits, drawn 30 columns wide: the rows and the notes are
// checked exactly.
//
// The run, under `--throttle 900ms --key-field 2`: keys k01, k02, ... one
// event each at 0 s; then k01 alone, 525 events in each second from 1 s to
// 18 s (at s.000 to s.524) and the rest of the first 10,000 at 19 s; then
// the events past the limit, on k01 and on a new key. The diagram spans 0 s
// to 19 s in 20 columns, one a second: k01's `in` row is its one event at
// 0 s, then a column of 10 or more (`*`) each second; its `out` row is what
// the throttle let through, the first event of each second: its first
// (`a`) and second (`b`) events, then ones past the 26th (`o`).

import Foundation
import Testing

struct MarbleRun: CustomTestStringConvertible, Sendable {
    /// Keys with an event at 0 s (k01 is one of them).
    let keys: Int
    /// Events after the first 10,000.
    let later: [String]
    /// Those of them the throttle emits, in output order.
    let laterEmitted: [String]

    var testDescription: String { "\(keys) keys, \(later.count) events past the limit" }

    static let perSecond = 525

    /// The input, and the lines the throttle emits.
    var lines: (input: [String], emitted: [String]) {
        var input = (1...keys).map { String(format: "0 k%02d", $0) }
        var emitted = input
        for second in 1...18 {
            for j in 0..<Self.perSecond { input.append(String(format: "%d.%03d k01", second, j)) }
            emitted.append("\(second).000 k01")
        }
        input += Array(repeating: "19 k01", count: 10_000 - input.count)
        emitted.append("19 k01")
        return (input + later, emitted + laterEmitted)
    }
}

@Suite("--marbles over its limits, end to end")
struct MarbleLimitTests {
    @Test("past 10,000 events and 20 keys, the diagram draws the first ones and says what it left out", arguments: [
        MarbleRun(keys: 20, later: [], laterEmitted: []),
        MarbleRun(keys: 21, later: ["20 kzz"], laterEmitted: ["20 kzz"]),
        MarbleRun(keys: 25, later: ["20 kzz", "20 k01", "20.1 k01", "20.2 k01", "20.3 k01", "20.4 k01", "21 kzz"],
                  laterEmitted: ["20 kzz", "20 k01", "21 kzz"]),
    ])
    func limits(run: MarbleRun) throws {
        let (input, emitted) = run.lines
        #expect(input.count == 10_000 + run.later.count)
        let result = try Pace.run(["--throttle", "900ms", "--key-field", "2", "--replay", "--time-format", "unix",
                                   "--marbles"],
                                  stdin: Array(input.map { $0 + "\n" }.joined().utf8), environment: ["COLUMNS": "30"])
        var diagram = """
            pace: marbles: 0.000000 s to 19.000000 s, 1.000000 s per column
              k01 in  a*******************
              k01 out aboooooooooooooooooo

            """
        for key in 2...20 {
            diagram += String(format: "  k%02d in  a\n  k%02d out a\n", key, key)
        }
        diagram += """
              a-z: a key's events in order (o after the 26th); in out, the ones emitted
              2-9: that many in one column, *: 10 or more; -: none

            """
        if run.keys > 20 { diagram += "  (the first 20 of \(run.keys) keys shown)\n" }
        if !run.later.isEmpty { diagram += "  (the first 10000 events only; \(run.later.count) later ones not shown)\n" }
        #expect(result.stderr == diagram)
        #expect(result.stdoutText == emitted.map { $0 + "\n" }.joined())
        #expect(result.status == 0)
    }
}
