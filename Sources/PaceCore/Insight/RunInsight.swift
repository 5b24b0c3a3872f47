// Seeing why a line vanished: the observer behind `--trace`, `--stats`' table
// of keys and `--marbles`. The scheduler calls it as fates become certain;
// it turns them into trace lines, per-key counters and a marble recording.
//
// It is used only when one of those flags is given: otherwise the scheduler
// holds none (nil), and none of this code (nor its memory) is involved.

/// Per-key counters for `--stats` with `--key-field`.
package struct KeyCount: Equatable, Sendable {
    package var key: [UInt8]
    /// Events in; from the heavy-hitters summary, at most `error` too high.
    package var eventsIn: Int64
    /// Emitted; from the summary, at most `error` too low.
    package var emitted: Int64
    /// 0 when exact; from the summary, how far each number may be off.
    package var error: Int64
    /// Dropped; from the summary, at most `error` too low.
    package var dropped: Int64 { max(0, eventsIn - error - emitted) }

    package init(key: [UInt8], eventsIn: Int64, emitted: Int64, error: Int64 = 0) {
        self.key = key
        self.eventsIn = eventsIn
        self.emitted = emitted
        self.error = error
    }
}

/// The observer behind `--trace`, `--stats`' keys and `--marbles`. A class:
/// the scheduler holds the one reference.
package final class RunInsight: SchedulerObserver {
    package static var isActive: Bool { true }

    /// `--trace`'s writer (shared with `--exec`'s runner), or nil.
    private let trace: TraceWriter?
    /// `--key-field`, to show keys.
    private let keys: KeyExtractor
    /// `--stats` with `--key-field`: counters per key, exact while they fit
    /// a bounded table, then a heavy-hitters summary.
    private var keyCounts: HeavyHitters?
    /// `--stats` with `--key-field`: every key seen, for the distinct-key
    /// count (it grows with the keys ever seen, so only kept when asked for).
    private var seenKeys: DistinctKeys?
    /// `--marbles`: the recording.
    private var recording: MarbleRecording?
    /// `--marbles`' recording, its keys shown as people read them.
    package var marbles: MarbleRecording? { recording?.labelled(keys.shown) }
    /// `--limit N/D`: why a line is dropped (`over N per D`), said with the
    /// instant of the next token instead of a window's end.
    private let overLimit: String?

    /// - Parameters:
    ///   - trace: where each line's fate is written (`--trace`), or nil.
    ///   - keyField, delimiter: `--key-field` (nil: unkeyed) and `--delimiter`.
    ///   - countKeys: keep per-key counters and count distinct keys (`--stats`
    ///     with `--key-field`).
    ///   - marbles: record events and emissions for `--marbles`.
    ///   - limit: `--limit`'s bucket, to say why a line is dropped.
    package init(trace: TraceWriter?, keyField: FieldSelector?, delimiter: UInt8? = nil,
                 countKeys: Bool, marbles: Bool, limit: CellRate? = nil) {
        self.trace = trace
        overLimit = limit.map { "over \($0.count) per \(durationText($0.period))" }
        keys = KeyExtractor(keyField, delimiter: delimiter)
        if countKeys && keyField != nil {
            keyCounts = HeavyHitters()
            seenKeys = DistinctKeys()
        }
        if marbles { recording = MarbleRecording(keyed: keyField != nil) }
    }

    /// An observer that only counts distinct keys (the tests' clock).
    package static var distinctKeys: RunInsight {
        let insight = RunInsight(trace: nil, keyField: nil, countKeys: false, marbles: false)
        insight.seenKeys = DistinctKeys()
        return insight
    }

    /// The observer the configuration asks for, if any.
    package static func wanted(by configuration: Configuration, trace: TraceWriter?) -> RunInsight? {
        let countKeys = configuration.stats && configuration.keyField != nil
        guard trace != nil || configuration.marbles || countKeys else { return nil }
        return RunInsight(trace: trace, keyField: configuration.keyField, delimiter: configuration.delimiter,
                          countKeys: countKeys, marbles: configuration.marbles, limit: configuration.limitRate)
    }

    // MARK: - What the scheduler tells

    /// An event entered its key's policy.
    package func entered(_ event: EventNumber, key: UnsafeRawBufferPointer, at time: Instant) {
        if keyCounts != nil { keyCounts!.entered(key) }
        recording?.entered(event, key: key, at: time)
    }

    /// A key joined the scheduler's key table; true if it is known to be
    /// new to the run (the distinct-key count, while exact).
    package func keyJoined(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Bool {
        seenKeys?.insert(key, hash: hash) ?? false
    }

    /// The distinct-key count when it is an estimate (past DistinctKeys'
    /// limit), else nil (the scheduler's count is exact).
    package var distinctKeysEstimate: Int64? {
        guard seenKeys?.isEstimated == true else { return nil }
        return seenKeys?.count
    }

    /// `--batch`: why the batch whose lines come next goes out.
    private var batchWhy: BatchRelease.Why?

    /// `--batch`: a batch goes out; its lines come next.
    package func batched(_ batch: BatchRelease, first: EventNumber) {
        batchWhy = batch.why
        recording?.batched()
    }

    /// A line was written; `atEnd` when end of input released it.
    package func emitted(_ emission: Emission, atEnd: Bool) {
        if emission.mark == .resolved { return resolved(emission) }
        if trace != nil {
            let what = atEnd ? "still pending at end of input, emitted at " : "emitted at "
            var fate = what + secondsString(emission.time)
            if let batchWhy, emission.batchSize > 0 {
                fate += ", batch of \(emission.batchSize) (\(emission.batchIndex + 1) of \(emission.batchSize)): "
                    + batchWhyText(batchWhy)
            }
            say(emission.number, fate)
        }
        if emission.endsBatch { batchWhy = nil }
        if keyCounts != nil { keyCounts!.emitted(emission.key) }
        recording?.emitted(emission.number, key: emission.key, at: emission.time)
    }

    /// `--exec`: `lines` emitted lines of `key` (as the scheduler keeps it)
    /// never ran; the key table counts them dropped, as `--stats`' totals do.
    package func notRun(_ key: UnsafeRawBufferPointer, lines: Int64) {
        keyCounts?.notRun(key, lines: lines)
    }

    /// Whether `notRun` counts anything (`--stats` with `--key-field`).
    package var countsKeys: Bool { keyCounts != nil }

    /// `--resolve-after`: a key's episode closed with a copy of its last
    /// line, which is no emission of its own (the key table does not count
    /// it; `--marbles` draws it as `!`).
    private func resolved(_ emission: Emission) {
        if trace != nil {
            say(emission.number, "its key's episode resolved at " + secondsString(emission.time) + " (this line again)")
        }
        recording?.resolved(key: emission.key, at: emission.time)
    }

    /// A discarded event was emitted instead, by `--then-every`.
    package func letThrough(_ emission: Emission) {
        if trace != nil { say(emission.number, "let through by --then-every, emitted at " + secondsString(emission.time)) }
        if keyCounts != nil { keyCounts!.emitted(emission.key) }
        recording?.emitted(emission.number, key: emission.key, at: emission.time)
    }

    /// A pending event was replaced by a later one of its key.
    package func replaced(_ event: EventNumber, by later: EventNumber) {
        if trace != nil { say(event, "replaced by line \(later)") }
    }

    /// An incoming event was dropped inside a window ending at `windowEnd`.
    package func dropped(_ event: EventNumber, windowEnd: Instant?) {
        guard trace != nil else { return }
        if let overLimit, let windowEnd {
            say(event, "dropped: \(overLimit), next token at " + secondsString(windowEnd))
        } else if let windowEnd {
            say(event, "dropped inside the window ending at " + secondsString(windowEnd))
        } else {
            say(event, "dropped")
        }
    }

    /// A line that never reached the policy.
    package func bypassed(_ line: EventNumber, _ why: Bypass, at time: Instant) {
        guard trace != nil else { return }
        switch why {
        case .empty: say(line, "empty, skipped")
        case .badTimeSkipped: say(line, "bad timestamp, skipped")
        case .badTimePassed: say(line, "bad timestamp, passed through at " + secondsString(time))
        case .exempt: say(line, "exempt, emitted at " + secondsString(time))
        }
    }

    /// A good moment to write out what was gathered.
    package func flush() { trace?.flush() }

    private func say(_ line: EventNumber, _ fate: String) { trace?.say(line, fate) }

    /// `--trace`'s words for why a batch went out.
    private func batchWhyText(_ why: BatchRelease.Why) -> String {
        switch why {
        case .quiet: return "quiet"
        case .maxWait: return "max-wait"
        case .windowEnd: return "window end"
        case .full: return "full"
        }
    }

    // MARK: - Results

    /// `--stats`' per-key counters: the `limit` keys with the most events in
    /// (ties by key bytes), or nil when keys are not counted.
    package func topKeys(_ limit: Int = 10) -> [KeyCount]? {
        keyCounts?.top(limit).map { count in
            var shown = count
            shown.key = keys.shown(count.key)
            return shown
        }
    }

    package func results(into report: inout RunReport, marblesWidth: Int?) {
        report.topKeys = topKeys()
        report.topKeysEstimated = topKeysEstimated
        if let marblesWidth { report.marbles = marbles?.render(width: marblesWidth) }
    }

    /// The per-key table comes from the heavy-hitters summary, not exact counts.
    package var topKeysEstimated: Bool { keyCounts?.isSummary ?? false }
}

/// `--stats`' table of keys, printed after the summary. `distinctKeys` is
/// shown as counted, or as `about N (±0.8%)` when `distinctEstimated`;
/// `estimated` (the keys did not fit the exact table) adds a `±` column.
package func keyTableText(_ keys: [KeyCount], distinctKeys: Int64, distinctEstimated: Bool = false,
                         estimated: Bool = false) -> String {
    let of = distinctEstimated ? estimateText(distinctKeys) : String(distinctKeys)
    var text = "pace: stats by key (top \(keys.count) of \(of) by events in):\n"
    if estimated {
        text += "pace: more keys than the \(groupedDigits(Int64(HeavyHitters.defaultCapacity))) counted exactly: "
            + "from a summary, each key's in may be up to ± too high, its emitted and dropped up to ± too low\n"
    }
    let names = keys.map { displayKey($0.key) }
    let keyWidth = max(3, names.map(\.count).max() ?? 0)
    let headers = ["in", "emitted", "dropped"] + (estimated ? ["±"] : [])
    let columns = keys.map {
        [String($0.eventsIn), String($0.emitted), String($0.dropped)] + (estimated ? [String($0.error)] : [])
    }
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

/// A key as shown in tables and marbles: its bytes as `displayText` shows
/// them (control bytes, `\` and invalid UTF-8 escaped), `""` for the empty
/// key, and past 24 characters cut to 23 and `…`. The cut counts what is
/// shown and keeps each escape whole: `\x1b` is kept or left out, never
/// shown as `\x`.
func displayKey(_ key: [UInt8]) -> String {
    if key.isEmpty { return "\"\"" }
    let pieces = displayPieces(key)
    let text = joined(pieces)
    guard text.count > 24 else { return text }
    var cut = ""
    var length = 0
    cutting: for piece in pieces {
        switch piece {
        case let .escape(escape):
            guard length + escape.count <= 23 else { break cutting }
            cut += escape
            length += escape.count
        case let .text(run):
            for character in run {
                guard length < 23 else { break cutting }
                cut.append(character)
                length += 1
            }
        }
    }
    return cut + "…"
}
