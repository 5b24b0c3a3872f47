// A tiny marble notation for policy tests, after swift-async-algorithms'
// validation diagrams: a test reads as the input stream drawn above the output
// it must produce, instead of as a table of nanoseconds.
//
//     expectMarbles(Debounce(window: 3.ticks),
//                   input:  "a--b|",
//                   output: "---a--b")
//
// One character is one tick (10 ms unless the test picks another length):
// `-` is an idle tick, a letter is an event whose line is that letter,
// `[ab]` is several events at the same instant (one tick, in that input
// order), `|` (input only) is the end of input. Spaces are ignored, so
// diagrams can be aligned by hand.
//
// It is the dialect `pace --marbles` draws, so what --marbles draws can be
// pasted into a test (`expectMarbles(_:tick:drawn:)`, one column a tick):
// - `2` to `9` is that many events in one tick. In an input row they are the
//   row's next events, named as --marbles names a key's events: the k-th
//   event of a row is the k-th letter, `o` after the 26th. In an output row
//   it is that many emissions at that tick, whichever they are.
// - `*` (10 or more) is refused: the count is lost, so nothing can replay it.
// - A --marbles drawing is one `in` and one `out` row per key, labelled with
//   the key (no label without --key-field). It always shows a whole replay,
//   so its end of input is implied after the last event.
//
// The helper is exhaustive, like TCA's TestStore: it compares the whole list
// of emissions, so an emission the diagram does not show fails the test, and
// no timer may be left pending at the end. After `|` the clock runs on the way
// replay's end of input does, and whatever that releases must be drawn in the
// output diagram too. Without `|`, the clock runs to the last tick of the
// longer diagram and the policy must be quiet by then.

import PaceCore
import Testing

/// The length of one tick when a test does not choose one.
public let marbleTick: Nanoseconds = 10_000_000

extension Int {
    /// This many default-length marble ticks, as a duration.
    public var ticks: Nanoseconds { Nanoseconds(self) * marbleTick }
}

/// How marble events are assigned keys.
public enum MarbleKeys {
    /// One policy state for all events (no `--key-field`).
    case unkeyed
    /// Keyed; a letter's key is the letter lowercased, so `a` and `A` are two
    /// different lines of key `a`, and `b` belongs to another key.
    case caseFolded
    /// Keyed; each string lists the characters of one key, which is named by
    /// that string. Characters listed nowhere share the empty key.
    case groups([String])

    var isKeyed: Bool {
        switch self {
        case .unkeyed: return false
        case .caseFolded, .groups: return true
        }
    }

    func key(of event: Character) -> String {
        switch self {
        case .unkeyed: return ""
        case .caseFolded: return event.lowercased()
        case let .groups(groups): return groups.first { $0.contains(event) } ?? ""
        }
    }
}

/// The letter `--marbles` draws for a key's `k`-th event (from 0).
func marbleLetter(_ k: Int) -> Character {
    k < 26 ? Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(k))) : "o"
}

/// A parsed diagram row: the events (or emissions) at each tick that has any.
public struct MarbleDiagram: Equatable {
    /// What a row draws: the stream into the policy, or what comes out.
    public enum Role {
        case input, output
    }

    /// What one tick holds.
    public enum Marks: Equatable {
        /// Events or emissions named by their letters, in order.
        case named([Character])
        /// An output row's `2`-`9`: that many emissions, which ones not drawn.
        case counted(Int)
    }

    public struct Step: Equatable {
        public var tick: Int
        public var marks: Marks

        public init(tick: Int, _ marks: Marks) {
            self.tick = tick
            self.marks = marks
        }
    }

    public private(set) var steps: [Step] = []
    /// Number of ticks drawn, `|` included.
    public private(set) var length = 0
    /// The tick of `|`, if drawn.
    public private(set) var end: Int?

    public enum ParseError: Error, CustomStringConvertible {
        case unexpected(Character, column: Int, in: String)
        case unclosedGroup(in: String)
        case emptyGroup(column: Int, in: String)
        case endNotLast(in: String)
        case endInOutput(in: String)
        case lostCount(column: Int, in: String)
        case notARow(String)
        case leftOut(String)
        case badRows(String)

        public var description: String {
            switch self {
            case let .unexpected(c, column, text): return "marble diagram \"\(text)\": unexpected '\(c)' at column \(column)"
            case let .unclosedGroup(text): return "marble diagram \"\(text)\": '[' without ']'"
            case let .emptyGroup(column, text): return "marble diagram \"\(text)\": empty group at column \(column)"
            case let .endNotLast(text): return "marble diagram \"\(text)\": '|' must be the last tick"
            case let .endInOutput(text): return "marble diagram \"\(text)\": an output diagram has no '|'"
            case let .lostCount(column, text):
                return "marble diagram \"\(text)\": '*' at column \(column) is 10 or more in one tick, and how many is "
                    + "lost: nothing can replay it (draw the run wider, or a shorter run)"
            case let .notARow(line): return "marble drawing: \"\(line)\" is not an 'in' or 'out' row"
            case let .leftOut(line): return "marble drawing: \"\(line)\": the drawing leaves part of the run out, so it cannot be replayed"
            case let .badRows(why): return "marble drawing: \(why)"
            }
        }
    }

    static func isEvent(_ c: Character) -> Bool { c.isASCII && c.isLetter }

    public init(parsing text: String, role: Role) throws(ParseError) {
        let chars = Array(text)
        var i = 0
        var tick = 0
        // Events drawn so far (input rows), which names what a count stands for.
        var events = 0
        while i < chars.count {
            let c = chars[i]
            if c == " " { i += 1; continue }
            if end != nil { throw .endNotLast(in: text) }
            switch c {
            case "-":
                break
            case "|":
                guard role == .input else { throw .endInOutput(in: text) }
                end = tick
            case "[":
                var group: [Character] = []
                var j = i + 1
                while j < chars.count, chars[j] != "]" {
                    guard Self.isEvent(chars[j]) else { throw .unexpected(chars[j], column: j + 1, in: text) }
                    group.append(chars[j])
                    j += 1
                }
                guard j < chars.count else { throw .unclosedGroup(in: text) }
                guard !group.isEmpty else { throw .emptyGroup(column: i + 1, in: text) }
                steps.append(Step(tick: tick, .named(group)))
                events += group.count
                i = j
            case "2"..."9":
                let count = Int(String(c))!
                switch role {
                case .input: steps.append(Step(tick: tick, .named((events..<events + count).map(marbleLetter))))
                case .output: steps.append(Step(tick: tick, .counted(count)))
                }
                events += count
            case "*":
                throw .lostCount(column: i + 1, in: text)
            default:
                guard Self.isEvent(c) else { throw .unexpected(c, column: i + 1, in: text) }
                steps.append(Step(tick: tick, .named([c])))
                events += 1
            }
            tick += 1
            i += 1
        }
        length = tick
    }

    /// The emissions an output row draws, as a RecordingSink would record
    /// them; a nil line is one a count stands for (any line matches).
    public func expected(tick: Nanoseconds) -> [(time: Instant, line: String?)] {
        steps.flatMap { step -> [(time: Instant, line: String?)] in
            let time = Nanoseconds(step.tick) * tick
            switch step.marks {
            case let .named(letters): return letters.map { (time, String($0)) }
            case let .counted(n): return Array(repeating: (time, nil), count: n)
            }
        }
    }

    /// Whether `actual` is exactly what this output row draws.
    func matches(_ actual: [Emission], tick: Nanoseconds) -> Bool {
        let expected = expected(tick: tick)
        guard expected.count == actual.count else { return false }
        return zip(expected, actual).allSatisfy { e, a in
            e.time == a.time && (e.line.map { Array($0.utf8) == a.line } ?? true)
        }
    }
}

// MARK: - Running a diagram

/// Feeds `input` to `policy` on a TestClock and expects exactly the emissions
/// drawn in `output`; records one issue showing both diagrams if not.
/// Returns the clock afterwards, for extra checks (key counts, stats).
@discardableResult
public func expectMarbles<P: Policy>(
    _ policy: P,
    keys: MarbleKeys = .unkeyed,
    tick: Nanoseconds = marbleTick,
    input: String,
    output: String,
    sourceLocation: SourceLocation = #_sourceLocation
) -> TestClock<P> where P.Payload == EventNumber {
    var clock = TestClock(policy: policy, keyed: keys.isKeyed)
    let inputDiagram: MarbleDiagram
    let outputDiagram: MarbleDiagram
    do {
        inputDiagram = try MarbleDiagram(parsing: input, role: .input)
        outputDiagram = try MarbleDiagram(parsing: output, role: .output)
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
        return clock
    }

    for step in inputDiagram.steps {
        clock.advance(to: Nanoseconds(step.tick) * tick)
        for event in step.letters { clock.send(String(event), key: keys.key(of: event)) }
    }
    var problems: [String] = []
    if let end = inputDiagram.end {
        clock.advance(to: Nanoseconds(end) * tick)
        clock.finish()
    } else {
        let last = Nanoseconds(max(inputDiagram.length, outputDiagram.length) - 1) * tick
        if last > clock.now { clock.advance(to: last) }
        if let due = clock.scheduler.nextDeadline {
            problems.append("a timer is still pending at the last tick (due at \(describe(due, tick: tick))): end the input with '|' or draw more ticks")
        }
    }

    let actual = clock.emissions
    if !outputDiagram.matches(actual, tick: tick) {
        problems.insert("emissions differ", at: 0)
    }
    if !problems.isEmpty {
        let picture = render(input: inputDiagram, expected: outputDiagram, actual: actual, tick: tick)
        Issue.record(Comment(rawValue: (problems + [picture]).joined(separator: "\n")), sourceLocation: sourceLocation)
    }
    return clock
}

/// Replays what `pace --marbles` drew (pasted as it is, header and legend
/// included, or just its rows) through `policy`, one column a tick, and
/// expects each key's `out` row; records one issue showing the expected and
/// the actual rows if not. A run whose events fall between columns is drawn
/// with them moved onto one, so pick `COLUMNS` to make a column one tick.
/// Emissions of different keys at the same tick may come in any order.
@discardableResult
public func expectMarbles<P: Policy>(
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
        clock.advance(to: Nanoseconds(step.tick) * tick)
        for letter in step.letters { clock.send(step.row.line(letter), key: step.row.key ?? "") }
    }
    let end = rows.map { $0.input.end ?? $0.input.length }.max() ?? 0
    clock.advance(to: Nanoseconds(end) * tick)
    clock.finish()

    var matched = 0
    var report: [(label: String, expected: MarbleDiagram, actual: [Emission])] = []
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

extension MarbleDiagram.Step {
    /// The events of an input step (input rows name every event).
    var letters: [Character] {
        switch marks {
        case let .named(letters): return letters
        case .counted: preconditionFailure("MarbleDiagram: an input row has no unnamed events")
        }
    }
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
    func letter(of emission: Emission) -> Emission? {
        let text = String(decoding: emission.line, as: UTF8.self)
        guard let key else { return emission }
        // The key, a space and one letter (a key may hold spaces itself).
        guard text.count == key.count + 2, text.hasPrefix(key + " ") else { return nil }
        return Emission(time: emission.time, String(text.suffix(1)))
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

private func describe(_ time: Instant, tick: Nanoseconds) -> String {
    time % tick == 0 ? "tick \(time / tick)" : "\(time) ns, between ticks"
}

/// The tick an emission falls in (the one before, between ticks), and
/// whether it falls exactly on it.
private func tickOf(_ time: Instant, tick: Nanoseconds) -> (Int, onGrid: Bool) {
    let (q, r) = time.quotientAndRemainder(dividingBy: tick)
    return (Int(r < 0 ? q - 1 : q), r == 0)
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

private func drawing(_ emissions: [Emission], tick: Nanoseconds) -> String {
    var perTick: [Int: [Emission]] = [:]
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

private func cell(count: Int) -> Character { count <= 9 ? Character(String(count)) : "*" }

extension String {
    fileprivate func replacingTrailingIdle() -> String {
        String(reversed().drop { $0 == "-" }.reversed())
    }
}

/// The three diagrams one above the other, columns aligned tick by tick, and
/// the raw emissions (an emission between ticks is drawn at the tick before).
private func render(input: MarbleDiagram, expected: MarbleDiagram, actual: [Emission], tick: Nanoseconds) -> String {
    var actualSteps: [Int: [Character]] = [:]
    var offGrid = false
    for emission in actual {
        let (at, onGrid) = tickOf(emission.time, tick: tick)
        if !onGrid { offGrid = true }
        let text = String(decoding: emission.line, as: UTF8.self)
        actualSteps[at, default: []].append(contentsOf: text.count == 1 ? Array(text) : ["?"])
    }
    let ticks = max(input.length, expected.length, (actualSteps.keys.max() ?? -1) + 1)

    func cells(_ steps: [Int: String], end: Int? = nil) -> [String] {
        (0..<ticks).map { t in
            if t == end { return "|" }
            if let end, t > end { return " " }
            return steps[t] ?? "-"
        }
    }
    func text(_ chars: [Character]) -> String { chars.count == 1 ? String(chars) : "[" + String(chars) + "]" }
    func byTick(_ d: MarbleDiagram) -> [Int: String] {
        Dictionary(uniqueKeysWithValues: d.steps.map { step in
            switch step.marks {
            case let .named(letters): return (step.tick, text(letters))
            case let .counted(n): return (step.tick, String(n))
            }
        })
    }
    let rows = [
        ("   input", cells(byTick(input), end: input.end)),
        ("expected", cells(byTick(expected))),
        ("  actual", cells(actualSteps.mapValues(text))),
    ]
    let widths = (0..<ticks).map { t in rows.map { $0.1[t].count }.max()! }
    var lines = rows.map { name, row in
        name + ": " + zip(row, widths).map { cell, width in
            cell + String(repeating: " ", count: width - cell.count)
        }.joined()
    }
    let tickText = tick % 1_000_000 == 0 ? "\(tick / 1_000_000) ms" : "\(tick) ns"
    lines.append("(one tick = \(tickText))")
    let expectedText = expected.expected(tick: tick).map { "\($0.line ?? "any")@\($0.time)" }.joined(separator: ", ")
    lines.append("expected emissions: [\(expectedText)]")
    lines.append("  actual emissions: \(actual)" + (offGrid ? " (some between ticks)" : ""))
    return lines.joined(separator: "\n")
}
