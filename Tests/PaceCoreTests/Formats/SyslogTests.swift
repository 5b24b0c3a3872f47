// `syslog`: RFC 3164 stamps, day padded every way real logs pad it. The year
// comes from `--year` here; YearInferenceTests follows it across lines.

import Testing
@testable import PaceCore

extension Formats {
    @Suite struct SyslogTests {
        @Test func specExamples() {
            #expect(calendar(.syslog, "Nov 29 12:00:00") == .time(ns(nov29), length: 15))
            #expect(calendar(.syslog, "Dec  1 08:00:00") == .time(ns(1_796_112_000), length: 15))
        }

        @Test func dayPadding() {
            #expect(calendar(.syslog, "Nov 09 12:00:00 host") == .time(ns(1_794_225_600), length: 15))
            #expect(calendar(.syslog, "Nov  9 12:00:00 host") == .time(ns(1_794_225_600), length: 15))
            #expect(calendar(.syslog, "Nov 9 12:00:00 host") == .time(ns(1_794_225_600), length: 14))
        }

        @Test func monthCase() {
            #expect(calendar(.syslog, "nov 29 12:00:00") == .time(ns(nov29), length: 15))
            #expect(calendar(.syslog, "NOV 29 12:00:00") == .time(ns(nov29), length: 15))
        }

        @Test func fraction() {
            #expect(calendar(.syslog, "Nov 29 12:00:00.123456 host") == .time(ns(nov29, 123_456_000), length: 22))
        }

        @Test func theYearComesFromTheContext() {
            #expect(calendar(.syslog, "Nov 29 12:00:00", year: 2005) == .time(ns(1_133_265_600), length: 15))
            #expect(readOne("Jun 14 15:16:01 combo sshd(pam_unix)[19939]: check pass", format: .syslog, year: 2005)
                == at(ns(1_118_762_161)))
        }

        @Test func afterAnOpeningBracketAndInALaterField() {
            #expect(readOne("[Nov 29 12:00:00] cron", format: .syslog) == at(ns(nov29)))
            let thunderbirdShaped = "- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond[2916]: ok\r"
            #expect(readOne(thunderbirdShaped, format: .syslog, field: 5, year: 2005) == at(ns(1_131_537_661)))
        }

        @Test(arguments: [
            "Nov 31 12:00:00", "Feb 29 12:00:00", "Nov 00 12:00:00", "Nov 29 24:00:00",
            "Nov 29 12:60:00", "Nov 29 12:00:60",
        ])
        func impossible(_ text: String) {
            #expect(calendar(.syslog, text) == .bad(.impossible(format: "syslog")))
        }

        @Test(arguments: [
            "Nov 29 12:00", "Nov 29 1:00:00", "Nov 123 12:00:00", "Nox 29 12:00:00", "November 29 12:00:00",
            "Nov29 12:00:00", "Nov 29T12:00:00", "Nov 29 12:00:0", "29 Nov 12:00:00", "Nov  12:00:00",
        ])
        func wrongShape(_ text: String) {
            #expect(calendar(.syslog, text) == .noMatch)
        }

        @Test(arguments: ["Nov 29 12:00:00x", "Nov 29 12:00:00:00", "Nov 29 12:00:00.", "Nov 29 12:00:00+0100"])
        func trailingTextIsNoMatch(_ text: String) {
            #expect(readOne(text + " host", format: .syslog) == .bad(.noMatch(format: "syslog")))
        }
    }
}
