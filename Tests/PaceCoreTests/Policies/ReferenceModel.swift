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
//
// One key's copy of each policy is in ReferenceModelPolicies.swift; the
// model's own tests, in ReferenceModelTests.swift.

import PaceCore
import PaceTesting

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
}
