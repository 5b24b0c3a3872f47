// Durations as SPEC writes them: a decimal number and a unit (`300ms`, `1.5s`,
// `.5s`, `2m`, `250us`). Parsed with integer arithmetic only, truncating below
// one nanosecond, and checked for overflow: `9999999999h` is an error, never a
// trap or a silent wrap.

package enum DurationUnit: CaseIterable, Sendable {
    case ns, us, ms, s, m, h

    var nanoseconds: Int64 {
        switch self {
        case .ns: return 1
        case .us: return 1_000
        case .ms: return 1_000_000
        case .s: return 1_000_000_000
        case .m: return 60_000_000_000
        case .h: return 3_600_000_000_000
        }
    }
}

/// Why a duration did not parse.
package enum DurationError: Error, Equatable, Sendable {
    case empty
    case noNumber
    /// The number ends the text: no unit at all (`300`).
    case missingUnit
    case unknownUnit
    case tooLarge
    /// The byte at this offset cannot follow what comes before it: `1..5s`,
    /// `1,5s`, `1_000ms`, `3 s` (at 2, 1, 1 and 1).
    case unexpected(offset: Int)
}

/// A number with a unit at the start of `text`: its value in nanoseconds and
/// the number of bytes it took. The unit is the longest that fits (`ms`
/// before `m`); the caller decides what may follow.
func scanDuration(_ text: UnsafeRawBufferPointer, from start: Int = 0,
                  negative: Bool = false) -> (Result<Int64, DurationError>, end: Int) {
    let n = text.count
    var i = start
    var whole: UInt64 = 0
    var wholeDigits = 0
    var overflow = false
    while i < n, let d = digit(text[i]) {
        let (m, o1) = whole.multipliedReportingOverflow(by: 10)
        let (a, o2) = m.addingReportingOverflow(UInt64(d))
        if o1 || o2 { overflow = true }
        whole = a
        wholeDigits += 1
        i += 1
    }
    // Fraction digits beyond 18 cannot change a nanosecond count of any unit
    // (the largest unit is 3.6e12 ns), so they are read and ignored.
    var fraction: UInt64 = 0
    var fractionScale: UInt64 = 1
    var fractionDigits = 0
    if i < n, text[i] == UInt8(ascii: ".") {
        i += 1
        while i < n, let d = digit(text[i]) {
            if fractionDigits < 18 {
                fraction = fraction * 10 + UInt64(d)
                fractionScale *= 10
            }
            fractionDigits += 1
            i += 1
        }
    }
    if wholeDigits == 0 && fractionDigits == 0 { return (.failure(start == n ? .empty : .noNumber), i) }
    guard let (unit, unitEnd) = scanUnit(text, from: i) else {
        let isLetter = i < n && isASCIILetter(text[i])
        return (.failure(isLetter ? .unknownUnit : .missingUnit), i)
    }
    if overflow { return (.failure(.tooLarge), unitEnd) }
    let unitNs = UInt64(unit.nanoseconds)
    let (wholeNs, o) = whole.multipliedReportingOverflow(by: unitNs)
    // fraction * unit / scale, exact in 128 bits, truncated.
    let product = fraction.multipliedFullWidth(by: unitNs)
    let fractionNs = fractionScale.dividingFullWidth(product).quotient
    let (total, o2) = wholeNs.addingReportingOverflow(fractionNs)
    guard !o && !o2, let ns = signedNanoseconds(total, negative: negative) else { return (.failure(.tooLarge), unitEnd) }
    return (.success(ns), unitEnd)
}

/// A count of nanoseconds of `magnitude`, negated if `negative`; nil when it
/// does not fit an Int64 (the earliest instant, -2^63, is one further from 0
/// than the latest).
func signedNanoseconds(_ magnitude: UInt64, negative: Bool) -> Int64? {
    guard magnitude <= UInt64(Int64.max) + (negative ? 1 : 0) else { return nil }
    return negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
}

private func scanUnit(_ text: UnsafeRawBufferPointer, from i: Int) -> (DurationUnit, Int)? {
    let n = text.count
    guard i < n else { return nil }
    let c0 = text[i]
    let c1: UInt8 = i + 1 < n ? text[i + 1] : 0
    switch (c0, c1) {
    case (UInt8(ascii: "n"), UInt8(ascii: "s")): return (.ns, i + 2)
    case (UInt8(ascii: "u"), UInt8(ascii: "s")): return (.us, i + 2)
    case (UInt8(ascii: "m"), UInt8(ascii: "s")): return (.ms, i + 2)
    case (UInt8(ascii: "s"), _): return (.s, i + 1)
    case (UInt8(ascii: "m"), _): return (.m, i + 1)
    case (UInt8(ascii: "h"), _): return (.h, i + 1)
    default: return nil
    }
}

/// Parses a whole duration argument, as given to `--debounce` and friends.
package func parseDuration(_ text: String) -> Result<Int64, DurationError> {
    var copy = text
    return copy.withUTF8 { utf8 in
        let raw = UnsafeRawBufferPointer(utf8)
        let (result, end) = scanDuration(raw)
        switch result {
        case .failure(.missingUnit) where end < raw.count:
            // Something follows the number, but not a unit.
            return .failure(.unexpected(offset: end))
        case .failure: return result
        case .success:
            if end != raw.count {
                return .failure(isASCIILetter(raw[end]) ? .unknownUnit : .unexpected(offset: end))
            }
            return result
        }
    }
}

@inline(__always)
func digit(_ byte: UInt8) -> UInt8? {
    let d = byte &- UInt8(ascii: "0")
    return d < 10 ? d : nil
}

@inline(__always)
func isASCIILetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) &- UInt8(ascii: "a") < 26
}
