// Time in pace is an integer count of nanoseconds, as SPEC fixes it. An
// instant (a point on a clock) and a duration (a length of time) are distinct
// types, so that the arithmetic that makes no sense does not compile: an
// instant plus an instant, a window compared with a timestamp. Both are a
// single Int64 and every operation is inlined, so they cost nothing on the
// hot path (callgrind counts the same instructions as with bare Int64s).
//
// Saturating addition is the only arithmetic that needs care: a window added
// to a far-future timestamp must not trap.

/// A point on pace's clock, in nanoseconds since the clock's origin (the Unix
/// epoch in replay of absolute timestamps, an arbitrary origin otherwise).
@frozen
package struct Instant: Comparable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// Nanoseconds since the origin.
    package var nanoseconds: Int64

    @inlinable @inline(__always)
    package init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The instant `nanoseconds` after the origin.
    @inlinable @inline(__always)
    package init<T: BinaryInteger>(_ nanoseconds: T) { self.nanoseconds = Int64(nanoseconds) }

    @inlinable @inline(__always)
    package init(integerLiteral value: Int64) { nanoseconds = value }

    package static let max = Instant(nanoseconds: .max)
    package static let min = Instant(nanoseconds: .min)

    @inlinable @inline(__always)
    package static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    /// `self + duration`, pinned to `.max` / `.min` instead of trapping.
    /// Windows added to timestamps near the end of the representable range
    /// saturate: a deadline that far away simply never comes before input ends.
    @inlinable @inline(__always)
    package func saturatingAdd(_ duration: Nanoseconds) -> Instant {
        Instant(nanoseconds: nanoseconds.saturatingAdd(duration.count))
    }

    /// The time from `origin` to `self`, pinned instead of trapping.
    @inlinable @inline(__always)
    package func saturatingDistance(from origin: Instant) -> Nanoseconds {
        let (difference, overflow) = nanoseconds.subtractingReportingOverflow(origin.nanoseconds)
        if _fastPath(!overflow) { return Nanoseconds(difference) }
        return origin.nanoseconds < 0 ? .max : Nanoseconds(Int64.min)
    }

    @inlinable @inline(__always)
    package static func + (t: Instant, d: Nanoseconds) -> Instant { Instant(nanoseconds: t.nanoseconds + d.count) }

    @inlinable @inline(__always)
    package static func - (t: Instant, d: Nanoseconds) -> Instant { Instant(nanoseconds: t.nanoseconds - d.count) }

    /// The time from `b` to `a`.
    @inlinable @inline(__always)
    package static func - (a: Instant, b: Instant) -> Nanoseconds { Nanoseconds(a.nanoseconds - b.nanoseconds) }

    @inlinable @inline(__always)
    package static func += (t: inout Instant, d: Nanoseconds) { t = t + d }

    package var description: String { String(nanoseconds) }
}

/// A length of time in nanoseconds. Always positive for windows.
@frozen
package struct Nanoseconds: Comparable, Hashable, Sendable, AdditiveArithmetic, ExpressibleByIntegerLiteral,
    CustomStringConvertible {
    package var count: Int64

    @inlinable @inline(__always)
    package init(_ count: Int64) { self.count = count }

    @inlinable @inline(__always)
    package init<T: BinaryInteger>(_ count: T) { self.count = Int64(count) }

    @inlinable @inline(__always)
    package init(integerLiteral value: Int64) { count = value }

    package static let zero = Nanoseconds(0)
    package static let max = Nanoseconds(Int64.max)

    @inlinable @inline(__always)
    package static func < (a: Nanoseconds, b: Nanoseconds) -> Bool { a.count < b.count }

    @inlinable @inline(__always)
    package static func + (a: Nanoseconds, b: Nanoseconds) -> Nanoseconds { Nanoseconds(a.count + b.count) }

    @inlinable @inline(__always)
    package static func - (a: Nanoseconds, b: Nanoseconds) -> Nanoseconds { Nanoseconds(a.count - b.count) }

    @inlinable @inline(__always)
    package static func * (d: Nanoseconds, n: Int64) -> Nanoseconds { Nanoseconds(d.count * n) }

    @inlinable @inline(__always)
    package static func * (n: Int64, d: Nanoseconds) -> Nanoseconds { Nanoseconds(n * d.count) }

    /// How many times `b` fits in `a`.
    @inlinable @inline(__always)
    package static func / (a: Nanoseconds, b: Nanoseconds) -> Int64 { a.count / b.count }

    @inlinable @inline(__always)
    package static func / (d: Nanoseconds, n: Int64) -> Nanoseconds { Nanoseconds(d.count / n) }

    @inlinable @inline(__always)
    package static prefix func - (d: Nanoseconds) -> Nanoseconds { Nanoseconds(-d.count) }

    package var description: String { String(count) }
}

extension Int64 {
    /// `self + other`, pinned to `Int64.max` / `Int64.min` instead of trapping.
    @inlinable @inline(__always)
    package func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        if _fastPath(!overflow) { return sum }
        return other > 0 ? .max : .min
    }
}
