// `syslog`: the RFC 3164 stamp, `Nov 29 12:00:00`, as classic syslogd, macOS
// and many embedded daemons write it. It carries no year: YearInference picks
// one.

/// Reads `Mon D hh:mm:ss[.fraction]` at `start` into `stamp`: where it ends,
/// or nil when the text does not have that shape. Values are not checked
/// here; the year is left to YearInference.
///
/// - The month is the three-letter abbreviation, any case.
/// - The day is zero-padded (`Nov 09`), space-padded (`Dec  1`, the RFC's
///   form) or bare (`Nov 9`, as Thunderbird's logs write it): one or more
///   spaces, then one or two digits.
/// - Some daemons add a fraction to the seconds (`.123456`); it is read.
func scanSyslog(_ text: StampBytes, from start: Int, into stamp: inout CivilStamp) -> Int? {
    guard let (month, monthEnd) = monthName(text, at: start, fullNames: false),
          text[monthEnd] == UInt8(ascii: " ")
    else { return nil }
    var i = monthEnd
    while text[i] == UInt8(ascii: " ") { i += 1 }
    guard let (day, dayEnd) = shortNumber(text, at: i, maxDigits: 2),
          text[dayEnd] == UInt8(ascii: " ")
    else { return nil }
    i = dayEnd
    while text[i] == UInt8(ascii: " ") { i += 1 }
    guard let (hour, minute, second) = clockTime(text, at: i) else { return nil }
    i += 8
    (stamp.month, stamp.day, stamp.hour, stamp.minute, stamp.second) = (month, day, hour, minute, second)
    if let (nanoseconds, end) = separatedFraction(text, at: i, allowComma: false) {
        stamp.nanoseconds = nanoseconds
        i = end
    }
    return i
}
