// The UTC year of an instant, for `--year`'s default (the current UTC year
// when pace starts). Proleptic Gregorian calendar, integer math only.

/// The UTC calendar year containing `unixSeconds`.
package func civilYear(unixSeconds: Int64) -> Int {
    // Shift the epoch to 0000-03-01 so leap days fall at the end of a year
    // of the 400-year cycle, then count eras, years of era, and the month.
    let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153          // 0 = March ... 11 = February
    let year = yearOfEra + era * 400 + (monthIndex >= 10 ? 1 : 0)
    return Int(year)
}
