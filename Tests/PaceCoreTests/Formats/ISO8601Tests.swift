// `iso8601`: the forms SPEC lists, the log4j variants real logs write, and
// what must be refused.

import Testing
@testable import PaceCore

extension Formats {
    @Suite struct ISO8601Tests {
        @Test func specExamples() {
            #expect(calendar(.iso8601, "2026-11-29T12:00:00Z") == .time(ns(nov29), length: 20))
            #expect(calendar(.iso8601, "2026-11-29T12:00:00.123Z") == .time(ns(nov29, 123_000_000), length: 24))
            #expect(calendar(.iso8601, "2026-11-29 12:00:00,123") == .time(ns(nov29, 123_000_000), length: 23))
            #expect(calendar(.iso8601, "2026-11-29T12:00:00+01:00") == .time(ns(nov29 - 3600), length: 25))
            #expect(calendar(.iso8601, "2026-11-29T12:00:00+0100") == .time(ns(nov29 - 3600), length: 24))
            #expect(calendar(.iso8601, "2026-11-29T12:00:00+01") == .time(ns(nov29 - 3600), length: 22))
        }

        @Test func noZoneIsUTC() {
            #expect(calendar(.iso8601, "2026-11-29T12:00:00") == .time(ns(nov29), length: 19))
            #expect(calendar(.iso8601, "2026-11-29 12:00:00 INFO") == .time(ns(nov29), length: 19))
        }

        @Test func zonesWestAndEast() {
            #expect(calendar(.iso8601, "2026-11-29T12:00:00-05:30") == .time(ns(nov29 + 19_800), length: 25))
            #expect(calendar(.iso8601, "2026-11-29T12:00:00-0800") == .time(ns(nov29 + 28_800), length: 24))
            #expect(calendar(.iso8601, "2026-11-29T12:00:00+00:00") == .time(ns(nov29), length: 25))
            #expect(calendar(.iso8601, "2026-11-29T12:00:00.5+14:00") == .time(ns(nov29 - 50_400, 500_000_000), length: 27))
            // A zone can move the instant into the previous day and year.
            #expect(calendar(.iso8601, "2026-01-01T00:30:00+01:00") == .time(ns(1_767_225_600 - 1800), length: 25))
        }

        /// git's and Ruby's `2026-11-29 12:00:00 +0100`: the zone after one
        /// space counts when it is written in full.
        @Test func aFullZoneAfterASpace() {
            #expect(calendar(.iso8601, "2026-11-29 12:00:00 +0100 commit") == .time(ns(nov29 - 3600), length: 25))
            #expect(calendar(.iso8601, "2026-11-29 12:00:00.5 -05:30") == .time(ns(nov29 + 19_800, 500_000_000), length: 28))
            #expect(calendar(.iso8601, "2026-11-29 12:00 +0100") == .time(ns(nov29 - 3600), length: 22))
            #expect(calendar(.iso8601, "2026-11-29 12:00:00 +12 items") == .time(ns(nov29), length: 19))
            #expect(calendar(.iso8601, "2026-11-29 12:00:00 - INFO") == .time(ns(nov29), length: 19))
            #expect(calendar(.iso8601, "2026-11-29 12:00:00 +2500") == .bad(.impossible(format: "iso8601")))
            // Aligned columns pad with more spaces; a TAB starts another column.
            #expect(calendar(.iso8601, "2026-11-29 12:00:00  +0100") == .time(ns(nov29 - 3600), length: 26))
            #expect(calendar(.iso8601, "2026-11-29 12:00:00   -07:00 x") == .time(ns(nov29 + 25_200), length: 28))
            #expect(calendar(.iso8601, "2026-11-29 12:00:00  +12 items") == .time(ns(nov29), length: 19))
            #expect(calendar(.iso8601, "2026-11-29 12:00:00\t+0100") == .time(ns(nov29), length: 19))
        }

        @Test func fractionsOfAnyLengthTruncateBelowANanosecond() {
            #expect(calendar(.iso8601, "2026-11-29T12:00:00.1Z") == .time(ns(nov29, 100_000_000), length: 22))
            #expect(calendar(.iso8601, "2026-11-29T12:00:00.123456Z") == .time(ns(nov29, 123_456_000), length: 27))
            #expect(calendar(.iso8601, "2026-11-29T12:00:00.000000001Z") == .time(ns(nov29, 1), length: 30))
            #expect(calendar(.iso8601, "2026-11-29T12:00:00.123456789999Z") == .time(ns(nov29, 123_456_789), length: 33))
            #expect(calendar(.iso8601, "2026-11-29 12:00:00,5") == .time(ns(nov29, 500_000_000), length: 21))
        }

        /// Seconds may be left out (ISO 8601's reduced precision); a fraction
        /// may not stand without them.
        @Test func minutePrecision() {
            #expect(calendar(.iso8601, "2026-11-29T12:00Z") == .time(ns(nov29), length: 17))
            #expect(calendar(.iso8601, "2026-11-29 12:00 login") == .time(ns(nov29), length: 16))
            #expect(readOne("2026-11-29T12:00.5Z x", format: .iso8601) == .bad(.noMatch(format: "iso8601")))
            #expect(readOne("2026-11-29T12:00:5 x", format: .iso8601) == .bad(.noMatch(format: "iso8601")))
        }

        @Test func lowercaseSeparatorsOfRFC3339() {
            #expect(calendar(.iso8601, "2026-11-29t12:00:00z") == .time(ns(nov29), length: 20))
        }

        @Test func beforeTheEpoch() {
            #expect(calendar(.iso8601, "1969-12-31T23:59:59.5Z") == .time(-500_000_000, length: 22))
            #expect(calendar(.iso8601, "1969-01-01T00:00:00Z") == .time(ns(-31_536_000), length: 20))
        }

        /// Windows CBS logs: a comma with no digit after it ends the stamp.
        @Test func commaWithoutDigitsEndsTheStamp() {
            #expect(calendar(.iso8601, "2016-09-28 04:30:30, Info") == .time(ns(1_475_037_030), length: 19))
            #expect(readOne("2016-09-28 04:30:30, Info                  CBS    Loaded", format: .iso8601) == at(ns(1_475_037_030)))
        }

        @Test func leapDays() {
            #expect(calendar(.iso8601, "2024-02-29T00:00:00Z") == .time(ns(1_709_164_800), length: 20))
            #expect(calendar(.iso8601, "2024-03-01T00:00:00Z") == .time(ns(1_709_251_200), length: 20))
            #expect(calendar(.iso8601, "2000-02-29T00:00:00Z") == .time(ns(951_782_400), length: 20))
        }

        @Test(arguments: [
            "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z",
            "2026-02-29T00:00:00Z", "2024-02-30T00:00:00Z", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
            "2026-11-29T24:00:00Z", "2026-11-29T12:60:00Z", "2026-11-29T23:59:60Z",
            "2026-11-29T12:00:00+24:00", "2026-11-29T12:00:00+01:60",
        ])
        func impossible(_ text: String) {
            #expect(calendar(.iso8601, text) == .bad(.impossible(format: "iso8601")))
            #expect(readOne(text + " x", format: .iso8601) == .bad(.impossible(format: "iso8601")))
        }

        @Test(arguments: [
            "2026-11-29", "2026-11-29 ", "2026-11-2T12:00:00Z", "2026-1-29T12:00:00Z", "26-11-29T12:00:00Z",
            "2026-11-29T1:00:00Z", "2026-11-29T12:0Z", "2026/11/29 12:00:00", "2026-11-29  12:00:00",
            "2026-11-29_12:00:00", "2026-11-29T12-00-00", "x2026-11-29T12:00:00Z", "",
        ])
        func wrongShape(_ text: String) {
            #expect(calendar(.iso8601, text) == .noMatch)
        }

        /// SPEC's boundary rule: a named format must not run into letters,
        /// digits or `- : . / +`.
        @Test(arguments: [
            "2026-11-29T12:00:00Zabc", "2026-11-29T12:00:00abc", "2026-11-29T12:00:00.5s",
            "2026-11-29T12:00:00:05", "2026-11-29T12:00:00+01:00:00", "2026-11-29T12:00:00+1",
            "2026-11-29T12:00:00.", "2026-11-29T12:00:00-",
        ])
        func trailingTextIsNoMatch(_ text: String) {
            #expect(readOne(text + " rest", format: .iso8601) == .bad(.noMatch(format: "iso8601")))
            #expect(calendar(.iso8601, text) == .noMatch)
        }

        /// The shape is checked before the calendar: an impossible date glued
        /// to more text is not iso8601 at all.
        @Test func shapeComesBeforeImpossibility() {
            #expect(calendar(.iso8601, "2026-13-01T00:00:00Zx") == .noMatch)
        }

        @Test func terminators() {
            #expect(readOne("2026-11-29T12:00:00Z", format: .iso8601) == at(ns(nov29)))
            #expect(readOne("2026-11-29T12:00:00Z\r", format: .iso8601) == at(ns(nov29)))
            #expect(readOne("2026-11-29T12:00:00Z]", format: .iso8601) == at(ns(nov29)))
            #expect(readOne("2026-11-29T12:00:00Z|x", format: .iso8601) == at(ns(nov29)))
            #expect(readOne("2026-11-29T12:00:00.250\tx", format: .iso8601) == at(ns(nov29, 250_000_000)))
        }

        @Test func bracketsAndFields() {
            #expect(readOne("[2026-11-29T12:00:00Z] started", format: .iso8601) == at(ns(nov29)))
            #expect(readOne("web-1  2026-11-29 12:00:00,123 INFO", format: .iso8601, field: 2) == at(ns(nov29, 123_000_000)))
        }

        @Test func edgesOfTheRange() {
            #expect(calendar(.iso8601, "1677-09-21T00:12:43.145224192Z") == .time(.min, length: 30))
            #expect(calendar(.iso8601, "1677-09-21T00:12:43.145224191Z") == .bad(.outOfRange))
            #expect(calendar(.iso8601, "2262-04-11T23:47:16.854775807Z") == .time(.max, length: 30))
            #expect(calendar(.iso8601, "2262-04-11T23:47:16.854775808Z") == .bad(.outOfRange))
            // The zone can carry a stamp out of range, or back into it.
            #expect(calendar(.iso8601, "2262-04-11T23:47:16-01:00") == .bad(.outOfRange))
            #expect(calendar(.iso8601, "2262-04-12T00:47:16+01:00") == .time(ns(9_223_372_036), length: 25))
            #expect(calendar(.iso8601, "9999-12-31T23:59:59Z") == .bad(.outOfRange))
            #expect(calendar(.iso8601, "0000-01-01T00:00:00Z") == .bad(.outOfRange))
        }
    }
}
