// `clf`: the Apache / NCSA common log format stamp, `29/Nov/2026:12:00:00
// +0000`, usually inside `[ ]`. The reader skips the opening `[`; the closing
// `]` is left to the boundary rule (it is a terminator), so a stamp without
// brackets reads the same.

/// Reads `DD/Mon/YYYY:hh:mm:ss[.fraction][ ±hhmm]` at `start` into `stamp`:
/// where it ends, or nil when the text does not have that shape. Values are
/// not checked here.
///
/// - The day may have one digit, the month name any case (`nov`).
/// - A fraction after the seconds is accepted, as some servers (HAProxy)
///   write milliseconds there.
/// - The zone is optional (none means UTC), but spaces (one or more)
///   followed by a sign must be a zone (`+hhmm`, `+hh:mm` or `+hh`): a
///   broken one is no match rather than silently ignored.
func scanCLF(_ text: StampBytes, from start: Int, into stamp: inout CivilStamp) -> Int? {
    guard let (day, dayEnd) = shortNumber(text, at: start, maxDigits: 2),
          text[dayEnd] == UInt8(ascii: "/"),
          let (month, monthEnd) = monthName(text, at: dayEnd + 1, fullNames: false),
          text[monthEnd] == UInt8(ascii: "/"),
          let year = fourDigits(text, at: monthEnd + 1)
    else { return nil }
    var i = monthEnd + 5
    guard text[i] == UInt8(ascii: ":"), let (hour, minute, second) = clockTime(text, at: i + 1) else { return nil }
    i += 9
    (stamp.year, stamp.month, stamp.day) = (year, month, day)
    (stamp.hour, stamp.minute, stamp.second) = (hour, minute, second)
    if let (nanoseconds, end) = separatedFraction(text, at: i, allowComma: false) {
        stamp.nanoseconds = nanoseconds
        i = end
    }
    if let sign = signAfterSpaces(text, at: i) {
        guard let zone = utcOffset(text, at: sign, allowZ: false) else { return nil }
        stamp.setZone(zone)
        i = zone.end
    }
    return i
}
