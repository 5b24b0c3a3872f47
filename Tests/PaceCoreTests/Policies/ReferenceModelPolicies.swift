// ReferenceModel's copy of each policy for one key, written from SPEC's
// sentences on that policy alone: over one key's event times, the emissions
// and the stretches the key holds state. `--batch N` has its own, for
// `--debounce` and `--throttle-last`.

import PaceCore

extension ReferenceModel {
    /// One key's copy of the policy, over its events' times. Emissions and
    /// busy stretches refer to positions in `times`.
    static func runOneKey(times t: [Instant], policy: ReferencePolicy) -> ([Emitted], [Busy]) {
        var emitted: [Emitted] = []
        var busy: [Busy] = []
        let n = t.count

        switch policy {
        case let .debounce(d, maxWait):
            // Each event becomes the pending one and (re)sets the timer to
            // t + D, or min(t + D, f + M) with a max-wait, f being the first
            // event of the pending run. The pending event is emitted when the
            // timer fires, which it does unless the next event comes strictly
            // before it is due (a timer due at T fires before an event at T).
            // With the input over, the clock runs on: the last one fires too.
            func due(_ j: Int, runStart f: Instant) -> Instant {
                debounceDue(t[j], runStart: f, window: d, maxWait: maxWait)
            }
            var i = 0
            while i < n {
                let f = t[i]
                var j = i
                while j + 1 < n && t[j + 1] < due(j, runStart: f) { j += 1 }
                emitted.append(Emitted(time: due(j, runStart: f), event: j))
                busy.append(Busy(key: "", start: f, end: due(j, runStart: f)))
                i = j + 1
            }

        case let .leading(d):
            // Emitted at once if no window is open: none yet, or t >= the
            // window's end; either way the window's end becomes t + D. So the
            // window's end is always the previous event's time + D, and an
            // event opens a burst exactly when it follows D of silence.
            var burstStart: Instant?
            for k in 0..<n {
                if k == 0 || t[k] >= t[k - 1] + d {
                    emitted.append(Emitted(time: t[k], event: k))
                    if let start = burstStart { busy.append(Busy(key: "", start: start, end: t[k - 1] + d)) }
                    burstStart = t[k]
                }
            }
            if let start = burstStart { busy.append(Busy(key: "", start: start, end: t[n - 1] + d)) }

        case let .leadingTrailing(d):
            // As --leading: a burst is a run of events each less than D
            // after the one before, and its first is emitted at once. Inside
            // the window the latest event is the pending one; when the window
            // ends at E, D after the burst's last event, that event (if it is
            // not the burst's first) is emitted at E, and the window closes:
            // an event at E or later starts the next burst.
            var i = 0
            while i < n {
                var j = i
                while j + 1 < n && t[j + 1] < t[j] + d { j += 1 }
                emitted.append(Emitted(time: t[i], event: i))
                if j > i { emitted.append(Emitted(time: t[j] + d, event: j)) }
                busy.append(Busy(key: "", start: t[i], end: t[j] + d))
                i = j + 1
            }

        case let .throttleFirst(d):
            // Emitted at once if t >= the window's end (or no window yet), and
            // the window's end becomes t + D; otherwise dropped, and the
            // window does not move.
            var windowEnd: Instant?
            for k in 0..<n {
                if let end = windowEnd, t[k] < end { continue }
                emitted.append(Emitted(time: t[k], event: k))
                busy.append(Busy(key: "", start: t[k], end: t[k] + d))
                windowEnd = t[k] + d
            }

        case let .throttleLast(d):
            // With no window open, an event is emitted at once and a window
            // [t, t + D) opens. An event inside a window becomes the pending
            // one. When a window ends at E: a pending event is emitted at E
            // and opens [E, E + D); otherwise no window is open.
            var windowEnd: Instant?
            var firstWindowStart: Instant = 0
            var pending: Int?
            // Ends the windows that end at or before `now`, as their timers
            // fire before an event at `now` is handled.
            func endWindows(upTo now: Instant?) {
                while let end = windowEnd, now == nil || end <= now! {
                    if let p = pending {
                        emitted.append(Emitted(time: end, event: p))
                        pending = nil
                        windowEnd = end + d
                    } else {
                        busy.append(Busy(key: "", start: firstWindowStart, end: end))
                        windowEnd = nil
                    }
                }
            }
            for k in 0..<n {
                endWindows(upTo: t[k])
                if windowEnd == nil {
                    emitted.append(Emitted(time: t[k], event: k))
                    windowEnd = t[k] + d
                    firstWindowStart = t[k]
                } else {
                    pending = k
                }
            }
            endWindows(upTo: nil)  // end of input: the clock runs on

        case let .limit(count, period, burst), let .rate(count, period, burst):
            // The generic cell rate algorithm with I = D/N, exactly: every
            // instant is kept as a multiple of 1/N ns, that is N times its
            // value (I is then D, (B - 1) * I is (B - 1) * D), in Int128.
            // --limit: an event at t passes iff A is none or
            // t >= A - (B - 1) * I; then A = max(A, t) + I. --rate: it goes
            // out at e = max(t, A - (B - 1) * I), rounded up to a whole ns,
            // and A = max(A, e) + I with the unrounded e; none is dropped.
            // The key holds state until its bucket is full again: from
            // ceil(A) on, an event finds it as a new key would.
            let isRate: Bool
            if case .rate = policy { isRate = true } else { isRate = false }
            let scale = Int128(count)
            let interval = Int128(period.count)
            let tolerance = Int128(burst - 1) * Int128(period.count)
            func ceilingOf(_ scaled: Int128) -> Instant {
                // Division truncates towards zero, which is the ceiling
                // of a negative quotient.
                Instant(scaled >= 0 ? (scaled + scale - 1) / scale : scaled / scale)
            }
            var arrival: Int128?
            var busyStart: Instant = 0
            for k in 0..<n {
                let now = Int128(t[k].nanoseconds) * scale
                if let a = arrival, ceilingOf(a) <= t[k] {
                    busy.append(Busy(key: "", start: busyStart, end: ceilingOf(a)))
                    arrival = nil
                }
                if arrival == nil { busyStart = t[k] }
                if isRate {
                    let e = max(now, (arrival ?? now) - tolerance)
                    emitted.append(Emitted(time: ceilingOf(e), event: k))
                    arrival = max(arrival ?? e, e) + interval
                } else {
                    if let a = arrival, now < a - tolerance { continue }
                    emitted.append(Emitted(time: t[k], event: k))
                    arrival = max(arrival ?? now, now) + interval
                }
            }
            if let a = arrival { busy.append(Busy(key: "", start: busyStart, end: ceilingOf(a))) }
        }
        return (emitted, busy)
    }
}

// MARK: - --batch

extension ReferenceModel {
    /// One key's `--debounce` or `--throttle-last` with `--batch n`.
    static func runOneKey(times t: [Instant], policy: ReferencePolicy, batch n: Int) -> ([Emitted], [Busy]) {
        var emitted: [Emitted] = []
        var busy: [Busy] = []
        /// The events of `pending` go out together at `time`, placed by `order`.
        func release(_ pending: [Int], at time: Instant, order: Int) {
            for (i, e) in pending.enumerated() {
                emitted.append(Emitted(time: time, event: e, order: order, batchIndex: i, batchSize: pending.count))
            }
        }
        switch policy {
        case let .debounce(d, maxWait):
            // Each event joins the pending ones and (re)sets the timer to
            // t + D, or min(t + D, f + M), f the first pending one's time.
            // The timer fires unless the next event comes strictly before
            // it; the n-th pending event sends them out at its own time,
            // and nothing is pending afterwards (the next event is a new f).
            func due(_ j: Int, runStart f: Instant) -> Instant {
                debounceDue(t[j], runStart: f, window: d, maxWait: maxWait)
            }
            var i = 0
            while i < t.count {
                let f = t[i]
                var pending = [i]
                var j = i
                while pending.count < n && j + 1 < t.count && t[j + 1] < due(j, runStart: f) {
                    j += 1
                    pending.append(j)
                }
                if pending.count == n {
                    release(pending, at: t[j], order: j)
                    busy.append(Busy(key: "", start: f, end: t[j]))
                } else {
                    release(pending, at: due(j, runStart: f), order: i)
                    busy.append(Busy(key: "", start: f, end: due(j, runStart: f)))
                }
                i = j + 1
            }

        case let .throttleLast(d):
            // With no window open, an event goes out at once, alone, and
            // [t, t + D) opens. An event inside a window joins the pending
            // ones; the n-th sends them out at its time and opens
            // [t, t + D). When a window ends at E, the pending ones go out
            // at E and open [E, E + D); with none, no window is open.
            var windowEnd: Instant?
            var firstWindowStart: Instant = 0
            var pending: [Int] = []
            func endWindows(upTo now: Instant?) {
                while let end = windowEnd, now == nil || end <= now! {
                    if pending.isEmpty {
                        busy.append(Busy(key: "", start: firstWindowStart, end: end))
                        windowEnd = nil
                    } else {
                        release(pending, at: end, order: pending[0])
                        pending = []
                        windowEnd = end + d
                    }
                }
            }
            for k in t.indices {
                endWindows(upTo: t[k])
                if windowEnd == nil {
                    release([k], at: t[k], order: k)
                    windowEnd = t[k] + d
                    firstWindowStart = t[k]
                } else {
                    pending.append(k)
                    if pending.count == n {
                        release(pending, at: t[k], order: k)
                        pending = []
                        windowEnd = t[k] + d
                    }
                }
            }
            endWindows(upTo: nil)

        default:
            preconditionFailure("ReferenceModel: --batch is for --debounce and --throttle-last, not \(policy)")
        }
        return (emitted, busy)
    }
}

/// A debounce's timer after an event at `t` of a pending run that began at
/// `f`: t + D, or min(t + D, f + M) with a max-wait. One line and a batch
/// alike.
private func debounceDue(_ t: Instant, runStart f: Instant, window d: Nanoseconds, maxWait: Nanoseconds?) -> Instant {
    guard let m = maxWait else { return t + d }
    return min(t + d, f + m)
}
