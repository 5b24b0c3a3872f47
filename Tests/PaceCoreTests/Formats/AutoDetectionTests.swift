// `auto` with the calendar formats in place: SPEC's order, its boundary
// examples, and the plausibility guards that keep numbers from being misread.

import Testing
@testable import PaceCore

extension Formats {
    @Suite struct AutoDetectionTests {
        @Test func theOrderIsSPECs() {
            #expect(TimeFormat.autoCandidates == [.iso8601, .clf, .syslog, .unix, .unixMs, .unixUs, .unixNs, .offset])
        }

        @Test(arguments: [
            ("2026-11-29T12:00:00.123Z start", TimeFormat.iso8601, ns(nov29, 123_000_000)),
            ("2026-11-29 12:00:00,123 INFO x", .iso8601, ns(nov29, 123_000_000)),
            ("[29/Nov/2026:12:00:00 +0000] GET /", .clf, ns(nov29)),
            ("Nov 29 12:00:00 host cron", .syslog, ns(nov29)),
            ("Dec  1 08:00:00 host cron", .syslog, ns(1_796_112_000)),
            ("1795953600 x", .unix, ns(nov29)),
            ("1795953600.5 x", .unix, ns(nov29, 500_000_000)),
            ("1795953600123 x", .unixMs, ns(nov29, 123_000_000)),
            ("1795953600123456 x", .unixUs, ns(nov29, 123_456_000)),
            ("179595360012345 x", .unixUs, ns(179_595_360, 12_345_000)),
            ("1795953600123456789 x", .unixNs, ns(nov29, 123_456_789)),
            ("179595360012345678 x", .unixNs, ns(179_595_360, 12_345_678)),
            ("90ms x", .offset, 90_000_000),
        ])
        func detects(_ line: String, _ format: TimeFormat, _ t: Instant) {
            var reader = TimestampReader(format: .auto, defaultYear: testYear)
            #expect(withBytes(line) { reader.read($0) } == at(t))
            #expect(reader.detected == format)
        }

        /// SPEC's boundary examples.
        @Test func boundaryExamples() {
            var reader = TimestampReader(format: .auto, defaultYear: testYear)
            #expect(withBytes("90ms tick") { reader.read($0) } == at(90_000_000))
            #expect(reader.detected == .offset)

            reader = TimestampReader(format: .auto, defaultYear: testYear)
            #expect(withBytes("2016-09-28 04:30:30, Info   CBS   Loaded") { reader.read($0) } == at(ns(1_475_037_030)))
            #expect(reader.detected == .iso8601)
        }

        /// SPEC: HDFS's `081109 203615` and a hand-written `1.5 x` are errors
        /// under `auto`, not nonsense times.
        @Test(arguments: ["081109 203615 148 INFO dfs.DataNode: x", "1.5 x", "Nov 29 x", "29/Nov/2026 x",
                          // Between and beyond the plausible digit counts: 11, 14, 17 and 20 digits.
                          "17959536001 x", "17959536001234 x", "17959536001234567 x", "17959536001234567890 x",
                          // unix-us and unix-ns are bare integers under auto.
                          "1795953600123456.5 x", "1795953600123456789.5 x"])
        func noFormatFits(_ line: String) {
            #expect(readOne(line, format: .auto) == .bad(.noMatch(format: "auto")))
        }

        /// SPEC: `auto`'s digit guard holds on every line, not just the one
        /// that settled the format: a `17` among epoch stamps is a bad
        /// timestamp (issue 21), where an explicit format takes any number.
        @Test(arguments: [
            ("1795953600 a", "unix", ["17 b", "17.5 b", "17959536001 b", "1795953600123 b"]),
            ("1795953600.25 a", "unix", ["17 b", "0.090 b"]),
            ("1795953600123 a", "unix-ms", ["17 b", "1795953600 b", "17959536001234 b", "1795953600123.5 b"]),
            ("1795953600123456 a", "unix-us", ["17 b", "1795953600123 b", "17959536001234567 b"]),
            ("1795953600123456789 a", "unix-ns", ["17 b", "1795953600123456 b", "17959536001234567890 b"]),
        ])
        func theGuardHoldsOnEveryLine(_ first: String, _ format: String, _ later: [String]) {
            for line in later {
                let readings = readAll([first, line], format: .auto)
                #expect(readings[1] == .bad(.noMatchDetected(format: format)), "\(line)")
            }
        }

        @Test func anExplicitFormatTakesAnyNumberOnEveryLine() {
            #expect(readAll(["1795953600 a", "17 b"], format: .unix) == [at(ns(nov29)), at(ns(17))])
            #expect(readAll(["1795953600123 a", "17 b"], format: .unixMs) == [at(ns(nov29, 123_000_000)), at(17_000_000)])
            #expect(readAll(["1795953600123456 a", "17 b"], format: .unixUs) == [at(ns(nov29, 123_456_000)), at(17_000)])
            #expect(readAll(["1795953600123456789 a", "17 b"], format: .unixNs) == [at(ns(nov29, 123_456_789)), at(17)])
        }

        /// An impossible first line is reported as such, and settles nothing.
        @Test func anImpossibleFirstLine() {
            var reader = TimestampReader(format: .auto, defaultYear: testYear)
            #expect(withBytes("2026-02-30T00:00:00Z x") { reader.read($0) } == .bad(.impossible(format: "iso8601")))
            #expect(reader.detected == nil)
            #expect(withBytes("Nov 29 12:00:00 x") { reader.read($0) } == at(ns(nov29)))
            #expect(reader.detected == .syslog)
        }

        /// The first fit is kept for every later line.
        @Test func theDetectedFormatSticks() {
            let lines = ["Nov 29 12:00:00 a", "2026-11-29T12:00:01Z b", "Nov 29 12:00:02 c"]
            #expect(readAll(lines, format: .auto) == [at(ns(nov29)), .bad(.noMatchDetected(format: "syslog")), at(ns(nov29 + 2))])
        }

        /// Year inference works for syslog found by `auto` too.
        @Test func syslogUnderAutoInfersYears() {
            let lines = ["Dec 31 23:59:58 a", "Jan  1 00:00:05 b"]
            #expect(readAll(lines, format: .auto) == [at(ns(1_798_761_598)), at(ns(1_798_761_605))])
        }
    }
}
