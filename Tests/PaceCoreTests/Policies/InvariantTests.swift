// SPEC's invariants, checked directly on the output of seeded random streams
// (the same generator as RandomizedPolicyTests, other seeds). Where the
// randomized tests compare with a model, these state what must hold of any
// correct output, so a mistake shared by the model and the code still shows.

import PaceCore
import PaceTesting
import Testing

private func run(_ policy: ReferencePolicy, keyed: Bool, _ events: [ReferenceEvent]) -> [Emitted] {
    func go<P: Policy>(_ policy: P) -> [Emitted] where P.Payload == EventNumber {
        var run = TestClock(policy: policy, keyed: keyed)
        for event in events { run.send(event.line, key: event.key, at: event.time) }
        run.finish()
        precondition(run.isQuiet, "timers left after end of input")
        return run.emissions
    }
    switch policy {
    case let .debounce(d, m): return go(Debounce(window: d, maxWait: m))
    case let .leading(d): return go(Leading(window: d))
    case let .leadingTrailing(d): return go(LeadingTrailing(window: d))
    case let .throttleFirst(d): return go(ThrottleFirst(window: d))
    case let .throttleLast(d): return go(ThrottleLast(window: d))
    case let .limit(n, d, b): return go(Limit(rate: CellRate(count: n, per: d, burst: b)))
    case let .rate(n, d, b): return go(Rate(rate: CellRate(count: n, per: d, burst: b)))
    }
}

/// The input index of the event an emission is (each line names its event:
/// e0, e1x, ...).
private func eventIndex(_ emission: Emitted) -> Int {
    let text = String(decoding: emission.line, as: UTF8.self).dropFirst()
    return Int(text.prefix { $0.isNumber })!
}

private func window(of policy: ReferencePolicy) -> Nanoseconds {
    switch policy {
    case let .debounce(d, _), let .leading(d), let .leadingTrailing(d), let .throttleFirst(d), let .throttleLast(d): return d
    case let .limit(n, d, _), let .rate(n, d, _): return d / n
    }
}

/// Every violated invariant for one stream, as readable sentences.
private func violations(_ c: RandomCase) -> [String] {
    var found: [String] = []
    let emissions = run(c.policy, keyed: c.keyed, c.events)
    let d = window(of: c.policy)
    let keyOf: (Int) -> String = { c.keyed ? c.events[$0].key : "" }
    let index: [Int] = emissions.map(eventIndex)

    // Emitted order: non-decreasing time; no event emitted twice; none
    // emitted before it arrived; per key, a subsequence of the input.
    for i in emissions.indices.dropFirst() where emissions[i].time < emissions[i - 1].time {
        found.append("emission \(i) goes back in time")
    }
    if Set(index).count != index.count { found.append("an event was emitted twice") }
    for (e, i) in zip(emissions, index) where e.time < c.events[i].time {
        found.append("e\(i) emitted at \(e.time), before it arrived at \(c.events[i].time)")
    }
    var lastIndexOfKey: [String: Int] = [:]
    var lastTimeOfKey: [String: Instant] = [:]
    for (e, i) in zip(emissions, index) {
        let key = keyOf(i)
        if let previous = lastIndexOfKey[key], previous >= i { found.append("key '\(key)': e\(i) after e\(previous)") }
        if case .throttleFirst = c.policy, let previous = lastTimeOfKey[key], e.time - previous < d {
            found.append("throttle: key '\(key)' emitted \(e.time - previous)ns apart, window \(d)")
        }
        lastIndexOfKey[key] = i
        lastTimeOfKey[key] = e.time
    }

    // Debounce: an emitted line was not followed, before its emission, by
    // another event of its key (with no max-wait, it is emitted at t + D).
    if case let .debounce(_, maxWait) = c.policy {
        for (e, i) in zip(emissions, index) {
            let later = c.events.indices.filter { $0 > i && keyOf($0) == keyOf(i) && c.events[$0].time < e.time }
            if !later.isEmpty { found.append("debounce: e\(i) emitted at \(e.time) although e\(later[0]) came first") }
            if maxWait == nil && e.time != c.events[i].time + d {
                found.append("debounce: e\(i) emitted at \(e.time), not t + D = \(c.events[i].time + d)")
            }
        }
    }

    // --limit: at most B + k lines of a key go out in any span
    // [s, s + k * I], that is (m - B) * D <= span * N for m lines in a span.
    // --rate: the same of its exact emission times, each rounded up by less
    // than 1 ns, so (m - B) * D < (span + 1) * N.
    switch c.policy {
    case let .limit(n, period, b), let .rate(n, period, b):
        var slack: Int128 = 0
        if case .rate = c.policy { slack = 1 }
        var timesOfKey: [String: [Instant]] = [:]
        for (e, i) in zip(emissions, index) { timesOfKey[keyOf(i), default: []].append(e.time) }
        for (key, times) in timesOfKey {
            for i in times.indices {
                for j in times.indices where j >= i {
                    let m = Int128(j - i + 1)
                    let tokens = (m - Int128(b)) * Int128(period.count), span = Int128((times[j] - times[i]).count)
                    if slack == 0 ? tokens > span * Int128(n) : tokens >= (span + slack) * Int128(n) {
                        found.append("key '\(key)': \(m) lines in [\(times[i]), \(times[j])], over \(b) + k tokens")
                    }
                }
            }
        }
    case .debounce, .leading, .leadingTrailing, .throttleFirst, .throttleLast:
        break
    }

    // Leading and trailing: a line goes out at once when its key was silent
    // for D before it (a burst's first), or else D after it, with no event
    // of its key in between (a burst's last).
    if case .leadingTrailing = c.policy {
        for (e, i) in zip(emissions, index) {
            let t = c.events[i].time
            let before = c.events.indices.last { $0 < i && keyOf($0) == keyOf(i) }
            let opensBurst = before.map { c.events[$0].time + d <= t } ?? true
            if opensBurst {
                if e.time != t { found.append("leading-trailing: e\(i) opens a burst, emitted at \(e.time), not at once") }
                continue
            }
            if e.time != t + d { found.append("leading-trailing: e\(i) emitted at \(e.time), neither t nor t + D = \(t + d)") }
            let later = c.events.indices.first { $0 > i && keyOf($0) == keyOf(i) && c.events[$0].time < t + d }
            if let later { found.append("leading-trailing: e\(i) emitted at \(e.time) although e\(later) came first") }
        }
    }

    // Nothing pending is lost at end of input: each key's last event comes
    // out with debounce and throttle-last, its first with leading and throttle,
    // both with leading and trailing.
    let keys = Set(c.events.indices.map(keyOf))
    for key in keys {
        let ofKey = c.events.indices.filter { keyOf($0) == key }
        let mustEmit: [Int]
        switch c.policy {
        case .debounce, .throttleLast: mustEmit = [ofKey.last!]
        case .leading, .throttleFirst, .limit: mustEmit = [ofKey.first!]
        case .leadingTrailing: mustEmit = [ofKey.first!, ofKey.last!]
        case .rate: mustEmit = ofKey  // never drops
        }
        for e in mustEmit where !index.contains(e) { found.append("key '\(key)': e\(e) was lost") }
    }

    // Keys are independent: each key's events, run alone, give exactly that
    // key's emissions, and the output is theirs merged by emission time,
    // then input order. Unkeyed, the keys the events carry change nothing.
    if c.keyed {
        var merged: [(emission: Emitted, index: Int)] = []
        for key in keys {
            let alone = run(c.policy, keyed: false, c.events.filter { $0.key == key })
            merged += alone.map { ($0, eventIndex($0)) }
        }
        merged.sort { ($0.emission.time, $0.index) < ($1.emission.time, $1.index) }
        if merged.map(\.emission) != emissions {
            found.append("the output is not each key's own output merged by time and input order: "
                + "\(merged.map(\.emission))")
        }
    } else {
        let keyless = c.events.map { ReferenceEvent(time: $0.time, key: "", line: $0.line) }
        if run(c.policy, keyed: false, keyless) != emissions { found.append("the keys changed an unkeyed run") }
    }
    return found
}

@Suite struct InvariantTests {
    @Test("SPEC's invariants hold on seeded random streams",
          arguments: PolicyVariant.unbatched, [false, true])
    func invariants(variant: PolicyVariant, keyed: Bool) {
        for seed in UInt64(10_000)..<10_400 {
            let c = RandomCase(variant: variant, keyed: keyed, seed: seed)
            let broken = violations(c)
            if !broken.isEmpty {
                Issue.record("\(broken.joined(separator: "; "))\n\(c)")
                return
            }
        }
    }
}
