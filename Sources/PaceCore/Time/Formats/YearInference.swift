// SPEC's year for stamps that carry none (`syslog`, patterns with a month or
// a day but no `%Y %y %s`): the first takes `--year`; each later one takes
// whichever of the latest time's year, the year before and the year after
// puts it nearest to the latest time seen. So December then January is a new
// year, a line a few seconds out of order at New Year stays in the old one,
// and a log that spans years follows them.

/// Just under half the shortest year, in nanoseconds. The same date one year
/// earlier or later is at least 365 days away, so a candidate this close to
/// the latest time is the nearest of the three without looking further.
private let surelyNearest = Int64(182 * secondsPerDay) * nanosecondsPerSecond

/// Resolves a stamp whose year is not in the text; `stamp.year` is ignored.
func resolveYearless(_ stamp: CivilStamp, context: YearContext) -> Resolution {
    guard let latest = context.latest else {
        var first = stamp
        first.year = context.defaultYear
        return first.resolved
    }
    guard stamp.timeExists, stamp.zoneExists else { return .impossible }

    let latestYear = civilYear(of: latest)
    // The latest time as whole seconds and a fraction in 0 ..< 1 s, split
    // without multiplying back (which would overflow at Int64.min).
    var latestSeconds = latest.nanoseconds / nanosecondsPerSecond
    var latestFraction = latest.nanoseconds % nanosecondsPerSecond
    if latestFraction < 0 {
        latestSeconds -= 1
        latestFraction += nanosecondsPerSecond
    }
    var best: (seconds: Int64, nanoseconds: Int64)?
    var bestDistance = UInt64.max
    // The latest year first, so that it wins ties (later ones must be
    // strictly nearer); then the year before and the year after.
    for step in 0..<3 {
        let year = latestYear + (step == 0 ? 0 : step == 1 ? -1 : 1)
        // Feb 29 exists one year in four: only the candidates that have it
        // compete.
        guard stamp.dateExists(inYear: year) else { continue }
        // Candidates lie within about two years of the latest time, so the
        // difference fits in Int64 nanoseconds even where the candidate
        // itself does not (near `minimumYear` or `maximumYear`); it is
        // converted below.
        let seconds = Int64(stamp.epochSeconds(inYear: year))
        let distance = ((seconds - latestSeconds) * nanosecondsPerSecond + (stamp.nanoseconds - latestFraction)).magnitude
        if distance < bestDistance {
            best = (seconds, stamp.nanoseconds)
            bestDistance = distance
        }
        if step == 0 && distance <= UInt64(surelyNearest) { break }
    }
    guard let (seconds, nanoseconds) = best else { return .impossible }
    guard let t = instantFrom(seconds: seconds, nanoseconds: nanoseconds) else { return .outOfRange }
    return .instant(t)
}
