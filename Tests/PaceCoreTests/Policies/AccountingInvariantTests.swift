// SPEC's Accounting invariants on the randomized streams, through the whole
// replay path (driver, scheduler, sinks, `--dropped` file, `--trace`):
//
// - every input line appears exactly once, on stdout or in the `--dropped`
//   file (under `--on-bad-time error`, the line that ended input and those
//   after it nowhere);
// - each output line's count is 1 plus its key's discards since the key's
//   previous output line, so per key the counts plus the discards after the
//   last output line add up to the key's events in, the number `--stats`
//   prints;
// - `--trace` names the same fate for every line.
//
// The streams are RandomizedPolicyTests' (times on a 10 us grid here, so that
// `--emit-time`'s microseconds order discards and emissions exactly), with
// bad-time and empty lines mixed in; AccountingCase.swift makes the cases and
// runs them.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PaceCore
import PaceTesting
import Testing

/// Every violated invariant, as sentences.
private func violations(_ c: AccountingCase) -> [String] {
    var found: [String] = []
    let run = accountedRun(c)
    let used = c.used

    // Exactly once, stdout or --dropped.
    var expected: [String: Int] = [:]
    for line in used { expected[line.text, default: 0] += 1 }
    var seen: [String: Int] = [:]
    for e in run.emissions { seen[String(decoding: e.line, as: UTF8.self), default: 0] += 1 }
    for d in run.dropped { seen[d.line, default: 0] += 1 }
    if seen != expected {
        let wrong = Set(seen.keys).union(expected.keys).filter { seen[$0] != expected[$0] }.sorted()
        found.append("lines not written exactly once: " + wrong.prefix(5).map {
            "'\($0)' expected \(expected[$0] ?? 0), written \(seen[$0] ?? 0)"
        }.joined(separator: "; "))
    }

    // Counts: per key, a timeline of its emissions and discards (at one
    // instant, emissions come first: a timer due at T fires before events
    // at T, and an event that is emitted comes before later ones dropped).
    var keyOfLine: [String: String] = [:]
    var eventsOfKey: [String: Int64] = [:]
    for line in used {
        if case let .event(_, key, text) = line {
            let k = c.random.keyed ? key : ""
            keyOfLine[text] = k
            eventsOfKey[k, default: 0] += 1
        }
    }
    struct Step { var time: Instant; var emission: Bool; var count: Int64; var order: Int }
    var timeline: [String: [Step]] = [:]
    for (i, e) in run.emissions.enumerated() {
        let text = String(decoding: e.line, as: UTF8.self)
        guard let key = keyOfLine[text] else {
            if e.count != 1 { found.append("passed line '\(text)' counts \(e.count), not 1") }
            continue
        }
        timeline[key, default: []].append(Step(time: Instant(nanoseconds: e.time.nanoseconds / 1_000), emission: true, count: e.count, order: i))
    }
    for (i, d) in run.dropped.enumerated() {
        guard let key = keyOfLine[d.line] else { continue }
        timeline[key, default: []].append(Step(time: d.time, emission: false, count: 0, order: i))
    }
    for (key, steps) in timeline {
        let ordered = steps.sorted {
            ($0.time, $0.emission ? 0 : 1, $0.order) < ($1.time, $1.emission ? 0 : 1, $1.order)
        }
        var owed: Int64 = 0
        var counted: Int64 = 0
        for step in ordered {
            if step.emission {
                if step.count != owed + 1 {
                    found.append("key '\(key)': a line at \(step.time) counts \(step.count), expected \(owed + 1)")
                }
                counted += step.count
                owed = 0
            } else {
                owed += 1
            }
        }
        if counted + owed != eventsOfKey[key] ?? 0 {
            found.append("key '\(key)': counts \(counted) + \(owed) after the last line != \(eventsOfKey[key] ?? 0) in")
        }
        if c.random.keyed, let row = run.report.topKeys?.first(where: { String(decoding: $0.key, as: UTF8.self) == key }),
           row.eventsIn != counted + owed {
            found.append("key '\(key)': --stats says \(row.eventsIn) in, the counts \(counted + owed)")
        }
    }

    // --stats' totals.
    let stats = run.report.scheduler
    let events = Int64(keyOfLine.count)
    let droppedEvents = Int64(run.dropped.filter { keyOfLine[$0.line] != nil }.count)
    if stats.eventsIn != events { found.append("--stats: \(stats.eventsIn) events in, \(events) sent") }
    // Dropped is every line --dropped got (SPEC), skipped ones too; of
    // them, the events are those the policy did not emit.
    if run.report.dropped != Int64(run.dropped.count) {
        found.append("--stats: \(run.report.dropped) dropped, --dropped has \(run.dropped.count) lines")
    }
    if stats.eventsIn - stats.emitted != droppedEvents {
        found.append("--stats: \(stats.eventsIn - stats.emitted) events not emitted, --dropped has \(droppedEvents) events")
    }
    if stats.uncountedDiscards != 0 { found.append("--stats: \(stats.uncountedDiscards) uncounted discards") }
    if c.random.keyed, let table = run.report.topKeys, table.count != min(10, eventsOfKey.count) {
        found.append("--stats: \(table.count) keys in its table, \(eventsOfKey.count) in the input")
    }

    // --trace: the same fate for every line. Line numbers count every line.
    let onStdout = Set(run.emissions.map { String(decoding: $0.line, as: UTF8.self) })
    var droppedLeft: [String: Int] = [:]
    for d in run.dropped { droppedLeft[d.line, default: 0] += 1 }
    for (n, line) in used.enumerated() {
        guard let fate = run.trace[n + 1] else {
            found.append("--trace says nothing of line \(n + 1)")
            continue
        }
        let traceSaysOut = fate.hasPrefix("emitted") || fate.hasPrefix("still pending") || fate.hasPrefix("bad timestamp, passed")
        if case .empty = line {
            if fate != "empty, skipped" { found.append("line \(n + 1) is empty, --trace says '\(fate)'") }
            continue
        }
        if traceSaysOut != onStdout.contains(line.text) {
            found.append("line \(n + 1) '\(line.text)': --trace says '\(fate)', "
                         + (onStdout.contains(line.text) ? "it is on stdout" : "it is in --dropped"))
        }
    }
    if c.onBadTime == .error, used.count < c.lines.count {
        guard case .badTime = run.report.end else {
            found.append("input ended with \(run.report.end), not at the bad line")
            return found
        }
    }
    return found
}

@Suite struct AccountingInvariantTests {
    static let seeds: UInt64 = 120

    private func check(_ cases: some Sequence<AccountingCase>, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var checked = 0
        var failures = 0
        for c in cases {
            checked += 1
            let problems = violations(c)
            guard !problems.isEmpty else { continue }
            failures += 1
            if failures <= 3 {
                let text: String = c.description + "\n" + problems.prefix(8).joined(separator: "\n")
                Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
            }
        }
        if failures > 3 { Issue.record("\(failures) of \(checked) streams failed in all", sourceLocation: sourceLocation) }
        return checked
    }

    @Test(arguments: PolicyVariant.allCases, [false, true])
    func everyLineAccountedForOnce(variant: PolicyVariant, keyed: Bool) {
        let cases = (0..<Self.seeds).flatMap { seed in
            BadTimeAction.allCases.map { AccountingCase(RandomCase(variant: variant, keyed: keyed, seed: 7_000 + seed),
                                                        onBadTime: $0) }
        }
        #expect(check(cases) == Int(Self.seeds) * 3)
    }

    @Test(arguments: PolicyVariant.allCases)
    func manyKeysComingAndGoing(variant: PolicyVariant) {
        let cases = (0..<UInt64(10)).map {
            AccountingCase(RandomCase(variant: variant, keyed: true, seed: 9_000 + $0, manyKeys: true), onBadTime: .skip)
        }
        #expect(check(cases) == 10)
    }

    /// The checks can fail: a stream where lines are dropped, with counts.
    @Test func theStreamsDropAndCount() {
        var dropping = 0, counting = 0
        for seed in 0..<UInt64(40) {
            let run = accountedRun(AccountingCase(RandomCase(variant: .throttleFirst, keyed: true, seed: 7_000 + seed),
                                                  onBadTime: .skip))
            if !run.dropped.isEmpty { dropping += 1 }
            if run.emissions.contains(where: { $0.count > 1 }) { counting += 1 }
        }
        #expect(dropping > 20)
        #expect(counting > 20)
    }
}
