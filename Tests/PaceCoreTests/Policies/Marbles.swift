// A tiny marble notation for policy tests, after swift-async-algorithms'
// validation diagrams: a test reads as the input stream drawn above the output
// it must produce, instead of as a table of nanoseconds.
//
//     expectMarbles(Debounce(window: 3.ticks),
//                   input:  "a--b|",
//                   output: "---a--b")
//
// One character is one tick (10 ms unless the test picks another length):
// `-` is an idle tick, a letter or digit is an event whose line is that
// character, `[ab]` is several events at the same instant (one tick, in that
// input order), `|` (input only) is the end of input. Spaces are ignored, so
// diagrams can be aligned by hand.
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
let marbleTick: Nanoseconds = 10_000_000

extension Int {
    /// This many default-length marble ticks, as a duration.
    var ticks: Nanoseconds { Nanoseconds(self) * marbleTick }
}

/// How marble events are assigned keys.
enum MarbleKeys {
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

/// A parsed diagram: the events (or emissions) at each tick that has any.
struct MarbleDiagram: Equatable {
    struct Step: Equatable {
        var tick: Int
        var characters: [Character]
    }

    var steps: [Step] = []
    /// Number of ticks drawn, `|` included.
    var length = 0
    /// The tick of `|`, if drawn.
    var end: Int?

    enum ParseError: Error, CustomStringConvertible {
        case unexpected(Character, column: Int, in: String)
        case unclosedGroup(in: String)
        case emptyGroup(column: Int, in: String)
        case endNotLast(in: String)
        case endInOutput(in: String)

        var description: String {
            switch self {
            case let .unexpected(c, column, text): return "marble diagram \"\(text)\": unexpected '\(c)' at column \(column)"
            case let .unclosedGroup(text): return "marble diagram \"\(text)\": '[' without ']'"
            case let .emptyGroup(column, text): return "marble diagram \"\(text)\": empty group at column \(column)"
            case let .endNotLast(text): return "marble diagram \"\(text)\": '|' must be the last tick"
            case let .endInOutput(text): return "marble diagram \"\(text)\": an output diagram has no '|'"
            }
        }
    }

    static func isEvent(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber) }

    init(parsing text: String, allowEnd: Bool) throws(ParseError) {
        let chars = Array(text)
        var i = 0
        var tick = 0
        while i < chars.count {
            let c = chars[i]
            if c == " " { i += 1; continue }
            if end != nil { throw .endNotLast(in: text) }
            switch c {
            case "-":
                break
            case "|":
                guard allowEnd else { throw .endInOutput(in: text) }
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
                steps.append(Step(tick: tick, characters: group))
                i = j
            default:
                guard Self.isEvent(c) else { throw .unexpected(c, column: i + 1, in: text) }
                steps.append(Step(tick: tick, characters: [c]))
            }
            tick += 1
            i += 1
        }
        length = tick
    }

    /// The emissions this diagram draws, as a RecordingSink would record them.
    func emissions(tick: Nanoseconds) -> [Emission] {
        steps.flatMap { step in
            step.characters.map { Emission(time: Nanoseconds(step.tick) * tick, String($0)) }
        }
    }
}

// MARK: - Running a diagram

/// Feeds `input` to `policy` on a TestClock and expects exactly the emissions
/// drawn in `output`; records one issue showing both diagrams if not.
/// Returns the clock afterwards, for extra checks (key counts, stats).
@discardableResult
func expectMarbles<P: Policy>(
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
        inputDiagram = try MarbleDiagram(parsing: input, allowEnd: true)
        outputDiagram = try MarbleDiagram(parsing: output, allowEnd: false)
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
        return clock
    }

    for step in inputDiagram.steps {
        clock.advance(to: Nanoseconds(step.tick) * tick)
        for event in step.characters { clock.send(String(event), key: keys.key(of: event)) }
    }
    var problems: [String] = []
    if let end = inputDiagram.end {
        clock.advance(to: Nanoseconds(end) * tick)
        clock.finish()
    } else {
        let last = Nanoseconds(max(inputDiagram.length, outputDiagram.length) - 1) * tick
        if last > clock.now { clock.advance(to: last) }
        if let due = clock.nextDeadline {
            problems.append("a timer is still pending at the last tick (due at \(describe(due, tick: tick))): end the input with '|' or draw more ticks")
        }
    }

    let expected = outputDiagram.emissions(tick: tick)
    let actual = clock.emissions
    if actual != expected {
        problems.insert("emissions differ", at: 0)
    }
    if !problems.isEmpty {
        let picture = render(input: inputDiagram, expected: outputDiagram, actual: actual, tick: tick)
        Issue.record(Comment(rawValue: (problems + [picture]).joined(separator: "\n")), sourceLocation: sourceLocation)
    }
    return clock
}

private func describe(_ time: Instant, tick: Nanoseconds) -> String {
    time % tick == 0 ? "tick \(time / tick)" : "\(time) ns, between ticks"
}

/// The three diagrams one above the other, columns aligned tick by tick, and
/// the raw emissions (an emission between ticks is drawn at the tick before).
private func render(input: MarbleDiagram, expected: MarbleDiagram, actual: [Emission], tick: Nanoseconds) -> String {
    var actualSteps: [Int: [Character]] = [:]
    var offGrid = false
    for emission in actual {
        let (q, r) = emission.time.quotientAndRemainder(dividingBy: tick)
        let at = Int(r < 0 ? q - 1 : q)
        if r != 0 { offGrid = true }
        let text = String(decoding: emission.line, as: UTF8.self)
        actualSteps[at, default: []].append(contentsOf: text.count == 1 ? Array(text) : ["?"])
    }
    let ticks = max(input.length, expected.length, (actualSteps.keys.max() ?? -1) + 1)

    func cells(_ steps: [Int: [Character]], end: Int? = nil) -> [String] {
        (0..<ticks).map { t in
            if t == end { return "|" }
            if let end, t > end { return " " }
            guard let chars = steps[t] else { return "-" }
            return chars.count == 1 ? String(chars) : "[" + String(chars) + "]"
        }
    }
    func byTick(_ d: MarbleDiagram) -> [Int: [Character]] {
        Dictionary(uniqueKeysWithValues: d.steps.map { ($0.tick, $0.characters) })
    }
    let rows = [
        ("   input", cells(byTick(input), end: input.end)),
        ("expected", cells(byTick(expected))),
        ("  actual", cells(actualSteps)),
    ]
    let widths = (0..<ticks).map { t in rows.map { $0.1[t].count }.max()! }
    var lines = rows.map { name, row in
        name + ": " + zip(row, widths).map { cell, width in
            cell + String(repeating: " ", count: width - cell.count)
        }.joined()
    }
    let tickText = tick % 1_000_000 == 0 ? "\(tick / 1_000_000) ms" : "\(tick) ns"
    lines.append("(one tick = \(tickText))")
    lines.append("expected emissions: \(expected.emissions(tick: tick))")
    lines.append("  actual emissions: \(actual)" + (offGrid ? " (some between ticks)" : ""))
    return lines.joined(separator: "\n")
}

// MARK: - The helper's own tests

/// The helper must be able to fail: a test that cannot fail proves nothing.
@Suite struct MarbleNotationTests {
    @Test func parsesTicksGroupsAndEnd() throws {
        let d = try MarbleDiagram(parsing: "a-[bc] -d|", allowEnd: true)
        #expect(d.steps == [.init(tick: 0, characters: ["a"]), .init(tick: 2, characters: ["b", "c"]), .init(tick: 4, characters: ["d"])])
        #expect(d.end == 5)
        #expect(d.length == 6)
        #expect(d.emissions(tick: 7) == [Emission(time: 0, "a"), Emission(time: 14, "b"), Emission(time: 14, "c"), Emission(time: 28, "d")])
    }

    @Test func rejectsMalformedDiagrams() {
        #expect(throws: MarbleDiagram.ParseError.self) { try MarbleDiagram(parsing: "a|-", allowEnd: true) }
        #expect(throws: MarbleDiagram.ParseError.self) { try MarbleDiagram(parsing: "a-|", allowEnd: false) }
        #expect(throws: MarbleDiagram.ParseError.self) { try MarbleDiagram(parsing: "a[b", allowEnd: true) }
        #expect(throws: MarbleDiagram.ParseError.self) { try MarbleDiagram(parsing: "a[]", allowEnd: true) }
        #expect(throws: MarbleDiagram.ParseError.self) { try MarbleDiagram(parsing: "a.b", allowEnd: true) }
    }

    @Test func anUnassertedEmissionFails() {
        withKnownIssue {
            expectMarbles(ThrottleFirst(window: 3.ticks), input: "a--b|", output: "a")
        }
    }

    @Test func anEmissionAtTheWrongTickFails() {
        withKnownIssue {
            expectMarbles(Debounce(window: 3.ticks), input: "a|", output: "--a")
        }
    }

    @Test func aMissingEmissionFails() {
        withKnownIssue {
            expectMarbles(Leading(window: 3.ticks), input: "a|", output: "a--b")
        }
    }

    @Test func sameInstantOrderMatters() {
        withKnownIssue {
            expectMarbles(ThrottleFirst(window: 3.ticks), keys: .caseFolded, input: "[ab]|", output: "[ba]")
        }
    }

    @Test func aTimerStillPendingAtTheEndFails() {
        // Without `|`, a debounce whose deadline lies past the drawn ticks is
        // not quiet, even though no emission is missing from the diagram.
        withKnownIssue {
            expectMarbles(Debounce(window: 3.ticks), input: "a-", output: "")
        }
    }

    @Test func tickLengthIsTheTestsChoice() {
        let clock = expectMarbles(Debounce(window: 2_000), tick: 1_000, input: "a|", output: "--a")
        #expect(clock.emissions == [Emission(time: 2_000, "a")])
    }
}
