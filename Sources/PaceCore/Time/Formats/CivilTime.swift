// Calendar arithmetic for the calendar timestamp formats: whether a date and a
// time of day exist, and where they fall on pace's clock. Everything is in UTC
// and the proleptic Gregorian calendar, with integer math only: SPEC says the
// machine's time zone is never consulted, and this runs once per line.

let nanosecondsPerSecond: Int64 = 1_000_000_000
let secondsPerDay = 86_400

/// A wall-clock reading as a timestamp spells it, not yet validated. The
/// defaults are the ones a pattern leaves to parts it does not mention:
/// 1970-01-01, midnight, UTC.
struct CivilStamp: Equatable {
    var year = 1970
    var month = 1
    var day = 1
    var hour = 0
    var minute = 0
    var second = 0
    /// The fraction of the second, already truncated to whole nanoseconds.
    var nanoseconds: Int64 = 0
    /// The zone as written: `-05:30` is sign -1, 5 hours, 30 minutes.
    var zoneSign = 1
    var zoneHours = 0
    var zoneMinutes = 0
}

/// What a stamp comes to once checked against the calendar.
enum Resolution: Equatable {
    case instant(Instant)
    /// Month 13, Feb 30, 24:00, a zone of +25:00: no such moment.
    case impossible
    /// A real moment that Int64 nanoseconds since the epoch cannot hold.
    case outOfRange
}

// MARK: - The calendar

@inline(__always)
func isLeapYear(_ year: Int) -> Bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

@inline(__always)
func daysInMonth(_ month: Int, year: Int) -> Int {
    switch month {
    case 2: return isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
}

/// Division rounding towards minus infinity (`b` > 0), so that dates and
/// instants before 1970 fall into the right day and year. (The product
/// q * b never exceeds `a` in magnitude, so this cannot overflow, not even
/// for Int64.min.)
@inline(__always)
func floorDivide<T: BinaryInteger>(_ a: T, _ b: T) -> T {
    let q = a / b
    return q * b > a ? q - 1 : q
}

/// Days from 0000-03-01 to 1970-01-01, so that the count below starts at the
/// Unix epoch.
private let daysFromYearZeroMarchToEpoch = 719_468

/// The number of days from 1970-01-01 to the given date (negative before it).
/// The date must exist.
///
/// The count is taken from a calendar whose years begin on March 1st. In such
/// a year the leap day, when there is one, is the very last day, so the
/// position of a day inside its year does not depend on leap years at all;
/// and the months from March on run 31, 30, 31, 30, 31 days, a five-month
/// cycle of 153 days, so the days before the k-th month (March being 0) are
/// floor((153k + 2) / 5) (the +2 lines the rounding up with those lengths;
/// January and February, k = 10 and 11, continue the cycle). Whole years
/// before then contribute 365 days each plus one per February 29th they
/// contain: the March-based year y holds the February of year y + 1, so the
/// years 0 ..< y hold the leap days of years 1 ... y, which the
/// 4 / 100 / 400 rule counts with floor divisions.
@inline(__always)
func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let marchYear = month <= 2 ? year - 1 : year
    let monthFromMarch = month <= 2 ? month + 9 : month - 3
    let dayOfMarchYear = (153 * monthFromMarch + 2) / 5 + day - 1
    let leapDays = floorDivide(marchYear, 4) - floorDivide(marchYear, 100) + floorDivide(marchYear, 400)
    return 365 * marchYear + leapDays + dayOfMarchYear - daysFromYearZeroMarchToEpoch
}

/// The calendar year (UTC) that contains `t` (also `--year`'s default: the
/// year pace starts in).
package func civilYear(of t: Instant) -> Int {
    let days = Int(floorDivide(t.nanoseconds, Int64(secondsPerDay) * nanosecondsPerSecond))
    // 146097 days make 400 Gregorian years: the estimate is off by a year at
    // most, one way or the other, which its January 1st tells.
    let year = 1970 + floorDivide(days * 400, 146_097)
    let newYearsDay = daysFromCivil(year: year, month: 1, day: 1)
    if days < newYearsDay { return year - 1 }
    if days >= newYearsDay + (isLeapYear(year) ? 366 : 365) { return year + 1 }
    return year
}

// MARK: - Validation and conversion

/// Years beyond this are out of pace's range anyway (`minimumYear` to
/// `maximumYear`);
/// refusing them early keeps the day arithmetic far from overflowing when
/// `--year` is absurd.
private let plausibleYearMagnitude = 1_000_000

extension CivilStamp {
    var dateExists: Bool { dateExists(inYear: year) }

    /// Whether the stamp's month and day exist in `year` (Feb 29 does in one
    /// year out of four); year inference asks this of several years.
    @inline(__always)
    func dateExists(inYear year: Int) -> Bool {
        month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(month, year: year)
    }

    /// A second of 60 is refused like 24:00. pace's clock counts the seconds
    /// of POSIX time, which has no slot for a leap second: 23:59:60 could only
    /// be folded onto 23:59:59 or onto the next 00:00:00, inventing a time the
    /// line does not state. Log writers do not emit it in practice (system
    /// clocks repeat or smear the second), so a :60 is far more likely a
    /// corrupt stamp than a real leap second, and SPEC's rule for impossible
    /// times applies.
    var timeExists: Bool {
        hour >= 0 && hour < 24 && minute >= 0 && minute < 60 && second >= 0 && second < 60
    }

    /// Real zones stay within a day of UTC; `+25:00` or `+01:75` is no zone.
    var zoneExists: Bool { zoneHours < 24 && zoneMinutes < 60 }

    var exists: Bool { dateExists && timeExists && zoneExists }

    /// Whole seconds since the epoch, UTC. The stamp must exist and its year
    /// be plausible.
    var epochSeconds: Int { epochSeconds(inYear: year) }

    /// Whole seconds since the epoch of the stamp moved to `year`.
    @inline(__always)
    func epochSeconds(inYear year: Int) -> Int {
        let days = daysFromCivil(year: year, month: month, day: day)
        let local = days * secondsPerDay + hour * 3600 + minute * 60 + second
        return local - zoneSign * (zoneHours * 3600 + zoneMinutes * 60)
    }

    /// The stamp on pace's clock, or nil when it does not fit. The stamp must
    /// exist.
    var instant: Instant? {
        guard year.magnitude <= plausibleYearMagnitude else { return nil }
        return instantFrom(seconds: Int64(epochSeconds), nanoseconds: nanoseconds)
    }

    /// Checks the stamp and converts it: impossible, out of range, or a time.
    var resolved: Resolution {
        guard exists else { return .impossible }
        guard let t = instant else { return .outOfRange }
        return .instant(t)
    }
}

/// `seconds` + `nanoseconds` / 1e9 as nanoseconds, or nil on overflow.
/// Negative seconds are scaled one second short and the fraction is added
/// back minus that second, so the very first representable instant
/// (1677-09-21T00:12:43.145224192Z, whose whole seconds alone would overflow)
/// still converts.
@inline(__always)
func instantFrom(seconds: Int64, nanoseconds: Int64) -> Instant? {
    nanosecondsFrom(seconds: seconds, nanoseconds: nanoseconds).map(Instant.init(nanoseconds:))
}

/// `instantFrom`, as a count of nanoseconds since the epoch.
func nanosecondsFrom(seconds: Int64, nanoseconds: Int64) -> Int64? {
    let (scaledSeconds, carried) = seconds < 0 && nanoseconds > 0
        ? (seconds + 1, nanoseconds - nanosecondsPerSecond)
        : (seconds, nanoseconds)
    let (whole, o1) = scaledSeconds.multipliedReportingOverflow(by: nanosecondsPerSecond)
    let (total, o2) = whole.addingReportingOverflow(carried)
    return o1 || o2 ? nil : total
}
