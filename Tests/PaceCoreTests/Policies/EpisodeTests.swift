// `--resolve-after`: the Scheduler's episodes held against ReferenceEpisodes
// on the randomized streams of RandomizedPolicyTests (every policy, keyed or
// not), and exact cases written out by hand. The scheduler runs as replay
// and live mode run it: its sink marked (and counted), lines borrowed.

@testable import PaceCore
import PaceTesting
import Testing

/// What a run with episodes gave.
struct EpisodeRun {
    var out: [Emitted]
    var stats: SchedulerStats
    var heldKeysAtEnd: Int
    var quietAtEnd: Bool
}

/// Runs `events` through `policy` with `--resolve-after quiet` (and
/// `--count`); replay's end of input, or live mode's at `liveEnd`.
func runEpisodes<P: Policy>(_ policy: P, quiet: Nanoseconds, keyed: Bool, events: [ReferenceEvent],
                            liveEnd: Instant? = nil) -> EpisodeRun where P.Payload == EventNumber {
    if keyed { return runEpisodes(policy, ManyKeys<P.State>.self, quiet, events, liveEnd) }
    return runEpisodes(policy, OneKey<P.State>.self, quiet, events, liveEnd)
}

private func runEpisodes<P: Policy, K: KeyStore<P.State> & ~Copyable>(
    _ policy: P, _ keys: K.Type, _ quiet: Nanoseconds, _ events: [ReferenceEvent], _ liveEnd: Instant?
) -> EpisodeRun where P.Payload == EventNumber {
    var scheduler = Scheduler(policy: policy, keys: keys, sink: Counted(RecordingSink()),
                              observer: NoObserver(), resolveAfter: quiet)
    // One buffer for all lines, as the reader's: lines are borrowed, and
    // copied when the "reader" moves on (every few lines, here).
    for (i, event) in events.enumerated() {
        var line = Array(event.line.utf8)
        let key = Array(event.key.utf8)
        line.withUnsafeBytes { l in
            key.withUnsafeBytes { k in
                try! scheduler.send(l, key: k, at: event.time, number: EventNumber(i + 1), borrowing: true)
            }
            scheduler.keepBorrowedLines()
        }
        // The bytes are gone: a line still borrowed would show this.
        for j in line.indices { line[j] = UInt8(ascii: "#") }
    }
    if let liveEnd {
        try! scheduler.advance(to: liveEnd)
        try! scheduler.finish(emittingAt: liveEnd)
    } else {
        try! scheduler.finish()
    }
    let stats = scheduler.stats
    let held = scheduler.heldKeys
    let quietAtEnd = !scheduler.hasTimers
    let out = scheduler.takeSink().base.emissions
    return EpisodeRun(out: out, stats: stats, heldKeysAtEnd: held, quietAtEnd: quietAtEnd)
}

private func runEpisodes(_ c: RandomCase, quiet: Nanoseconds, events: [ReferenceEvent],
                         liveEnd: Instant? = nil) -> EpisodeRun {
    let (keyed, q) = (c.keyed, quiet)
    switch c.policy {
    case let .debounce(d, m): return runEpisodes(Debounce(window: d, maxWait: m), quiet: q, keyed: keyed, events: events, liveEnd: liveEnd)
    case let .leading(d): return runEpisodes(Leading(window: d), quiet: q, keyed: keyed, events: events, liveEnd: liveEnd)
    case let .leadingTrailing(d): return runEpisodes(LeadingTrailing(window: d), quiet: q, keyed: keyed, events: events, liveEnd: liveEnd)
    case let .throttleFirst(d): return runEpisodes(ThrottleFirst(window: d), quiet: q, keyed: keyed, events: events, liveEnd: liveEnd)
    case let .throttleLast(d): return runEpisodes(ThrottleLast(window: d), quiet: q, keyed: keyed, events: events, liveEnd: liveEnd)
    case let .limit(n, d, b):
        return runEpisodes(Limit(rate: CellRate(count: n, per: d, burst: b)), quiet: q, keyed: keyed, events: events, liveEnd: liveEnd)
    case let .rate(n, d, b):
        return runEpisodes(Rate(rate: CellRate(count: n, per: d, burst: b)), quiet: q, keyed: keyed, events: events, liveEnd: liveEnd)
    }
}

/// The policy's window: how long its memory of a key can outlive the key's
/// last event (for `--limit`, the bucket's time to fill, B·D/N).
private func window(of policy: ReferencePolicy) -> Nanoseconds {
    switch policy {
    case let .debounce(d, m): return m ?? d
    case let .leading(d), let .leadingTrailing(d), let .throttleFirst(d), let .throttleLast(d): return d
    case let .limit(n, d, b), let .rate(n, d, b): return Nanoseconds((b * d.count + n - 1) / n)
    }
}

/// The first way the scheduler disagrees with SPEC's episodes on `c`, or nil.
private func episodeMismatch(_ c: RandomCase, quiet: Nanoseconds) -> String? {
    let run = runEpisodes(c, quiet: quiet, events: c.events)
    let model = ReferenceModel.episodes(of: c.events, policy: c.policy, keyed: c.keyed, quiet: quiet)
    let expected = model.map { Emitted(time: $0.time, line: Array(c.events[$0.event].line.utf8), mark: $0.mark) }
    let actual = run.out.map { Emitted(time: $0.time, line: $0.line, mark: $0.mark) }
    if actual != expected { return "outputs differ\n  expected: \(expected)\n    actual: \(actual)" }
    if !run.quietAtEnd || (c.keyed && run.heldKeysAtEnd != 0) { return "state left after the end of input" }
    // Per key: first (repeat)* resolved, repeated; the counts add up when
    // Q is at least the policy's window.
    var marks: [String: [EpisodeMark]] = [:]
    var counts: [String: Int64] = [:]
    var eventsIn: [String: Int64] = [:]
    var keyOf: [[UInt8]: String] = [:]
    for e in c.events { keyOf[Array(e.line.utf8)] = c.keyed ? e.key : ""; eventsIn[c.keyed ? e.key : "", default: 0] += 1 }
    for o in run.out {
        let key = keyOf[o.line]!
        marks[key, default: []].append(o.mark)
        counts[key, default: 0] += o.count
    }
    for (key, list) in marks {
        var open = false
        for mark in list {
            switch (open, mark) {
            case (false, .first): open = true
            case (true, .repeat): break
            case (true, .resolved): open = false
            default: return "key \(key): marks \(list.map(\.word)) do not read first (repeat)* resolved"
            }
        }
        if open { return "key \(key): its last episode never resolved" }
    }
    if quiet >= window(of: c.policy) {
        for (key, n) in eventsIn where counts[key, default: 0] != n {
            return "key \(key): counts add up to \(counts[key, default: 0]), \(n) events in (Q \(quiet) >= the window)"
        }
    }
    let resolved = Int64(run.out.filter { $0.mark == .resolved }.count)
    if run.stats.episodesOpened != resolved || run.stats.episodesResolved != resolved {
        return "stats: \(run.stats.episodesOpened) opened, \(run.stats.episodesResolved) resolved, \(resolved) resolved lines"
    }
    return nil
}

@Suite struct EpisodeTests {
    static let seeds: UInt64 = 300

    /// Q below, at and above the window, on the random streams' grid.
    @Test(arguments: PolicyVariant.allCases, [false, true])
    func matchesTheReferenceEpisodes(variant: PolicyVariant, keyed: Bool) {
        var failures = 0
        var resolvedLines = 0
        for seed in 1...Self.seeds {
            let c = RandomCase(variant: variant, keyed: keyed, seed: seed, manyKeys: seed % 10 == 0)
            let w = window(of: c.policy)
            for quiet in [RandomCase.grid, w, w + RandomCase.grid * Int64(seed % 5)] {
                resolvedLines += runEpisodes(c, quiet: quiet, events: c.events).out.filter { $0.mark == .resolved }.count
                guard let problem = episodeMismatch(c, quiet: quiet) else { continue }
                failures += 1
                if failures <= 3 { Issue.record("--resolve-after \(quiet)ns, \(c)\n\(problem)") }
            }
        }
        #expect(failures == 0)
        #expect(resolvedLines > Int(Self.seeds), "the streams resolve episodes")
    }

    /// Live end of input: what is due by then as in replay; then the
    /// pending lines at once, then every open episode at once, in the order
    /// of its key's last event.
    @Test(arguments: PolicyVariant.allCases, [false, true])
    func liveEndClosesOpenEpisodesAtOnce(variant: PolicyVariant, keyed: Bool) {
        var failures = 0
        for seed in 1...Self.seeds {
            let c = RandomCase(variant: variant, keyed: keyed, seed: seed)
            let quiet = window(of: c.policy)
            let replay = runEpisodes(c, quiet: quiet, events: c.events).out
            let live = runEpisodes(c, quiet: quiet, events: c.events, liveEnd: c.liveEnd).out
            // Before the end, the same; after it, each key's episode closes
            // with one resolved line, after the pending lines.
            let before = replay.filter { $0.time <= c.liveEnd }
            let prefixMatches = Array(live.prefix(before.count)) == before
            let rest = live.dropFirst(before.count)
            let pendingCount = replay.filter { $0.time > c.liveEnd && $0.mark != .resolved }.count
            let tail = Array(rest)
            let stampedAtEnd = tail.allSatisfy { $0.time == c.liveEnd }
            let resolvedLast = tail.dropFirst(pendingCount).allSatisfy { $0.mark == .resolved }
                && tail.prefix(pendingCount).allSatisfy { $0.mark != .resolved }
            // In the order of their keys' last events; every first resolved.
            var index: [[UInt8]: Int] = [:]
            for (i, e) in c.events.enumerated() { index[Array(e.line.utf8)] = i }
            let resolvedAtEnd = tail.dropFirst(pendingCount).map { index[$0.line]! }
            let inOrder = resolvedAtEnd == resolvedAtEnd.sorted()
            let balanced = live.filter { $0.mark == .first }.count == live.filter { $0.mark == .resolved }.count
            if !(prefixMatches && stampedAtEnd && resolvedLast && balanced && inOrder) {
                failures += 1
                if failures <= 3 { Issue.record("live end at \(c.liveEnd), \(c)\n  replay: \(replay)\n    live: \(live)") }
            }
        }
        #expect(failures == 0)
    }
}
