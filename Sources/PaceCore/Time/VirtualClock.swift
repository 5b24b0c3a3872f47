// The clocks that drive the Scheduler. Time is a dependency: the scheduler
// never asks what time it is, one of these tells it.
//
// - VirtualClock (replay): time is the latest timestamp seen; it never runs
//   backwards, and counts the lines it had to hold back.
// - The live clock (monotonic, with a blocking wait) lives with live mode.
// - The tests' TestClock (in PaceTesting) moves only when told, so a 30 s
//   window is tested in microseconds; it drives the very same Scheduler calls.

/// Replay's clock: the latest timestamp seen so far.
package struct VirtualClock: Sendable {
    /// The current virtual time: the latest time seen, 0 before any.
    package private(set) var now: Instant = 0
    private var started = false
    /// Lines whose timestamp was earlier than `now` and was treated as `now`.
    package private(set) var clamped: Int64 = 0

    package init() {}

    /// Moves to a line's timestamp and returns the time the event gets: the
    /// timestamp, or `now` if it is earlier (the clock never runs backwards).
    @inline(__always)
    package mutating func observe(_ t: Instant) -> Instant {
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
