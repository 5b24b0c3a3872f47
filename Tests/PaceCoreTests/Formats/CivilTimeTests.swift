// The calendar arithmetic under every calendar format: day counts, leap
// years, the year of an instant, and the edges of Int64 nanoseconds.

import Testing
@testable import PaceCore

extension Formats {
    @Suite struct CivilTimeTests {
        @Test func leapYears() {
            #expect(isLeapYear(2024))
            #expect(isLeapYear(2000))
            #expect(isLeapYear(1600))
            #expect(!isLeapYear(2026))
            #expect(!isLeapYear(1900))
            #expect(!isLeapYear(2100))
        }

        @Test func knownDayCounts() {
            #expect(daysFromCivil(year: 1970, month: 1, day: 1) == 0)
            #expect(daysFromCivil(year: 1969, month: 12, day: 31) == -1)
            #expect(daysFromCivil(year: 2000, month: 3, day: 1) == 951_868_800 / 86_400)
            #expect(daysFromCivil(year: 2026, month: 11, day: 29) == (nov29 - 43_200) / 86_400)
            #expect(daysFromCivil(year: 1900, month: 1, day: 1) == -2_208_988_800 / 86_400)
        }

        /// Walks every day from 1900 to 2100 with a calendar written here
        /// from the month lengths alone, and checks the formula agrees on each.
        @Test func dayCountsAgreeWithAWalkedCalendar() {
            let lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            var (year, month, day) = (1900, 1, 1)
            var expected = -25_567 // 1900-01-01, from `date -u -d 1900-01-01 +%s` / 86400
            var mismatches = 0
            while year <= 2100 {
                if daysFromCivil(year: year, month: month, day: day) != expected { mismatches += 1 }
                let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
                let length = month == 2 && leap ? 29 : lengths[month - 1]
                day += 1
                if day > length { day = 1; month += 1 }
                if month > 12 { month = 1; year += 1 }
                expected += 1
            }
            #expect(mismatches == 0)
        }

        @Test func yearOfAnInstant() {
            #expect(civilYear(of: ns(1_767_225_600)) == 2026)
            #expect(civilYear(of: ns(1_767_225_600) - 1) == 2025)
            #expect(civilYear(of: ns(nov29)) == 2026)
            #expect(civilYear(of: 0) == 1970)
            #expect(civilYear(of: -1) == 1969)
            #expect(civilYear(of: ns(-31_536_000)) == 1969)
            #expect(civilYear(of: ns(-31_536_000) - 1) == 1968)
            #expect(civilYear(of: .min) == 1677)
            #expect(civilYear(of: .max) == 2262)
        }

        @Test func impossibleDatesAndTimes() {
            #expect(!CivilStamp(year: 2026, month: 2, day: 29).dateExists)
            #expect(CivilStamp(year: 2024, month: 2, day: 29).dateExists)
            #expect(!CivilStamp(year: 2026, month: 13, day: 1).dateExists)
            #expect(!CivilStamp(year: 2026, month: 4, day: 31).dateExists)
            #expect(!CivilStamp(year: 2026, month: 1, day: 0).dateExists)
            #expect(!CivilStamp(hour: 24).timeExists)
            #expect(!CivilStamp(minute: 60).timeExists)
            #expect(!CivilStamp(second: 60).timeExists)
            #expect(CivilStamp(hour: 23, minute: 59, second: 59).timeExists)
        }

        @Test func edgesOfTheRange() {
            // Int64.min ns is 1677-09-21T00:12:43.145224192Z: its whole
            // seconds alone (-9223372037) overflow when scaled.
            #expect(instantFrom(seconds: -9_223_372_037, nanoseconds: 145_224_192) == .min)
            #expect(instantFrom(seconds: -9_223_372_037, nanoseconds: 145_224_191) == nil)
            #expect(instantFrom(seconds: 9_223_372_036, nanoseconds: 854_775_807) == .max)
            #expect(instantFrom(seconds: 9_223_372_036, nanoseconds: 854_775_808) == nil)
            #expect(instantFrom(seconds: -1, nanoseconds: 500_000_000) == -500_000_000)
            #expect(CivilStamp(year: 1_000_000_000_000).resolved == .outOfRange)
        }
    }
}
