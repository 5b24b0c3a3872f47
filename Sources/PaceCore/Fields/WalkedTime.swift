// A replay line's unix time read where the JSON walk crosses it (issue 25).
// The walk for `--time-field NAME` checked the time member's number to its
// end (strict JSON), and the timestamp reader then parsed the same bytes
// again: about 120 and 110 instructions a line. Once the format is unix,
// the walk reads a number of ten digits, a dot and a fraction with the
// reader's own parser (`parseTenDigitSeconds`), checks the few things that
// parser lets through and JSON does not (a leading zero, no fraction digit,
// a byte other than a blank, `,`, `}` or `]` after it), and keeps the time.
// Any other number is checked as before and parsed by the reader as before,
// so the times and the members found are the same either way.

/// The time the last walk read as it crossed the time member (value 0).
struct WalkedTime {
    /// Value 0 is read as a unix time (the format is settled on `unix`).
    var reads = false
    /// The parser's first eight digits, kept from line to line.
    var leading = LeadingDigits()
    /// The time of the line last walked, when `found`.
    var instant = Instant(nanoseconds: 0)
    var found = false
}

extension JSONScanner {
    /// Where the value at `j` ends when it is a unix time the short parser
    /// reads and a strict JSON number; its time goes to `time`. -1 when it
    /// is not, to be checked as any value.
    @inline(__always)
    func unixTimeEnd(at j: Int, into time: inout WalkedTime) -> Int {
        guard case let .time(t, length)? = parseTenDigitSeconds(base, from: j, end: end, leading: &time.leading),
              length > 11, base.load(fromByteOffset: j, as: UInt8.self) != UInt8(ascii: "0"),
              endsScalar(at: j &+ length) else { return -1 }
        time.instant = t
        time.found = true
        return j &+ length
    }
}
