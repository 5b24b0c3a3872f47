// The clocks that drive the Scheduler. Time is a dependency: the scheduler
// never asks what time it is, one of these tells it.
//
// - VirtualClock (replay): time is the latest timestamp seen; it never runs
//   backwards, and counts the lines it had to hold back.
// - TestClock (tests): time moves only when told, so a 30 s window is tested
//   in microseconds and each advance releases exactly the emissions it should.
// - The live clock (monotonic, with a blocking wait) lives with the live loop.
//
// Replay and TestClock drive the very same Scheduler calls.

/// Replay's clock: the latest timestamp seen so far.
public struct VirtualClock: Sendable {
    /// The current virtual time: the latest time seen, 0 before any.
    public private(set) var now: Instant = 0
    private var started = false
    /// Lines whose timestamp was earlier than `now` and was treated as `now`.
    public private(set) var clamped: Int64 = 0

    public init() {}

    /// Moves to a line's timestamp and returns the time the event gets: the
    /// timestamp, or `now` if it is earlier (the clock never runs backwards).
    @inline(__always)
    public mutating func observe(_ t: Instant) -> Instant {
        if !started {
            started = true
            now = t
            return t
        }
        if t < now {
            clamped += 1
            return now
        }
        now = t
        return t
    }
}

/// A line that left a scheduler driven by a TestClock.
public struct Emission: Equatable, CustomStringConvertible, Sendable {
    public var time: Instant
    public var line: [UInt8]

    public init(time: Instant, line: [UInt8]) {
        self.time = time
        self.line = line
    }

    public init(time: Instant, _ line: String) {
        self.init(time: time, line: Array(line.utf8))
    }

    public var description: String { "\(String(decoding: line, as: UTF8.self))@\(time)" }
}

/// A sink that keeps every emission, for tests.
public struct RecordingSink: LineSink {
    public var emissions: [Emission] = []
    public init() {}
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        emissions.append(Emission(time: time, line: Array(line)))
    }
}

/// A scheduler on a clock that moves only when told.
public struct TestClock<P: Policy> where P.Payload == EventNumber {
    public private(set) var now: Instant
    public private(set) var scheduler: Scheduler<P, RecordingSink, NoObserver>
    private var taken = 0

    public init(policy: P, keyed: Bool = false, start: Instant = 0) {
        now = start
        scheduler = Scheduler(policy: policy, keyed: keyed, sink: RecordingSink(), countDistinctKeys: true)
    }

    /// An event now, with its line and key.
    public mutating func send(_ line: String, key: String = "") {
        var line = line
        var key = key
        line.withUTF8 { l in
            key.withUTF8 { k in
                // RecordingSink never fails.
                try! scheduler.send(UnsafeRawBufferPointer(l), key: UnsafeRawBufferPointer(k), at: now)
            }
        }
    }

    /// Moves time forward, firing every timer due on the way.
    public mutating func advance(by duration: Nanoseconds) {
        precondition(duration >= 0, "TestClock: time never runs backwards")
        advance(to: now + duration)
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
