// The named calendar formats (`iso8601`, `clf`, `syslog`): each one's scanner
// reads the shape, then this checks SPEC's boundary rule and the calendar.
// The shape and the boundary come first, so that only text that really has
// the format's shape can be called impossible: under `auto`, `2026-13-01x` is
// simply not iso8601, while `2026-13-01T00:00Z` is an impossible one.

/// Parses a calendar timestamp (`.iso8601`, `.clf`, `.syslog`) at `start`.
func parseCalendar(_ format: TimeFormat, _ text: UnsafeRawBufferPointer, from start: Int, context: YearContext) -> FormatResult {
    let bytes = StampBytes(text)
    var stamp = CivilStamp()
    let scanned: Int?
    let hasYear: Bool
    switch format {
    case .iso8601: (scanned, hasYear) = (scanISO8601(bytes, from: start, into: &stamp), true)
    case .clf: (scanned, hasYear) = (scanCLF(bytes, from: start, into: &stamp), true)
    case .syslog: (scanned, hasYear) = (scanSyslog(bytes, from: start, into: &stamp), false)
    case .auto, .unix, .unixMs, .unixUs, .unixNs, .offset, .record, .pattern:
        preconditionFailure("parseCalendar: \(format.name) is not a calendar format")
    }
    guard let end = scanned else { return .noMatch }
    if end < bytes.count && !isTimestampTerminator(bytes[end]) { return .noMatch }
    let resolution = hasYear ? stamp.resolved : resolveYearless(stamp, context: context)
    switch resolution {
    case let .instant(t): return .time(t, length: end - start)
    case .impossible: return .bad(.impossible(format: format.name))
    case .outOfRange: return .bad(.outOfRange)
    }
}
