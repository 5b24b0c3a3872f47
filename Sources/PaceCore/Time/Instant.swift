// Time in pace is an integer count of nanoseconds, as SPEC fixes it. Both
// instants and durations are plain Int64s behind typealiases: the hot path
// adds and compares them and nothing else, and saturating addition is the
// only arithmetic that needs care (a window added to a far-future timestamp
// must not trap).

/// A point on pace's clock, in nanoseconds since the clock's origin (the Unix
/// epoch in replay of absolute timestamps, an arbitrary origin otherwise).
public typealias Instant = Int64

/// A length of time in nanoseconds. Always positive for windows.
public typealias Nanoseconds = Int64

extension Int64 {
    /// `self + other`, pinned to `Int64.max` / `Int64.min` instead of trapping.
    /// Windows added to timestamps near the end of the representable range
    /// saturate: a deadline that far away simply never comes before input ends.
    @inlinable @inline(__always)
    public func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        if _fastPath(!overflow) { return sum }
        return other > 0 ? .max : .min
    }
}
