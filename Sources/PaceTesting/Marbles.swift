// Running a one-row marble test: feed the input diagram to a policy on a
// TestClock, compare what comes out with the output diagram, and on failure
// show the three one above the other. (The notation: MarbleDiagram.swift.)

import PaceCore
import Testing

/// Feeds `input` to `policy` on a TestClock and expects exactly the emissions
/// drawn in `output`; records one issue showing both diagrams if not.
/// Returns the clock afterwards, for extra checks (key counts, stats).
@discardableResult
package func expectMarbles<P: Policy>(
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
        clock.advance(to: instant(atTick: step.tick, tick))
        for event in step.letters { clock.send(String(event), key: keys.key(of: event)) }
    }
    var problems: [String] = []
    if let end = inputDiagram.end {
        clock.advance(to: instant(atTick: end, tick))
        clock.finish()
    } else {
        let last = instant(atTick: max(inputDiagram.length, outputDiagram.length) - 1, tick)
        if last > clock.now { clock.advance(to: last) }
        if let due = clock.nextDeadline {
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

private func describe(_ time: Instant, tick: Nanoseconds) -> String {
    time.nanoseconds % tick.count == 0 ? "tick \(time.nanoseconds / tick.count)" : "\(time) ns, between ticks"
}

/// The three diagrams one above the other, columns aligned tick by tick, and
/// the raw emissions (an emission between ticks is drawn at the tick before).
private func render(input: MarbleDiagram, expected: MarbleDiagram, actual: [Emitted], tick: Nanoseconds) -> String {
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
    let tickText = tick.count % 1_000_000 == 0 ? "\(tick.count / 1_000_000) ms" : "\(tick) ns"
    lines.append("(one tick = \(tickText))")
    let expectedText = expected.expected(tick: tick).map { "\($0.line ?? "any")@\($0.time)" }.joined(separator: ", ")
    lines.append("expected emissions: [\(expectedText)]")
    lines.append("  actual emissions: \(actual)" + (offGrid ? " (some between ticks)" : ""))
    return lines.joined(separator: "\n")
}
