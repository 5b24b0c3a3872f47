// SPEC's nearest-year rule for stamps without a year, followed line by line
// through a TimestampReader as replay does, and at its edges directly.

import Testing
@testable import PaceCore

extension Formats {
    @Suite struct YearInferenceTests {
        /// 2026-12-31T23:59:58Z, 2027-01-01T00:00:00Z and 2027-01-01T00:00:05Z.
        let lastSecondsOf2026: Int64 = 1_798_761_598
        let newYear2027: Int64 = 1_798_761_600

        @Test func theFirstStampTakesTheDefaultYear() {
            #expect(readOne("Nov 29 12:00:00 host", format: .syslog) == at(ns(nov29)))
            #expect(readOne("Nov 29 12:00:00 host", format: .syslog, year: 2005) == at(ns(1_133_265_600)))
        }

        @Test func decemberThenJanuaryIsANewYear() {
            let lines = ["Dec 31 23:59:58 a", "Jan  1 00:00:05 b"]
            #expect(readAll(lines, format: .syslog) == [at(ns(lastSecondsOf2026)), at(ns(newYear2027 + 5))])
        }

        /// A line a few seconds late at New Year stays in the old year.
        @Test func aLineOutOfOrderAtNewYearStaysInItsYear() {
            let lines = ["Dec 31 23:59:58 a", "Jan  1 00:00:05 b", "Dec 31 23:59:59 c", "Jan  1 00:00:06 d"]
            #expect(readAll(lines, format: .syslog) == [
                at(ns(lastSecondsOf2026)), at(ns(newYear2027 + 5)), at(ns(lastSecondsOf2026 + 1)), at(ns(newYear2027 + 6)),
            ])
        }

        @Test func aLogSpanningTwoYears() {
            let lines = [
                "Nov 15 10:00:00 a", "Dec 15 10:00:00 b", "Jan 15 10:00:00 c", "Feb  1 00:00:00 d",
            ]
            #expect(readAll(lines, format: .syslog, year: 2025) == [
                at(ns(1_763_200_800)), at(ns(1_765_792_800)), at(ns(1_768_471_200)), at(ns(1_769_904_000)),
            ])
        }

        /// Proxifier's two segments: October, then July. July of the same
        /// year is 96 days back, July of the next 269 days ahead: same year.
        @Test func aJumpBackOfMonthsStaysInTheYear() {
            let lines = ["[10.30 16:49:06] a", "[07.26 13:30:34] b"]
            #expect(readAll(lines, format: pattern("[%m.%d %H:%M:%S]")) == [at(ns(1_793_378_946)), at(ns(1_785_072_634))])
        }

        @Test func patternsWithAMonthAndDayButNoYearInferToo() {
            let lines = ["12/31 23:59:58 a", "01/01 00:00:05 b"]
            #expect(readAll(lines, format: pattern("%m/%d %H:%M:%S")) == [at(ns(lastSecondsOf2026)), at(ns(newYear2027 + 5))])
        }

        /// The latest time seen, not the previous line, is the reference: a
        /// line far out of order does not drag later ones back a year.
        @Test func theReferenceIsTheLatestTime() {
            let lines = ["Jan  1 00:00:05 a", "Dec 31 23:59:58 b", "Jan  1 00:00:06 c"]
            #expect(readAll(lines, format: .syslog, year: 2027) == [
                at(ns(newYear2027 + 5)), at(ns(lastSecondsOf2026)), at(ns(newYear2027 + 6)),
            ])
        }

        /// 2026-07-02T12:00:00Z is exactly between 2026-01-01 and 2027-01-01.
        @Test func aTieGoesToTheLatestTimesYear() {
            let midpoint = ns(1_782_993_600)
            #expect(calendar(.syslog, "Jan  1 00:00:00", latest: midpoint) == .time(ns(1_767_225_600), length: 15))
            #expect(calendar(.syslog, "Jan  1 00:00:00", latest: midpoint - 1) == .time(ns(1_767_225_600), length: 15))
            #expect(calendar(.syslog, "Jan  1 00:00:00", latest: midpoint + 1) == .time(ns(newYear2027), length: 15))
        }

        /// The fraction counts when comparing distances: one nanosecond past
        /// the midpoint, Jan 1 00:00:00 belongs to the next year, but two
        /// nanoseconds later in the day it is nearer in the latest's year.
        @Test func nanosecondsDecideACloseRace() {
            let pastMidpoint = ns(1_782_993_600) + 1
            #expect(calendar(.syslog, "Jan  1 00:00:00.000000001", latest: pastMidpoint)
                == .time(ns(1_767_225_600, 1), length: 25))
            #expect(calendar(.syslog, "Jan  1 00:00:00.000000002", latest: pastMidpoint)
                == .time(ns(1_767_225_600, 2), length: 25))
        }

        @Test func february29() {
            // The first line: only in a leap --year.
            #expect(readOne("Feb 29 12:00:00 a", format: .syslog) == .bad(.impossible(format: "syslog")))
            #expect(readOne("Feb 29 12:00:00 a", format: .syslog, year: 2028) == at(ns(1_835_438_400)))
            // Later: none of 2025, 2026, 2027 has it.
            #expect(calendar(.syslog, "Feb 29 12:00:00", latest: ns(1_780_272_000)) == .bad(.impossible(format: "syslog")))
            // From December 2027 the nearest year that has it is 2028.
            #expect(calendar(.syslog, "Feb 29 12:00:00", latest: ns(1_827_619_200)) == .time(ns(1_835_438_400), length: 15))
            let lines = ["Dec  1 00:00:00 a", "Feb 29 12:00:00 b"]
            #expect(readAll(lines, format: .syslog, year: 2027) == [at(ns(1_827_619_200)), at(ns(1_835_438_400))])
        }

        @Test func impossibleInEveryYearStaysImpossible() {
            #expect(calendar(.syslog, "Feb 30 12:00:00", latest: ns(nov29)) == .bad(.impossible(format: "syslog")))
            #expect(calendar(.syslog, "Nov 29 24:00:00", latest: ns(nov29)) == .bad(.impossible(format: "syslog")))
        }

        @Test func aDefaultYearOutOfRangeIsOutOfRange() {
            #expect(readOne("Nov 29 12:00:00 a", format: .syslog, year: 1500) == .bad(.outOfRange))
            #expect(readOne("Nov 29 12:00:00 a", format: .syslog, year: 1_000_000_000_000) == .bad(.outOfRange))
        }

        /// Near the end of the range the nearest year may not fit: that is
        /// out of range, not a silent jump to a year that fits.
        @Test func theNearestYearOutOfRangeIsOutOfRange() {
            // Latest: 2262-04-01T00:00:00Z; Dec 31 is nearest in 2261, Apr 11
            // (before 23:47:16) in 2262, Apr 12 in 2262 but beyond the range.
            let latest = ns(9_222_422_400)
            #expect(calendar(.syslog, "Apr 12 00:00:00", latest: latest) == .bad(.outOfRange))
            #expect(calendar(.syslog, "Apr 11 00:00:00", latest: latest) == .time(ns(9_223_286_400), length: 15))
        }

        /// At the very first representable instant (1677-09-21T00:12:43.145224192Z).
        @Test func theLatestTimeAtTheStartOfTheRange() {
            #expect(calendar(.syslog, "Sep 21 00:12:44", latest: .min) == .time(ns(-9_223_372_036), length: 15))
            #expect(calendar(.syslog, "Sep 21 00:12:43", latest: .min) == .bad(.outOfRange))
        }

        /// Bad lines leave the reference where it was.
        @Test func aBadLineDoesNotMoveTheReference() {
            let lines = ["Dec 31 23:59:58 a", "Feb 30 00:00:00 b", "Jan  1 00:00:05 c"]
            #expect(readAll(lines, format: .syslog) == [
                at(ns(lastSecondsOf2026)), .bad(.impossible(format: "syslog")), at(ns(newYear2027 + 5)),
            ])
        }
    }
}
