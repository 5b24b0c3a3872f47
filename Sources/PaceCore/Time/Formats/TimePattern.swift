// strptime-style `--time-format` patterns (`%Y-%m-%d %H:%M:%S,%f`). A pattern
// is compiled once, when the arguments are read, into a flat list of small
// operations; matching a line walks that list over the bytes at the time
// field with a cursor and a few integers: no String, no allocation, a few
// byte comparisons per directive.

/// One step of a compiled pattern.
enum PatternOp: Equatable, Sendable {
    /// Any other pattern byte, and `%%`: that very byte.
    case literal(UInt8)
    /// A space in the pattern (or several): one or more spaces or tabs.
    case blanks
    /// `%Y`: exactly 4 digits.
    case year
    /// `%y`: exactly 2 digits, 69-99 being 19xx and 00-68 20xx (POSIX's split).
    case shortYear
    /// `%m %d %H %M %S`: 1 or 2 digits.
    case month, day, hour, minute, second
    /// `%e`: the day, space-padded: an optional space, then 1 or 2 digits.
    case paddedDay
    /// `%f`: fraction digits, any number, truncated below a nanosecond.
    case fraction
    /// `%L`: whole milliseconds, 1 to 3 digits (`:11` is 11 ms, not 110).
    case milliseconds
    /// `%b`: a month name or abbreviation, any case.
    case monthName
    /// `%a`: a weekday name or abbreviation, any case; read and ignored.
    case weekdayName
    /// `%z`: `Z`, `+hh`, `+hhmm`, `+hh:mm` (or `-`).
    case zone
    /// `%s`: seconds since the epoch, an integer (a `-` allowed).
    case epochSeconds
}

/// A compiled strptime-style `--time-format` pattern.
package struct TimePattern: Equatable, Sendable {
    /// The pattern as the user typed it.
    package let source: String
    let ops: [PatternOp]
    /// `%Y` or `%y`: the stamp says its year.
    let hasYear: Bool
    /// `%s`: the stamp says its instant outright.
    let hasEpoch: Bool
    /// `%m %d %e %b`: the stamp has a date. Without a year (or `%s`) its
    /// year is inferred (SPEC); with no date at all it is on 1970-01-01.
    let hasDate: Bool

    /// Compiles `source`; the error message names the unknown directive.
    package static func compile(_ source: String) -> Result<TimePattern, PatternError> {
        compile(bytes: Array(source.utf8))
    }

    /// Compiles a pattern given as the bytes of its argument: a byte that is
    /// not UTF-8 matches itself, as every other literal byte does (messages
    /// show it as U+FFFD).
    package static func compile(bytes: [UInt8]) -> Result<TimePattern, PatternError> {
        let source = String(decoding: bytes, as: UTF8.self)
        var ops: [PatternOp] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: " ") {
                // A run of spaces in the pattern is one run of blanks: two
                // greedy runs in a row could never both match.
                if ops.last != .blanks { ops.append(.blanks) }
                i += 1
                continue
            }
            guard b == UInt8(ascii: "%") else {
                ops.append(.literal(b))
                i += 1
                continue
            }
            guard i + 1 < bytes.count else {
                return .failure(PatternError(description: "incomplete directive '%' at the end of --time-format '\(source)'"))
            }
            guard let op = directive(bytes[i + 1]) else {
                let length = utf8SequenceLength(bytes[i + 1])
                let name = String(decoding: bytes[(i + 1)..<min(i + 1 + length, bytes.count)], as: UTF8.self)
                return .failure(PatternError(description: "unknown directive '%\(name)' in --time-format '\(source)'"))
            }
            ops.append(op)
            i += 2
        }
        return .success(TimePattern(
            source: source,
            ops: ops,
            hasYear: ops.contains { $0 == .year || $0 == .shortYear },
            hasEpoch: ops.contains(.epochSeconds),
            hasDate: ops.contains { [.month, .day, .paddedDay, .monthName].contains($0) }
        ))
    }

    /// True when the pattern begins with `[` (it matches the bracket itself).
    var beginsWithBracket: Bool { source.utf8.first == UInt8(ascii: "[") }
}

/// Why a pattern does not compile; `description` follows `pace: `.
package struct PatternError: Error, Equatable, Sendable, CustomStringConvertible {
    package let description: String
}

/// The operation for the directive letter after a `%`, or nil if unknown.
private func directive(_ letter: UInt8) -> PatternOp? {
    switch letter {
    case UInt8(ascii: "Y"): return .year
    case UInt8(ascii: "y"): return .shortYear
    case UInt8(ascii: "m"): return .month
    case UInt8(ascii: "d"): return .day
    case UInt8(ascii: "e"): return .paddedDay
    case UInt8(ascii: "H"): return .hour
    case UInt8(ascii: "M"): return .minute
    case UInt8(ascii: "S"): return .second
    case UInt8(ascii: "f"): return .fraction
    case UInt8(ascii: "L"): return .milliseconds
    case UInt8(ascii: "b"): return .monthName
    case UInt8(ascii: "a"): return .weekdayName
    case UInt8(ascii: "z"): return .zone
    case UInt8(ascii: "s"): return .epochSeconds
    case UInt8(ascii: "%"): return .literal(UInt8(ascii: "%"))
    default: return nil
    }
}

/// How many bytes the UTF-8 sequence led by `lead` takes, so that an error
/// names `%é` whole rather than half a character.
private func utf8SequenceLength(_ lead: UInt8) -> Int {
    switch lead {
    case 0xF0...: return 4
    case 0xE0...: return 3
    case 0xC0...: return 2
    default: return 1
    }
}

// MARK: - Matching

/// `%y`: POSIX maps 69-99 to the 1900s and 00-68 to the 2000s.
private let shortYearPivot = 69

/// Matches a pattern at `start` (a prefix of the text; what follows is free).
///
/// `%s` fixes the instant: other date and time directives beside it are
/// matched but change nothing, except a fraction (`%f`, `%L`), which adds to
/// it (`%s.%f`). When a directive appears twice, the last one counts.
func parsePattern(_ pattern: TimePattern, _ text: UnsafeRawBufferPointer, from start: Int, context: YearContext) -> FormatResult {
    let text = StampBytes(text)
    var stamp = CivilStamp()
    var epochSeconds: Int64 = 0
    var epochNegative = false
    var epochOverflow = false
    var i = start
    for op in pattern.ops {
        switch op {
        case let .literal(b):
            guard text[i] == b, i < text.count else { return .noMatch }
            i += 1
        case .blanks:
            guard isBlank(text[i]) else { return .noMatch }
            repeat { i += 1 } while isBlank(text[i])
        case .year:
            guard let value = fourDigits(text, at: i) else { return .noMatch }
            stamp.year = value
            i += 4
        case .shortYear:
            guard let value = twoDigits(text, at: i) else { return .noMatch }
            stamp.year = value >= shortYearPivot ? 1900 + value : 2000 + value
            i += 2
        case .month, .day, .paddedDay, .hour, .minute, .second:
            if op == .paddedDay && text[i] == UInt8(ascii: " ") { i += 1 }
            guard let (value, end) = shortNumber(text, at: i, maxDigits: 2) else { return .noMatch }
            switch op {
            case .month: stamp.month = value
            case .day, .paddedDay: stamp.day = value
            case .hour: stamp.hour = value
            case .minute: stamp.minute = value
            default: stamp.second = value
            }
            i = end
        case .fraction:
            guard let (nanoseconds, end) = fractionDigits(text, at: i) else { return .noMatch }
            stamp.nanoseconds = nanoseconds
            i = end
        case .milliseconds:
            guard let (value, end) = shortNumber(text, at: i, maxDigits: 3) else { return .noMatch }
            stamp.nanoseconds = Int64(value) * 1_000_000
            i = end
        case .monthName:
            guard let (month, end) = monthName(text, at: i, fullNames: true) else { return .noMatch }
            stamp.month = month
            i = end
        case .weekdayName:
            guard let end = weekdayNameEnd(text, at: i) else { return .noMatch }
            i = end
        case .zone:
            guard let zone = utcOffset(text, at: i) else { return .noMatch }
            stamp.setZone(zone)
            i = zone.end
        case .epochSeconds:
            epochNegative = text[i] == UInt8(ascii: "-")
            var j = epochNegative ? i + 1 : i
            let digitsStart = j
            epochSeconds = 0
            epochOverflow = false
            while let d = digit(text[j]) {
                let (shifted, o1) = epochSeconds.multipliedReportingOverflow(by: 10)
                let (sum, o2) = shifted.addingReportingOverflow(Int64(d))
                epochOverflow = epochOverflow || o1 || o2
                epochSeconds = sum
                j += 1
            }
            guard j > digitsStart else { return .noMatch }
            i = j
        }
    }

    let resolution: Resolution
    if pattern.hasEpoch {
        // The sign covers the fraction too, as for `--time-format unix`:
        // `-1.5` is a second and a half before the epoch.
        // Negated before they are joined: the earliest instant's magnitude
        // is one more than the latest's.
        let ns = epochOverflow ? nil
            : epochNegative ? nanosecondsFrom(seconds: -epochSeconds, nanoseconds: -stamp.nanoseconds)
            : nanosecondsFrom(seconds: epochSeconds, nanoseconds: stamp.nanoseconds)
        resolution = ns.map { .instant(Instant(nanoseconds: $0)) } ?? .outOfRange
    } else if !pattern.hasYear && pattern.hasDate {
        resolution = resolveYearless(stamp, context: context)
    } else {
        resolution = stamp.resolved
    }
    switch resolution {
    case let .instant(t): return .time(t, length: i - start)
    case .impossible: return .bad(.impossible(format: pattern.source))
    case .outOfRange: return .bad(.outOfRange)
    }
}
