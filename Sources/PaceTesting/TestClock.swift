// A scheduler on a clock that moves only when a test says so: a 30 s window
// is tested in microseconds, and each advance releases exactly the emissions
// it should. It drives the very Scheduler calls replay makes.

import PaceCore

/// A scheduler on a clock that moves only when told.
package struct TestClock<P: Policy> where P.Payload == EventNumber {
    /// The scheduler, unkeyed or keyed (chosen when the clock is made).
    private enum Runtime: ~Copyable {
        case one(Scheduler<P, OneKey<P.State>, RecordingSink, RunInsight>)
        case many(Scheduler<P, ManyKeys<P.State>, RecordingSink, RunInsight>)

        mutating func with(_ one: (inout Scheduler<P, OneKey<P.State>, RecordingSink, RunInsight>) throws(OutputError) -> Void,
                           _ many: (inout Scheduler<P, ManyKeys<P.State>, RecordingSink, RunInsight>) throws(OutputError) -> Void) {
            switch consume self {
            case var .one(scheduler):
                try! one(&scheduler)
                self = .one(scheduler)
            case var .many(scheduler):
                try! many(&scheduler)
                self = .many(scheduler)
            }
        }
    }

    /// Holds the (noncopyable) scheduler, so that the clock is a plain
    /// value a test can pass to `#expect`.
    private final class Box {
        var runtime: Runtime
        init(_ runtime: consuming Runtime) { self.runtime = runtime }
    }

    package private(set) var now: Instant
    private let box: Box
    private var taken = 0

    package init(policy: P, keyed: Bool = false, start: Instant = 0) {
        now = start
        box = Box(keyed
            ? .many(Scheduler(policy: policy, keys: ManyKeys<P.State>.self, sink: RecordingSink(), observer: RunInsight.distinctKeys))
            : .one(Scheduler(policy: policy, keys: OneKey<P.State>.self, sink: RecordingSink(), observer: RunInsight.distinctKeys)))
    }

    /// Runs `body` on whichever scheduler this clock drives. RecordingSink
    /// never fails, so neither does `body`.
    private mutating func with(_ one: (inout Scheduler<P, OneKey<P.State>, RecordingSink, RunInsight>) throws(OutputError) -> Void,
                               _ many: (inout Scheduler<P, ManyKeys<P.State>, RecordingSink, RunInsight>) throws(OutputError) -> Void) {
        box.runtime.with(one, many)
    }

    /// An event now, with its line and key.
    package mutating func send(_ line: String, key: String = "") { send(line, key: key, at: now) }

    /// An event at `time` (the scheduler first fires what is due by then).
    package mutating func send(_ line: String, key: String = "", at time: Instant) {
        now = max(now, time)
        var line = Array(line.utf8)
        var key = Array(key.utf8)
        nextNumber += 1
        let (t, number) = (time, nextNumber)
        line.withUnsafeMutableBytes { l in
            key.withUnsafeMutableBytes { k in
                let (l, k) = (UnsafeRawBufferPointer(l), UnsafeRawBufferPointer(k))
                with({ (s) throws(OutputError) in try s.send(l, key: k, at: t, number: number) },
                     { (s) throws(OutputError) in try s.send(l, key: k, at: t, number: number) })
            }
        }
    }

    private var nextNumber: EventNumber = 0

    /// Moves time forward, firing every timer due on the way.
    package mutating func advance(by duration: Nanoseconds) {
        precondition(duration >= 0, "TestClock: time never runs backwards")
        advance(to: now.saturatingAdd(duration))
    }

    /// Moves time to `instant`, firing every timer due on the way.
    package mutating func advance(to instant: Instant) {
        precondition(instant >= now, "TestClock: time never runs backwards")
        now = instant
        with({ (s) throws(OutputError) in try s.advance(to: instant) },
             { (s) throws(OutputError) in try s.advance(to: instant) })
    }

    /// End of input, as replay ends it: the clock runs on until no timer is left.
    package mutating func finish() {
        with({ (s) throws(OutputError) in try s.finish() }, { (s) throws(OutputError) in try s.finish() })
        if let last = emissions.last, last.time > now { now = last.time }
    }

    /// Live mode's end of input at `time`: what is due by then fires as the
    /// live loop would have fired it, the rest is emitted at once.
    package mutating func finishLive(at time: Instant) {
        now = max(now, time)
        with({ (s) throws(OutputError) in try s.advance(to: time); try s.finish(emittingAt: time) },
             { (s) throws(OutputError) in try s.advance(to: time); try s.finish(emittingAt: time) })
    }

    /// Every emission so far.
    package var emissions: [Emitted] {
        switch box.runtime {
        case let .one(scheduler): return scheduler.sink.emissions
        case let .many(scheduler): return scheduler.sink.emissions
        }
    }

    /// Each emission's place in its `--batch`, in emission order.
    package var batchPlaces: [BatchPlace] {
        switch box.runtime {
        case let .one(scheduler): return scheduler.sink.batchPlaces
        case let .many(scheduler): return scheduler.sink.batchPlaces
        }
    }

    /// The emissions since the last call (for asserting step by step).
    package mutating func takeEmissions() -> [Emitted] {
        let all = emissions
        defer { taken = all.count }
        return Array(all[taken...])
    }

    /// When the next timer is due that live mode would wake for (not one
    /// that only forgets).
    package var nextDeadline: Instant? {
        switch box.runtime {
        case let .one(scheduler): return scheduler.nextDeadline
        case let .many(scheduler): return scheduler.nextDeadline
        }
    }

    /// Keys with state held.
    package var heldKeys: Int {
        switch box.runtime {
        case let .one(scheduler): return scheduler.heldKeys
        case let .many(scheduler): return scheduler.heldKeys
        }
    }

    /// The scheduler's counters.
    package var stats: SchedulerStats {
        switch box.runtime {
        case let .one(scheduler): return scheduler.stats
        case let .many(scheduler): return scheduler.stats
        }
    }

    /// True when no timer is set (nothing pending, no window open), not
    /// even one that only forgets.
    package var isQuiet: Bool {
        switch box.runtime {
        case let .one(scheduler): return !scheduler.hasTimers
        case let .many(scheduler): return !scheduler.hasTimers
        }
    }
}
