// Seeing why a line vanished: the observer behind `--trace`, `--stats`' table
// of keys and `--marbles`. The scheduler calls it as fates become certain;
// it turns them into trace lines, per-key counters and a marble recording.
//
// It is used only when one of those flags is given: otherwise the scheduler
// runs with `NoObserver` and none of this code (nor its memory) is involved.

import Glibc

/// Per-key counters for `--stats` with `--key-field`.
public struct KeyCount: Equatable, Sendable {
    public var key: [UInt8]
    public var eventsIn: Int64
    public var emitted: Int64
    public var dropped: Int64 { eventsIn - emitted }

    public init(key: [UInt8], eventsIn: Int64, emitted: Int64) {
        self.key = key
        self.eventsIn = eventsIn
        self.emitted = emitted
    }
}

public struct RunInsight: SchedulerObserver {
    public static var isActive: Bool { true }

    /// `--trace`: the text not yet written, and where it goes.
    private var traceText: [UInt8] = []
    private let trace: Bool
    private let traceFD: Int32
    /// `--key-field`, to find an emitted line's key again, and to show keys.
    private let keys: KeyExtractor
    /// `--stats` with `--key-field`: counters per key ever seen.
    private var keyCounts: [[UInt8]: KeyCount]?
    /// `--marbles`: the recording.
    private var recording: MarbleRecording?
    /// `--marbles`' recording, its keys shown as people read them.
    public var marbles: MarbleRecording? { recording?.labelled(keys.shown) }
    /// `--limit N/D`: why a line is dropped (`over N per D`), said with the
    /// instant of the next token instead of a window's end.
    private let overLimit: String?

    /// - Parameters:
    ///   - trace: write each line's fate to `traceFD`.
    ///   - keyField, delimiter: `--key-field` (nil: unkeyed) and `--delimiter`.
    ///   - countKeys: keep per-key counters (`--stats` with `--key-field`).
    ///   - marbles: record events and emissions for `--marbles`.
    ///   - limit: `--limit`'s bucket, to say why a line is dropped.
    public init(trace: Bool, traceFD: Int32, keyField: FieldSelector?, delimiter: UInt8? = nil,
                countKeys: Bool, marbles: Bool, limit: CellRate? = nil) {
        self.trace = trace
        overLimit = limit.map { "over \($0.count) per \(durationText($0.period))" }
        self.traceFD = traceFD
        keys = KeyExtractor(keyField, delimiter: delimiter)
        if countKeys && keyField != nil { keyCounts = [:] }
        if marbles { recording = MarbleRecording(keyed: keyField != nil) }
    }

    /// The observer the configuration asks for, if any.
    public static func wanted(by configuration: Configuration, traceFD: Int32) -> RunInsight? {
        let countKeys = configuration.stats && configuration.keyField != nil
        guard configuration.trace || configuration.marbles || countKeys else { return nil }
        return RunInsight(trace: configuration.trace, traceFD: traceFD, keyField: configuration.keyField,
                          delimiter: configuration.delimiter,
                          countKeys: countKeys, marbles: configuration.marbles,
                          limit: configuration.policy == .limit ? configuration.cellRate : nil)
    }

    // MARK: - SchedulerObserver

    public mutating func entered(_ event: EventNumber, line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                                 at time: Instant) {
        if keyCounts != nil {
            keyCounts![Array(key), default: KeyCount(key: Array(key), eventsIn: 0, emitted: 0)].eventsIn += 1
        }
        recording?.entered(event, key: key, at: time)
    }

    public mutating func emitted(_ event: EventNumber, line: UnsafeRawBufferPointer, at time: Instant, atEnd: Bool) {
        if trace {
            let what = atEnd ? "still pending at end of input, emitted at " : "emitted at "
            say(event, what + secondsString(time))
        }
        if keyCounts != nil || recording != nil {
            // The key as the runtime took it (line 1's byte-order mark aside).
            let key = keys.key(of: event == 1 ? withoutByteOrderMark(line) : line)
            if keyCounts != nil { keyCounts![Array(key)]?.emitted += 1 }
            recording?.emitted(event, key: key, at: time)
        }
    }

    public mutating func replaced(_ event: EventNumber, by later: EventNumber) {
        if trace { say(event, "replaced by line \(later)") }
    }

    public mutating func dropped(_ event: EventNumber, windowEnd: Instant?) {
        guard trace else { return }
        if let overLimit, let windowEnd {
            say(event, "dropped: \(overLimit), next token at " + secondsString(windowEnd))
        } else if let windowEnd {
            say(event, "dropped inside the window ending at " + secondsString(windowEnd))
        } else {
            say(event, "dropped")
        }
    }

    public mutating func bypassed(_ line: EventNumber, _ why: Bypass, at time: Instant) {
        guard trace else { return }
        switch why {
        case .empty: say(line, "empty, skipped")
        case .badTimeSkipped: say(line, "bad timestamp, skipped")
        case .badTimePassed: say(line, "bad timestamp, passed through at " + secondsString(time))
        }
    }

    public mutating func flush() {
        guard !traceText.isEmpty else { return }
        traceText.withUnsafeBytes { try? writeAll(fd: traceFD, $0, target: "stderr") }
        traceText.removeAll(keepingCapacity: true)
    }

    private mutating func say(_ line: EventNumber, _ fate: String) {
        traceText.append(contentsOf: "pace: trace: line \(line): \(fate)\n".utf8)
        if traceText.count >= 64 * 1024 { flush() }
    }

    // MARK: - Results

    /// `--stats`' per-key counters: the `limit` keys with the most events in
    /// (ties by key bytes), or nil when keys are not counted.
    public func topKeys(_ limit: Int = 10) -> [KeyCount]? {
        guard let keyCounts else { return nil }
        let shown = keyCounts.values.map { KeyCount(key: keys.shown($0.key), eventsIn: $0.eventsIn, emitted: $0.emitted) }
        let sorted = shown.sorted {
            $0.eventsIn != $1.eventsIn ? $0.eventsIn > $1.eventsIn : $0.key.lexicographicallyPrecedes($1.key)
        }
        return Array(sorted.prefix(limit))
    }
}

/// `--stats`' table of keys, printed after the summary.
public func keyTableText(_ keys: [KeyCount], distinctKeys: Int64) -> String {
    var text = "pace: stats by key (top \(keys.count) of \(distinctKeys) by events in):\n"
    let names = keys.map { displayKey($0.key) }
    let keyWidth = max(3, names.map(\.count).max() ?? 0)
    let headers = ["in", "emitted", "dropped"]
    let columns = keys.map { [String($0.eventsIn), String($0.emitted), String($0.dropped)] }
    let widths = headers.indices.map { i in max(headers[i].count, columns.map { $0[i].count }.max() ?? 0) }
    func row(_ name: String, _ cells: [String]) -> String {
        var line = "  " + name + String(repeating: " ", count: keyWidth - name.count)
        for (i, cell) in cells.enumerated() {
            line += "  " + String(repeating: " ", count: widths[i] - cell.count) + cell
        }
        return line + "\n"
    }
    text += row("key", headers)
    for (name, cells) in zip(names, columns) { text += row(name, cells) }
    return text
}

/// A duration as a user would type it: the largest unit it is a whole
/// number of (`1m`, `250ms`, `1500ms`, `7ns`).
func durationText(_ ns: Nanoseconds) -> String {
    let units: [(String, Int64)] = [("h", 3_600_000_000_000), ("m", 60_000_000_000), ("s", 1_000_000_000),
                                    ("ms", 1_000_000), ("us", 1_000)]
    for (name, size) in units where ns.count % size == 0 { return "\(ns.count / size)\(name)" }
    return "\(ns)ns"
}

/// A key as shown in tables and marbles: its bytes (invalid UTF-8 replaced),
/// `""` for the empty key, cut at 24 characters.
func displayKey(_ key: [UInt8]) -> String {
    if key.isEmpty { return "\"\"" }
    let text = String(decoding: key, as: UTF8.self)
    return text.count > 24 ? String(text.prefix(23)) + "…" : text
}
