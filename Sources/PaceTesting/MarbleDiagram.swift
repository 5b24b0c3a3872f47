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

/// The length of one tick when a test does not choose one.
package let marbleTick: Nanoseconds = 10_000_000

extension Int {
    /// This many default-length marble ticks, as a duration.
    package var ticks: Nanoseconds { Int64(self) * marbleTick }
}

/// How marble events are assigned keys.
package enum MarbleKeys {
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
package struct MarbleDiagram: Equatable {
    /// What a row draws: the stream into the policy, or what comes out.
    package enum Role {
        case input, output
    }

    /// What one tick holds.
    package enum Marks: Equatable {
        /// Events or emissions named by their letters, in order.
        case named([Character])
        /// An output row's `2`-`9`: that many emissions, which ones not drawn.
        case counted(Int)
    }

    package struct Step: Equatable {
        package var tick: Int
        package var marks: Marks

        package init(tick: Int, _ marks: Marks) {
            self.tick = tick
            self.marks = marks
        }
    }

    package private(set) var steps: [Step] = []
    /// Number of ticks drawn, `|` included.
    package private(set) var length = 0
    /// The tick of `|`, if drawn.
    package private(set) var end: Int?

    package enum ParseError: Error, CustomStringConvertible {
        case unexpected(Character, column: Int, in: String)
        case unclosedGroup(in: String)
        case emptyGroup(column: Int, in: String)
        case endNotLast(in: String)
        case endInOutput(in: String)
        case lostCount(column: Int, in: String)
        case notARow(String)
        case leftOut(String)
        case badRows(String)

        package var description: String {
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

    package init(parsing text: String, role: Role) throws(ParseError) {
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
    package func expected(tick: Nanoseconds) -> [(time: Instant, line: String?)] {
        steps.flatMap { step -> [(time: Instant, line: String?)] in
            let time = instant(atTick: step.tick, tick)
            switch step.marks {
            case let .named(letters): return letters.map { (time, String($0)) }
            case let .counted(n): return Array(repeating: (time, nil), count: n)
            }
        }
    }

    /// Whether `actual` is exactly what this output row draws.
    func matches(_ actual: [Emitted], tick: Nanoseconds) -> Bool {
        let expected = expected(tick: tick)
        guard expected.count == actual.count else { return false }
        return zip(expected, actual).allSatisfy { e, a in
            e.time == a.time && (e.line.map { Array($0.utf8) == a.line } ?? true)
        }
    }
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

/// The instant of tick `n`, ticks of `tick` from the origin.
package func instant(atTick n: Int, _ tick: Nanoseconds) -> Instant { Instant(nanoseconds: Int64(n) * tick.count) }

/// The tick an emission falls in (the one before, between ticks), and
/// whether it falls exactly on it.
func tickOf(_ time: Instant, tick: Nanoseconds) -> (Int, onGrid: Bool) {
    let (q, r) = time.nanoseconds.quotientAndRemainder(dividingBy: tick.count)
    return (Int(r < 0 ? q - 1 : q), r == 0)
}

/// How --marbles draws `count` events in one column: `2`-`9`, or `*`.
func cell(count: Int) -> Character { count <= 9 ? Character(String(count)) : "*" }

/// The instant of tick `n` at the default tick length: a moment, where
/// `n.ticks` is a length of time.
package func tick(_ n: Int) -> Instant { instant(atTick: n, marbleTick) }
