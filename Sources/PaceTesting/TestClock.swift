// A scheduler on a clock that moves only when a test says so: a 30 s window
// is tested in microseconds, and each advance releases exactly the emissions
// it should. It drives the very Scheduler calls replay makes.

import PaceCore

/// A scheduler on a clock that moves only when told.
public struct TestClock<P: Policy> where P.Payload == EventNumber {
    public private(set) var now: Instant
    public private(set) var scheduler: Scheduler<P, RecordingSink, NoObserver>
    private var taken = 0
    /// Events are numbered 1, 2, ... in the order they are sent.
    private var sent: EventNumber = 0

    public init(policy: P, keyed: Bool = false, start: Instant = 0) {
        now = start
        scheduler = Scheduler(policy: policy, keyed: keyed, sink: RecordingSink(), observer: NoObserver(), countDistinctKeys: true)
    }

    /// An event now, with its line and key.
    public mutating func send(_ line: String, key: String = "") {
        var line = line
        var key = key
        sent += 1
        let number = sent
        line.withUTF8 { l in
            key.withUTF8 { k in
                // RecordingSink never fails.
                try! scheduler.send(UnsafeRawBufferPointer(l), key: UnsafeRawBufferPointer(k), at: now, number: number)
            }
        }
    }

    /// Moves time forward, firing every timer due on the way.
    public mutating func advance(by duration: Nanoseconds) {
        precondition(duration >= 0, "TestClock: time never runs backwards")
        advance(to: now.saturatingAdd(duration))
    }

    /// Moves time to `instant`, firing every timer due on the way.
    public mutating func advance(to instant: Instant) {
        precondition(instant >= now, "TestClock: time never runs backwards")
        now = instant
        try! scheduler.advance(to: instant)
    }

    /// End of input, as replay ends it: the clock runs on until no timer is left.
    public mutating func finish() {
        try! scheduler.finish()
        if let last = scheduler.sink.emissions.last, last.time > now { now = last.time }
    }

    /// Every emission so far.
    public var emissions: [Emission] { scheduler.sink.emissions }

    /// The emissions since the last call (for asserting step by step).
    public mutating func takeEmissions() -> [Emission] {
        let all = scheduler.sink.emissions
        defer { taken = all.count }
        return Array(all[taken...])
    }

    /// True when no timer is set (nothing pending, no window open).
    public var isQuiet: Bool { scheduler.nextDeadline == nil }
}
