// `iso8601`: `2026-11-29T12:00:00.123Z` and the log4j-style variants real logs
// write (`2026-11-29 12:00:00,123`). Only the calendar-date, extended form is
// read: that is what logs print, and the basic form (`20261129T120000`) is
// too close to a bare number for `auto` to guess safely; a pattern reads it.

/// Reads the shape `YYYY-MM-DD(T| )hh:mm[:ss[(.|,)fraction]][zone]` at
/// `start` into `stamp`: where it ends, or nil when the text does not have
/// that shape. Values are not checked here.
///
/// - The date and time are separated by `T` (or `t`, as RFC 3339 allows) or
///   by one space.
/// - Seconds may be left out (`2026-11-29T12:00Z`): ISO 8601 allows a time
///   to the minute, and `hh:mm` followed by a terminator cannot be misread as
///   anything else. A fraction needs the seconds before it.
/// - The fraction is `.` or `,` and any number of digits, truncated below a
///   nanosecond. A `,` not followed by a digit is no fraction: the stamp ends
///   before it, which is how `2016-09-28 04:30:30, Info` (Windows CBS logs)
///   reads as iso8601.
/// - The zone is `Z`, `+hh`, `+hhmm` or `+hh:mm` (or `-`); none means UTC.
///   Spaces before a full `+hhmm` or `+hh:mm` are also read as the zone:
///   git, Ruby and many loggers write `2026-11-29 12:00:00 +0100`, and reading
///   that as UTC, the zone left over as text, would be off by an hour without
///   a word. The short `+hh` is not taken after a space (`+12 items`).
func scanISO8601(_ text: StampBytes, from start: Int, into stamp: inout CivilStamp) -> Int? {
    guard let year = fourDigits(text, at: start),
          text[start + 4] == UInt8(ascii: "-"),
          let month = twoDigits(text, at: start + 5),
          text[start + 7] == UInt8(ascii: "-"),
          let day = twoDigits(text, at: start + 8)
    else { return nil }
    var i = start + 10
    switch text[i] {
    case UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " "): i += 1
    default: return nil
    }
    guard let hour = twoDigits(text, at: i),
          text[i + 2] == UInt8(ascii: ":"),
          let minute = twoDigits(text, at: i + 3)
    else { return nil }
    i += 5
    (stamp.year, stamp.month, stamp.day, stamp.hour, stamp.minute) = (year, month, day, hour, minute)
    if text[i] == UInt8(ascii: ":"), let second = twoDigits(text, at: i + 1) {
        stamp.second = second
        i += 3
        if let (nanoseconds, end) = separatedFraction(text, at: i, allowComma: true) {
            stamp.nanoseconds = nanoseconds
            i = end
        }
    }
    if let zone = utcOffset(text, at: i) {
        stamp.setZone(zone)
        i = zone.end
    } else if let sign = signAfterSpaces(text, at: i),
              let zone = utcOffset(text, at: sign, allowZ: false), zone.end - sign >= 5 {
        stamp.setZone(zone)
        i = zone.end
    }
    return i
}
