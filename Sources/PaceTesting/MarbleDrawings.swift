// Replaying what `pace --marbles` drew: one `in` and one `out` row per key,
// pasted as it is, header and legend included. (The notation, which the
// one-row tests share: MarbleDiagram.swift.)

import PaceCore
import Testing

/// Replays what `pace --marbles` drew (pasted as it is, header and legend
/// included, or just its rows) through `policy`, one column a tick, and
/// expects each key's `out` row; records one issue showing the expected and
/// the actual rows if not. A run whose events fall between columns is drawn
/// with them moved onto one, so pick `COLUMNS` to make a column one tick.
/// Emissions of different keys at the same tick may come in any order.
@discardableResult
package func expectMarbles<P: Policy>(
    _ policy: P,
    tick: Nanoseconds = marbleTick,
    drawn: String,
    sourceLocation: SourceLocation = #_sourceLocation
) -> TestClock<P> where P.Payload == EventNumber {
    let rows: [MarbleRows]
    do {
        rows = try MarbleRows.parse(drawn)
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
        return TestClock(policy: policy)
    }
    let keyed = rows.contains { $0.key != nil }
    var clock = TestClock(policy: policy, keyed: keyed)
    // Each key's events, tick by tick; at one tick, keys in the drawing's order.
    let byTick = rows.flatMap { row in row.input.steps.map { (tick: $0.tick, row: row, letters: $0.letters) } }
        .enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
    for step in byTick {
        clock.advance(to: instant(atTick: step.tick, tick))
        for letter in step.letters { clock.send(step.row.line(letter), key: step.row.key ?? "") }
    }
    let end = rows.map { $0.input.end ?? $0.input.length }.max() ?? 0
    clock.advance(to: instant(atTick: end, tick))
    clock.finish()

    var matched = 0
    var report: [(label: String, expected: MarbleDiagram, actual: [Emitted])] = []
    for row in rows {
        let ofKey = clock.emissions.compactMap { row.letter(of: $0) }
        matched += ofKey.count
        report.append((row.key.map { $0 + " " } ?? "", row.output, ofKey))
    }
    let same = matched == clock.emissions.count && report.allSatisfy { $0.expected.matches($0.actual, tick: tick) }
    if !same {
        let width = report.map(\.label.count).max() ?? 0
        var lines = ["emissions differ"]
        for (label, expected, actual) in report {
            let pad = String(repeating: " ", count: width - label.count)
            lines.append("  " + label + "out " + pad + drawing(expected))
            lines.append("  " + label + "got " + pad + drawing(actual, tick: tick))
        }
        lines.append("  actual emissions: \(clock.emissions)")
        Issue.record(Comment(rawValue: lines.joined(separator: "\n")), sourceLocation: sourceLocation)
    }
    return clock
}

/// One key's pair of rows in a --marbles drawing.
struct MarbleRows {
    /// The key, or nil without --key-field.
    var key: String?
    var input: MarbleDiagram
    var output: MarbleDiagram

    /// The line an event of this key is sent as: the key, so that the
    /// emissions of two keys can be told apart, and the letter.
    func line(_ letter: Character) -> String { key.map { "\($0) \(letter)" } ?? String(letter) }

    /// An emission of this key, as its letter alone; nil for another key's.
    func letter(of emission: Emitted) -> Emitted? {
        let text = String(decoding: emission.line, as: UTF8.self)
        guard let key else { return emission }
        // The key, a space and one letter (a key may hold spaces itself).
        guard text.count == key.count + 2, text.hasPrefix(key + " ") else { return nil }
        return Emitted(time: emission.time, String(text.suffix(1)))
    }

    /// The rows of a drawing. The header, the legend and blank lines say
    /// nothing to replay; the notes on what was left out make it unusable.
    static func parse(_ drawing: String) throws(MarbleDiagram.ParseError) -> [MarbleRows] {
        var inputs: [(key: String?, row: String)] = []
        var outputs: [String?: String] = [:]
        for raw in drawing.split(separator: "\n") {
            let line = raw.trimmingBlanks()
            if line.isEmpty || line.hasPrefix("pace: marbles:") || line.hasPrefix("a-z:") || line.hasPrefix("2-9:") {
                continue
            }
            if line.hasPrefix("(the first") { throw .leftOut(line) }
            let words = line.split(separator: " ").map(String.init)
            // `[<key>] in|out [<cells>]`: an empty row has no cells, and a key
            // may hold spaces (several key fields).
            let direction: Int
            if words.count >= 2, ["in", "out"].contains(words[words.count - 2]) {
                direction = words.count - 2
            } else if let last = words.last, ["in", "out"].contains(last) {
                direction = words.count - 1
            } else {
                throw .notARow(line)
            }
            let key = direction == 0 ? nil : words[..<direction].joined(separator: " ")
            let cells = direction == words.count - 1 ? "" : words[words.count - 1]
            if words[direction] == "in" {
                guard !inputs.contains(where: { $0.key == key }) else { throw .badRows("two 'in' rows for \(key ?? "the one key")") }
                inputs.append((key, cells))
            } else {
                guard outputs[key] == nil else { throw .badRows("two 'out' rows for \(key ?? "the one key")") }
                outputs[key] = cells
            }
        }
        if inputs.contains(where: { $0.key == nil }) && inputs.count > 1 {
            throw .badRows("rows with and without a key")
        }
        for key in outputs.keys where !inputs.contains(where: { $0.key == key }) {
            throw .badRows("an 'out' row for \(key ?? "the one key") without its 'in' row")
        }
        var rows: [MarbleRows] = []
        for (key, cells) in inputs {
            rows.append(MarbleRows(key: key, input: try MarbleDiagram(parsing: cells, role: .input),
                                   output: try MarbleDiagram(parsing: outputs[key] ?? "", role: .output)))
        }
        return rows
    }
}

extension StringProtocol {
    fileprivate func trimmingBlanks() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}

/// A row as --marbles draws it: a letter, `2`-`9` or `*` per tick, trailing
/// idle ticks left out.
private func drawing(_ row: MarbleDiagram) -> String {
    var cells = [Character](repeating: "-", count: row.length)
    for step in row.steps {
        switch step.marks {
        case let .named(letters): cells[step.tick] = letters.count == 1 ? letters[0] : cell(count: letters.count)
        case let .counted(n): cells[step.tick] = cell(count: n)
        }
    }
    return String(cells).replacingTrailingIdle()
}

private func drawing(_ emissions: [Emitted], tick: Nanoseconds) -> String {
    var perTick: [Int: [Emitted]] = [:]
    var offGrid = false
    for emission in emissions {
        let (at, onGrid) = tickOf(emission.time, tick: tick)
        if !onGrid { offGrid = true }
        perTick[at, default: []].append(emission)
    }
    let ticks = (perTick.keys.max() ?? -1) + 1
    let cells = (0..<ticks).map { t -> Character in
        guard let here = perTick[t] else { return "-" }
        if here.count == 1, here[0].line.count == 1 { return Character(Unicode.Scalar(here[0].line[0])) }
        return here.count == 1 ? "?" : cell(count: here.count)
    }
    return String(cells) + (offGrid ? "  (some between ticks)" : "")
}

extension String {
    fileprivate func replacingTrailingIdle() -> String {
        String(reversed().drop { $0 == "-" }.reversed())
    }
}
