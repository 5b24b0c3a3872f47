// The arithmetic `--limit N/D` and `--rate N/D` share: SPEC's generic cell
// rate algorithm, exactly. Its emission interval I = D/N is a rational number
// of nanoseconds, and SPEC allows no rounding, so every instant the algorithm
// computes (the theoretical arrival time A, A - (B - 1) * I, a waiting event's
// emission time) is a multiple of 1/N ns, kept as an `ExactInstant`: a whole
// nanosecond `ceiling` and how far below it the value lies, in 1/N ns.
//
// Keeping the ceiling is what the policies ask of an instant: an event at an
// integer t passes iff t >= X, which is t >= ceil(X); a delayed line goes out
// at ceil(e); a key's bucket is full again, and the key idle, at ceil(A). So
// no division is ever done on the per-line path, only additions and
// comparisons.
//
// Bounds. Instants t are Int64, so |t| < 2^63. D, N and B are positive Int64s
// (the command line allows N <= 10^9, D up to Int64.max ns, B up to
// Int64.max), so I = D/N <= D < 2^63 and the tolerance (B - 1) * I < 2^126.
// A = max(A, t) + I: it is some event's t0 plus k * I, k the events since
// then, and k < 2^63 (events are counted in Int64), so
// -2^63 <= A < 2^63 + 2^126. Every other value here is A - tolerance (above
// -2^63 - 2^126) or a waiting event's emission time, which lies between its
// event's t and A; so |value| < 2^63 + 2^126 < 2^127: the ceilings fit
// Int128, and so does every intermediate sum. `below` is < N < 2^63.

/// A multiple of 1/N nanosecond: `ceiling - below / N`, with 0 <= below < N.
///
/// The ceiling is kept as two 64-bit halves rather than an Int128, whose
/// 16-byte alignment would pad every key's state from 24 bytes to 32 (and a
/// policy's enum around it to 48).
package struct ExactInstant: Equatable, Sendable {
    private var high: Int64
    private var low: UInt64
    /// How far the value lies below `ceiling`, in 1/N ns (0 when whole).
    package var below: Int64

    /// The value rounded up to a whole nanosecond.
    @inline(__always)
    package var ceiling: Int128 {
        get { Int128(high) << 64 | Int128(low) }
        set {
            high = Int64(truncatingIfNeeded: newValue >> 64)
            low = UInt64(truncatingIfNeeded: newValue)
        }
    }

    /// The whole instant `t`.
    @inline(__always)
    package init(_ t: Instant) {
        high = t.nanoseconds < 0 ? -1 : 0
        low = UInt64(bitPattern: t.nanoseconds)
        below = 0
    }

    @inline(__always)
    package init(ceiling: Int128, below: Int64) {
        high = Int64(truncatingIfNeeded: ceiling >> 64)
        low = UInt64(truncatingIfNeeded: ceiling)
        self.below = below
    }

    /// The ceiling as an Instant, pinned to the representable range: no
    /// event comes after the last instant or before the first, so an event
    /// compares with the pinned value as with the exact one.
    @inline(__always)
    package var instant: Instant {
        if ceiling > Int128(Instant.max.nanoseconds) { return .max }
        if ceiling < Int128(Instant.min.nanoseconds) { return .min }
        return Instant(nanoseconds: Int64(ceiling))
    }
}

/// N tokens per D, in a bucket of B: the emission interval I = D/N and the
/// tolerance (B - 1) * I, both split into whole nanoseconds and a rest in
/// 1/N ns.
package struct CellRate: Equatable, Sendable {
    /// N: tokens per period.
    package let count: Int64
    /// D, in nanoseconds.
    package let period: Nanoseconds
    /// B: the bucket's size.
    package let burst: Int64
    /// I = intervalWhole + intervalRest / N.
    let intervalWhole: Int64
    let intervalRest: Int64
    /// (B - 1) * I = toleranceWhole + toleranceRest / N.
    let toleranceWhole: Int128
    let toleranceRest: Int64

    package init(count: Int64, per period: Nanoseconds, burst: Int64) {
        precondition(count > 0 && period.count >= count, "CellRate: need 0 < N <= D's nanoseconds (got \(count)/\(period))")
        precondition(burst > 0, "CellRate: the burst must be positive (got \(burst))")
        self.count = count
        self.period = period
        self.burst = burst
        intervalWhole = period.count / count
        intervalRest = period.count % count
        // (B - 1) * D < 2^126, computed once.
        let tolerance = Int128(burst - 1) * Int128(period.count)
        toleranceWhole = tolerance / Int128(count)
        toleranceRest = Int64(tolerance % Int128(count))
    }

    /// `x + I`.
    @inline(__always)
    func addingInterval(_ x: ExactInstant) -> ExactInstant {
        var ceiling = x.ceiling + Int128(intervalWhole)
        var below = x.below - intervalRest
        if below < 0 {
            below += count
            ceiling += 1
        }
        return ExactInstant(ceiling: ceiling, below: below)
    }

    /// `x - (B - 1) * I`.
    @inline(__always)
    func subtractingTolerance(_ x: ExactInstant) -> ExactInstant {
        // x - tolerance = (c - tw) - (below + tr) / N, and below + tr < 2N.
        let below = x.below + toleranceRest
        if below >= count {
            return ExactInstant(ceiling: x.ceiling - toleranceWhole - 1, below: below - count)
        }
        return ExactInstant(ceiling: x.ceiling - toleranceWhole, below: below)
    }

    /// Whether an event at `t` finds a token, the theoretical arrival time
    /// being `a`: t >= A - (B - 1) * I, which for a whole t is
    /// t >= ceil(A - (B - 1) * I).
    @inline(__always)
    func hasToken(at t: Instant, arrival a: ExactInstant) -> Bool {
        Int128(t.nanoseconds) >= subtractingTolerance(a).ceiling
    }

    /// A after an event at `t` takes a token: max(A, t) + I. (A <= t exactly
    /// when ceil(A) <= t, t being whole.)
    @inline(__always)
    func taking(at t: Instant, from a: ExactInstant?) -> ExactInstant {
        guard let a, a.ceiling > Int128(t.nanoseconds) else { return addingInterval(ExactInstant(t)) }
        return addingInterval(a)
    }
}
