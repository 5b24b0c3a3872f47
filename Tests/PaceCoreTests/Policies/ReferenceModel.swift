// A deliberately naive model of SPEC's "Semantics", for the randomized tests
// to hold the Scheduler against. It is written from the prose alone and shares
// nothing with the production code: no reducers, no timer heap, no key table.
//
// Its structure follows the sentences of SPEC rather than an event loop:
// "each key's events run through their own copy of the policy", so each
// key's events are taken apart and walked on their own, and the emissions of
// all keys are then put in SPEC's output order ("by emission time; emissions
// at the same time in input order of the emitted events"). End of input is
// replay's: the clock runs on, so every pending event comes out at its due
// time. Quadratic in places; clarity is the point.
//
// `--batch N` is a separate argument, for `--debounce` and `--throttle-last`
// only: SPEC's sentences on batches (an event joins the pending ones; N
// pending go out at once, at that event's time; a batch's lines stay
// together; batches due at one time in input order of their first lines; a
// batch that filled after every line already emitted at its time).

import PaceCore
import PaceTesting
import Testing

/// A policy and its durations, as the command line would select them.
enum ReferencePolicy: Equatable, CustomStringConvertible {
    case debounce(window: Nanoseconds, maxWait: Nanoseconds?)
    case leading(window: Nanoseconds)
    /// `--leading D --trailing`.
    case leadingTrailing(window: Nanoseconds)
    case throttleFirst(window: Nanoseconds)
    case throttleLast(window: Nanoseconds)
    /// `--limit N/D --burst B` and `--rate N/D --burst B`, B given in full.
    case limit(count: Int64, period: Nanoseconds, burst: Int64)
    case rate(count: Int64, period: Nanoseconds, burst: Int64)

    var description: String {
        switch self {
        case let .debounce(d, nil): return "--debounce \(d)ns"
        case let .debounce(d, m?): return "--debounce \(d)ns --max-wait \(m)ns"
        case let .leading(d): return "--leading \(d)ns"
        case let .leadingTrailing(d): return "--leading \(d)ns --trailing"
        case let .throttleFirst(d): return "--throttle \(d)ns"
        case let .throttleLast(d): return "--throttle-last \(d)ns"
        case let .limit(n, d, b): return "--limit \(n)/\(d)ns --burst \(b)"
        case let .rate(n, d, b): return "--rate \(n)/\(d)ns --burst \(b)"
        }
    }
}

struct ReferenceEvent: Equatable, CustomStringConvertible {
    var time: Instant
    var key: String
    var line: String

    var description: String { "(\(time), \"\(key)\", \"\(line)\")" }
}

enum ReferenceModel {
    /// A line leaving the policy: which input event, and when. `order`
    /// places it among the outputs at its time (the event itself, a
    /// batch's first event, or the event that filled the batch);
    /// `batchIndex` and `batchSize` are its place in its batch (size 0
    /// without `--batch`).
    struct Emitted: Equatable {
        var time: Instant
        var event: Int
        var order: Int
        var batchIndex = 0
        var batchSize = 0

        init(time: Instant, event: Int, order: Int? = nil, batchIndex: Int = 0, batchSize: Int = 0) {
            self.time = time
            self.event = event
            self.order = order ?? event
            self.batchIndex = batchIndex
            self.batchSize = batchSize
        }
    }

    /// A stretch of time during which one key holds state (something pending
    /// or a window open): [start, end). SPEC says idle key state is forgotten,
    /// so outside these stretches the key must not be held.
    struct Busy: Equatable {
        var key: String
        var start: Instant
        var end: Instant
    }

    /// The lines `events` produce, with their emission times, in SPEC's
    /// output order. `events` have non-decreasing times.
    static func emissions(of events: [ReferenceEvent], policy: ReferencePolicy, keyed: Bool,
                          batch: Int? = nil) -> [PaceTesting.Emitted] {
        let (emitted, _) = run(events, policy: policy, keyed: keyed, batch: batch)
        return emitted.map { PaceTesting.Emitted(time: $0.time, events[$0.event].line) }
    }

    /// How many keys hold state at `instant`, once every event at or before
    /// it has been handled.
    static func keysHeld(at instant: Instant, busy: [Busy]) -> Int {
        busy.filter { $0.start <= instant && instant < $0.end }.count
    }

    /// The emissions in output order, and the busy stretches of every key.
    static func run(_ events: [ReferenceEvent], policy: ReferencePolicy, keyed: Bool,
                    batch: Int? = nil) -> ([Emitted], [Busy]) {
        for (a, b) in zip(events, events.dropFirst()) {
            precondition(a.time <= b.time, "ReferenceModel: event times must not decrease")
        }
        // Each key's events, in input order (unkeyed: one key for all).
        var keysInOrder: [String] = []
        var eventsOfKey: [String: [Int]] = [:]
        for (i, event) in events.enumerated() {
            let key = keyed ? event.key : ""
            if eventsOfKey[key] == nil { keysInOrder.append(key) }
            eventsOfKey[key, default: []].append(i)
        }

        var emitted: [Emitted] = []
        var busy: [Busy] = []
        for key in keysInOrder {
            let indices = eventsOfKey[key]!
            let times = indices.map { events[$0].time }
            let (keyEmissions, keyBusy) = batch.map { runOneKey(times: times, policy: policy, batch: $0) }
                ?? runOneKey(times: times, policy: policy)
            // Back from positions in the key's own stream to input positions.
            emitted += keyEmissions.map {
                Emitted(time: $0.time, event: indices[$0.event], order: indices[$0.order], batchIndex: $0.batchIndex,
                        batchSize: $0.batchSize)
            }
            busy += keyBusy.map { Busy(key: key, start: $0.start, end: $0.end) }
        }
        // SPEC's output order: by emission time, then input order of the
        // emitted events (each event is emitted at most once); a batch's
        // lines together, in input order.
        emitted.sort { ($0.time, $0.order, $0.batchIndex) < ($1.time, $1.order, $1.batchIndex) }
        return (emitted, busy)
    }

    /// One key's copy of the policy, over its events' times. Emissions and
    /// busy stretches refer to positions in `times`.
    private static func runOneKey(times t: [Instant], policy: ReferencePolicy) -> ([Emitted], [Busy]) {
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
                guard let m = maxWait else { return t[j] + d }
                return min(t[j] + d, f + m)
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
    fileprivate static func runOneKey(times t: [Instant], policy: ReferencePolicy, batch n: Int) -> ([Emitted], [Busy]) {
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
                guard let m = maxWait else { return t[j] + d }
                return min(t[j] + d, f + m)
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

// MARK: - The model's own tests

/// Hand-worked cases, so the model does not merely agree with the Scheduler
/// on a shared misreading of SPEC.
@Suite struct ReferenceModelTests {
    let ms: Nanoseconds = 1_000_000

    func events(_ list: [(Instant, String)], key: String = "") -> [ReferenceEvent] {
        list.map { ReferenceEvent(time: $0.0, key: key, line: $0.1) }
    }

    @Test func readmeExample() {
        let input = events([(0, "s"), (0 + 90 * ms, "sw"), (0 + 170 * ms, "swi"), (0 + 260 * ms, "swift")])
        #expect(ReferenceModel.emissions(of: input, policy: .debounce(window: 300 * ms, maxWait: nil), keyed: false)
            == [Emitted(time: 0 + 560 * ms, "swift")])
    }

    @Test func silenceOfExactlyDIsSilence() {
        let input = events([(0, "a"), (3, "b"), (6, "c")])
        #expect(ReferenceModel.emissions(of: input, policy: .debounce(window: 3, maxWait: nil), keyed: false)
            == [Emitted(time: 3, "a"), Emitted(time: 6, "b"), Emitted(time: 9, "c")])
        #expect(ReferenceModel.emissions(of: input, policy: .leading(window: 3), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 3, "b"), Emitted(time: 6, "c")])
        #expect(ReferenceModel.emissions(of: input, policy: .throttleFirst(window: 3), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 3, "b"), Emitted(time: 6, "c")])
        #expect(ReferenceModel.emissions(of: input, policy: .throttleLast(window: 3), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 3, "b"), Emitted(time: 6, "c")])
    }

    @Test func leadingTrailingEmitsABurstsFirstAndLast() {
        // D = 3: a burst a, b, c (each less than 3 after the one before)
        // ends at 2 + 3 = 5, where c goes out; d at 5 starts a burst of
        // one; e, 3 after d, another, and f, 1 after e, is its last (at 9).
        let input = events([(0, "a"), (1, "b"), (2, "c"), (5, "d"), (8, "e"), (9, "f")])
        let (emitted, busy) = ReferenceModel.run(input, policy: .leadingTrailing(window: 3), keyed: false)
        #expect(emitted.map { "\(input[$0.event].line)@\($0.time)" } == ["a@0", "c@5", "d@5", "e@8", "f@12"])
        #expect(busy == [.init(key: "", start: 0, end: 5), .init(key: "", start: 5, end: 8), .init(key: "", start: 8, end: 12)])
    }

    @Test func maxWaitInAnEndlessBurst() {
        let input = events((0..<10).map { (Instant($0), "e\($0)") })
        #expect(ReferenceModel.emissions(of: input, policy: .debounce(window: 3, maxWait: 4), keyed: false)
            == [Emitted(time: 4, "e3"), Emitted(time: 8, "e7"), Emitted(time: 12, "e9")])
    }

    @Test func throttleLastOpensItsWindowAtTheTrailingEmission() {
        let input = events([(0, "a"), (1, "b"), (3, "c"), (4, "d")])
        // a at 0; b waits for the end at 3, opening [3, 6); c at 3 comes
        // after that timer, so it waits in the new window, replaced by d.
        #expect(ReferenceModel.emissions(of: input, policy: .throttleLast(window: 3), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 3, "b"), Emitted(time: 6, "d")])
    }

    @Test func outputOrderAcrossKeys() {
        // Key x's window ends at 3 holding x2 (event 3); key y's ends at 3
        // holding y2 (event 2): y2 first, as it came first in the input.
        let input = [
            ReferenceEvent(time: 0, key: "x", line: "x1"),
            ReferenceEvent(time: 0, key: "y", line: "y1"),
            ReferenceEvent(time: 1, key: "y", line: "y2"),
            ReferenceEvent(time: 2, key: "x", line: "x2"),
        ]
        #expect(ReferenceModel.emissions(of: input, policy: .throttleLast(window: 3), keyed: true)
            == [Emitted(time: 0, "x1"), Emitted(time: 0, "y1"), Emitted(time: 3, "y2"), Emitted(time: 3, "x2")])
        #expect(ReferenceModel.emissions(of: input, policy: .throttleLast(window: 3), keyed: false)
            == [Emitted(time: 0, "x1"), Emitted(time: 3, "x2")])
    }

    @Test func limitTakesTokensExactly() {
        // 3 per 10 ns, bucket of 3: I = 10/3 ns, (B - 1) * I = 20/3 ns.
        // Three at 0 empty the bucket (A = 10); the next token comes at
        // A - 20/3 = 10/3, so d at 0 is dropped and e at 4 passes
        // (A = 40/3). The next comes at 20/3: f at 6 is dropped, g at 7
        // passes (A = 50/3), and h at exactly 10 too. (Rounding I to 3 ns
        // would pass f; to 4 ns, drop g.)
        let input = events([(0, "a"), (0, "b"), (0, "c"), (0, "d"), (4, "e"), (6, "f"), (7, "g"), (10, "h")])
        #expect(ReferenceModel.emissions(of: input, policy: .limit(count: 3, period: 10, burst: 3), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 0, "b"), Emitted(time: 0, "c"), Emitted(time: 4, "e"),
                Emitted(time: 7, "g"), Emitted(time: 10, "h")])
        // Bucket of 1: one at 0 (A = 10/3), the next from 10/3 on: e at 4
        // (A = 22/3), then from 22/3: g at 7 is early, h at 10 passes.
        #expect(ReferenceModel.emissions(of: input, policy: .limit(count: 3, period: 10, burst: 1), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 4, "e"), Emitted(time: 10, "h")])
    }

    @Test func limitOneIsThrottle() {
        let input = events([(0, "a"), (1, "b"), (3, "c"), (4, "d"), (6, "e"), (9, "f")])
        #expect(ReferenceModel.emissions(of: input, policy: .limit(count: 1, period: 3, burst: 1), keyed: false)
            == ReferenceModel.emissions(of: input, policy: .throttleFirst(window: 3), keyed: false))
    }

    @Test func rateDelaysToTheNextToken() {
        // 3 per 10 ns, bucket of 1: four at 0 go out at 0, ceil(10/3) = 4,
        // ceil(20/3) = 7 and 10; one at 11 waits for 40/3, so 14.
        let input = events([(0, "a"), (0, "b"), (0, "c"), (0, "d"), (11, "e")])
        #expect(ReferenceModel.emissions(of: input, policy: .rate(count: 3, period: 10, burst: 1), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 4, "b"), Emitted(time: 7, "c"), Emitted(time: 10, "d"),
                Emitted(time: 14, "e")])
        // Bucket of 2: two at once, then one every 10/3 from 10/3.
        #expect(ReferenceModel.emissions(of: input, policy: .rate(count: 3, period: 10, burst: 2), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 0, "b"), Emitted(time: 4, "c"), Emitted(time: 7, "d"),
                Emitted(time: 11, "e")])
    }

    @Test func rateBacklogsOfInterleavedKeys() {
        // 1 per 2 ns each; x's backlog goes out at 0, 2, 4, y's at 1, 3;
        // at 2 and 4 only x, in input order with y between.
        let input = [
            ReferenceEvent(time: 0, key: "x", line: "x1"),
            ReferenceEvent(time: 0, key: "x", line: "x2"),
            ReferenceEvent(time: 1, key: "y", line: "y1"),
            ReferenceEvent(time: 1, key: "x", line: "x3"),
            ReferenceEvent(time: 1, key: "y", line: "y2"),
        ]
        let (emitted, busy) = ReferenceModel.run(input, policy: .rate(count: 1, period: 2, burst: 1), keyed: true)
        #expect(emitted.map { "\(input[$0.event].line)@\($0.time)" } == ["x1@0", "y1@1", "x2@2", "y2@3", "x3@4"])
        // x's bucket is full again at 6 (A = 4 + 2), y's at 5.
        #expect(busy == [.init(key: "x", start: 0, end: 6), .init(key: "y", start: 1, end: 5)])
    }

    @Test func busyStretches() {
        let input = [
            ReferenceEvent(time: 0, key: "x", line: "x1"),
            ReferenceEvent(time: 1, key: "x", line: "x2"),
            ReferenceEvent(time: 5, key: "y", line: "y1"),
        ]
        let (_, busy) = ReferenceModel.run(input, policy: .throttleLast(window: 3), keyed: true)
        // x: [0, 3) emitting x1, then [3, 6) after x2 went out at 3.
        #expect(busy == [.init(key: "x", start: 0, end: 6), .init(key: "y", start: 5, end: 8)])
        #expect(ReferenceModel.keysHeld(at: 5, busy: busy) == 2)
        #expect(ReferenceModel.keysHeld(at: 6, busy: busy) == 1)
        #expect(ReferenceModel.keysHeld(at: 8, busy: busy) == 0)
    }
}
