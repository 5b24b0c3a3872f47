// `--marbles`: after a replay, the run as marble diagrams, one `in` row and
// one `out` row per key, time running left to right from the first event to
// the last event or emission, scaled onto the terminal's width.
//
//   pace: marbles: 0.000000 s to 1.100000 s, 0.015068 s per column
//     in  a-----b------c--------------------------------d------e
//     out ---------------------------------c---------------------------------------e
//
// The k-th event of a key is the k-th letter (`o` after `z`); an emitted event
// shows in `out` with its letter, so which line survived can be read off. A
// column holding several events shows their count (`2`-`9`, `*` for more).
//
// The recording keeps every event in memory, so it stops after the first
// `eventLimit` events (their emissions are still recorded) and the diagram
// says so; it shows at most `keyLimit` keys.

package struct MarbleRecording: Equatable, Sendable {
    package static let eventLimit = 10_000
    package static let keyLimit = 20

    struct Mark: Equatable, Sendable {
        var time: Instant
        var key: Int
        var letter: UInt8
    }

    let keyed: Bool
    private(set) var keys: [[UInt8]] = []
    private var keyIndex: [[UInt8]: Int] = [:]
    private var perKey: [Int] = []
    private(set) var inputs: [Mark] = []
    private(set) var outputs: [Mark] = []
    /// The letter of each recorded event, by number.
    private var letters: [EventNumber: UInt8] = [:]
    /// Events that came after the limit (not recorded).
    private(set) var unrecorded: Int64 = 0
    /// `--batch`: a batch went out (the legend says how batches show).
    private(set) var hasBatches = false

    /// The keys as labels show them, when they differ from the key bytes
    /// (a composite key's values joined by one space).
    private var keyLabels: [[UInt8]]?

    package init(keyed: Bool) { self.keyed = keyed }

    /// The recording with its keys labelled as `shown` says.
    func labelled(_ shown: ([UInt8]) -> [UInt8]) -> MarbleRecording {
        var copy = self
        copy.keyLabels = keys.map(shown)
        return copy
    }

    mutating func entered(_ event: EventNumber, key: UnsafeRawBufferPointer, at time: Instant) {
        guard inputs.count < Self.eventLimit else {
            unrecorded += 1
            return
        }
        let name = keyed ? Array(key) : []
        let k: Int
        if let known = keyIndex[name] {
            k = known
        } else {
            k = keys.count
            keys.append(name)
            keyIndex[name] = k
            perKey.append(0)
        }
        let n = perKey[k]
        perKey[k] += 1
        let letter = n < 26 ? UInt8(ascii: "a") + UInt8(n) : UInt8(ascii: "o")
        letters[event] = letter
        inputs.append(Mark(time: time, key: k, letter: letter))
    }

    mutating func batched() { hasBatches = true }

    mutating func emitted(_ event: EventNumber, key: UnsafeRawBufferPointer, at time: Instant) {
        guard let letter = letters.removeValue(forKey: event) else { return }
        let k = keyIndex[keyed ? Array(key) : []]!
        outputs.append(Mark(time: time, key: k, letter: letter))
    }

    /// `--resolve-after`: a key's episode resolved at `time`, drawn `!`.
    mutating func resolved(key: UnsafeRawBufferPointer, at time: Instant) {
        guard let k = keyIndex[keyed ? Array(key) : []] else { return }
        outputs.append(Mark(time: time, key: k, letter: Self.resolvedGlyph))
    }

    static var resolvedGlyph: UInt8 { UInt8(ascii: "!") }

    /// Nanoseconds from `start` to `end` (not before it).
    private static func distance(from start: Instant, to end: Instant) -> UInt64 {
        UInt64(bitPattern: end.nanoseconds &- start.nanoseconds)
    }

    /// The diagram, `width` columns wide (labels included).
    package func render(width: Int) -> String {
        guard let first = inputs.first else { return "pace: marbles: no events\n" }
        let start = first.time
        let end = max(inputs.last!.time, outputs.map(\.time).max() ?? start)
        let shownKeys = min(keys.count, Self.keyLimit)
        let labels: [String] = (0..<shownKeys).map { keyed ? displayKey(keyLabels?[$0] ?? keys[$0]) + " " : "" }
        let labelWidth = (labels.map(\.count).max() ?? 0) + 3  // "out"
        let columns = max(10, width - 2 - labelWidth - 1)
        // Unsigned: from 1677 to 2262 is more nanoseconds than Int64 holds.
        let span = Self.distance(from: start, to: end)

        func column(_ t: Instant) -> Int {
            guard span > 0, t > start else { return 0 }
            guard t < end else { return columns - 1 }
            let product = Self.distance(from: start, to: t).multipliedFullWidth(by: UInt64(columns - 1))
            return Int(span.dividingFullWidth(product).quotient)
        }
        func row(_ marks: [Mark], key: Int) -> String {
            var counts = [Int](repeating: 0, count: columns)
            var letters = [UInt8](repeating: UInt8(ascii: "-"), count: columns)
            for mark in marks where mark.key == key {
                let c = column(mark.time)
                counts[c] += 1
                letters[c] = mark.letter
            }
            var cells = [UInt8]()
            cells.reserveCapacity(columns)
            for c in 0..<columns {
                switch counts[c] {
                case 0: cells.append(UInt8(ascii: "-"))
                case 1: cells.append(letters[c])
                case 2...9: cells.append(UInt8(ascii: "0") + UInt8(counts[c]))
                default: cells.append(UInt8(ascii: "*"))
                }
            }
            // Trailing idle columns say nothing.
            while cells.last == UInt8(ascii: "-") { cells.removeLast() }
            return String(decoding: cells, as: UTF8.self)
        }
        func pad(_ label: String) -> String {
            label + String(repeating: " ", count: labelWidth - label.count)
        }

        // At least 10 columns: a span over 9 fits in Int64.
        let perColumn = Int64(span / UInt64(columns - 1))
        var text = "pace: marbles: \(secondsString(start)) s to \(secondsString(end)) s, \(secondsString(Instant(nanoseconds: perColumn))) s per column\n"
        func line(_ label: String, _ cells: String) -> String {
            cells.isEmpty ? "  " + label + "\n" : "  " + pad(label) + " " + cells + "\n"
        }
        for k in 0..<shownKeys {
            text += line(labels[k] + "in", row(inputs, key: k))
            text += line(labels[k] + "out", row(outputs, key: k))
        }
        text += "  a-z: a key's events in order (o after the 26th); in out, the ones emitted\n"
        text += "  2-9: that many in one column, *: 10 or more; -: none\n"
        if hasBatches { text += "  a batch (--batch) is its lines in its one column: a count, or a letter for one\n" }
        if outputs.contains(where: { $0.letter == Self.resolvedGlyph }) {
            text += "  !: a key's episode resolved (--resolve-after)\n"
        }
        if keys.count > shownKeys {
            text += "  (the first \(shownKeys) of \(keys.count) keys shown)\n"
        }
        if unrecorded > 0 {
            text += "  (the first \(Self.eventLimit) events only; \(unrecorded) later ones not shown)\n"
        }
        return text
    }
}
