// `--time-field` as a number with `--delimiter` and as a NAME: the
// timestamp is the field's whole value, which a named format must fit whole.

import Testing
@testable import PaceCore
import PaceTesting

private func read(_ lines: [String], _ field: String, delimiter: UInt8? = nil, format: TimeFormat = .auto) -> [TimeReading] {
    guard case let .success(timeField) = TimeField.parse(field) else { preconditionFailure("bad time field") }
    var reader = TimestampReader(format: format, field: timeField, delimiter: delimiter, defaultYear: testYear)
    return lines.map { line in withBytes(line) { reader.read($0) } }
}

extension Fields {
    @Suite struct TimeFieldTests {
        @Test func aJSONMember() {
            #expect(read([#"{"ts":1795953600.5,"host":"a"}"#], "ts") == [at(ns(nov29, 500_000_000))])
            #expect(read([#"{"time":"2026-11-29T12:00:00Z"}"#], "time") == [at(ns(nov29))])
            // journald: microseconds as a string.
            #expect(read([#"{"__REALTIME_TIMESTAMP":"1795953600123456","MESSAGE":"x"}"#], "__REALTIME_TIMESTAMP")
                    == [at(ns(nov29, 123_456_000))])
            // Decoded before parsing: an escaped stamp is the same stamp.
            #expect(read([#"{"t":"2026-11-29T12:00:00\u005a"}"#], "t") == [at(ns(nov29))])
        }

        @Test func theValueMustFitWhole() {
            #expect(read([#"{"ts":"1795953600 x"}"#], "ts", format: .unix) == [.bad(.noMatch(format: "unix"))])
            #expect(read([#"{"ts":"90msx"}"#], "ts", format: .offset) == [.bad(.noMatch(format: "offset"))])
            // Under auto, "1795953600.5 x" fits nothing whole.
            #expect(read([#"{"ts":"1795953600.5 x"}"#], "ts") == [.bad(.noMatch(format: "auto"))])
            // A skipped `[` may have its `]`.
            #expect(read([#"{"t":"[29/Nov/2026:12:00:00 +0000]"}"#], "t") == [at(ns(nov29))])
            #expect(read([#"{"t":"29/Nov/2026:12:00:00 +0000]"}"#], "t") == [.bad(.noMatch(format: "auto"))])
            // A pattern matches a prefix, as everywhere.
            #expect(read([#"{"t":"2026-11-29 trailing"}"#], "t", format: .pattern(compiled("%Y-%m-%d")))
                    == [at(ns(nov29 - 12 * 3600))])
        }

        @Test func aMissingOrEmptyMemberIsABadTimestamp() {
            #expect(read([#"{"host":"a"}"#], "ts") == [.bad(.missingName("ts"))])
            #expect(read([#"{"ts":01}"#], "ts") == [.bad(.missingName("ts"))])
            #expect(read([#"{"ts":""}"#], "ts", format: .unix) == [.bad(.noMatch(format: "unix"))])
            #expect(BadTime.missingName("ts").description == "no time field 'ts' (no such JSON member or logfmt key)")
        }

        @Test func aLogfmtKey() {
            let lines = [#"time=2026-11-29T12:00:00.250Z level=info msg="a b""#, "level=info msg=x"]
            #expect(read(lines, "time") == [at(ns(nov29, 250_000_000)), .bad(.missingName("time"))])
        }

        @Test func aNumberWithADelimiterIsTheWholeField() {
            let colon = UInt8(ascii: ":")
            #expect(read(["host:1795953600:msg"], "2", delimiter: colon) == [at(ns(nov29))])
            // The unix stamp ends at the delimiter, not at the line's end.
            #expect(read(["1795953600:x"], "1", delimiter: colon, format: .unix) == [at(ns(nov29))])
            #expect(read(["a,2026-11-29 12:00:00,b\r"], "2", delimiter: UInt8(ascii: ",")) == [at(ns(nov29))])
            #expect(read(["a,,b"], "2", delimiter: UInt8(ascii: ","), format: .unix) == [.bad(.noMatch(format: "unix"))])
            #expect(read(["a,b"], "3", delimiter: UInt8(ascii: ",")) == [.bad(.missingField(3))])
            // The last field stops before a final `\r`.
            #expect(read(["x,1795953600\r"], "2", delimiter: UInt8(ascii: ","), format: .unix) == [at(ns(nov29))])
        }

        @Test func aTenDigitUnixValueIsReadWhereItLies() {
            // The short path's parser reads a value in the line and may load
            // the bytes after it; each reading is the named path's, by hand.
            let lines = [#"{"ts":1795953600.000569,"host":"a"}"#, #"{"ts":1795953601.000001}"#,
                         #"{"ts":1795953600.5,"x":1}"#, #"{"ts":"[1795953600.000002]"}"#]
            #expect(read(lines, "ts", format: .unix)
                    == [at(ns(nov29, 569_000)), at(ns(nov29 + 1, 1_000)), at(ns(nov29, 500_000_000)),
                        at(ns(nov29, 2_000))])
            // A decoded string lies in the scratch, not in the line.
            #expect(read([#"{"ts":"1795953600.00056\u0031","h":1}"#], "ts", format: .unix) == [at(ns(nov29, 561_000))])
            // A digit delimiter: the parser reads on past the value's end, so
            // the value alone decides.
            let eight = UInt8(ascii: "8")
            #expect(read(["a81795953600.0005618x"], "2", delimiter: eight, format: .unix) == [at(ns(nov29, 561_000))])
            #expect(read(["a81795953600.58234567890"], "2", delimiter: eight, format: .unix)
                    == [at(ns(nov29, 500_000_000))])
            #expect(read(["a81795953600.000569x8b"], "2", delimiter: eight, format: .unix)
                    == [.bad(.noMatch(format: "unix"))])
        }

        @Test func aNumberWithoutADelimiterStillSpansFields() {
            #expect(read(["host Nov 29 12:00:00 msg"], "2", format: .syslog) == [at(ns(nov29))])
        }

        @Test func aUnixTimeSaysWhereItsFieldIs() {
            // Where the timestamp ended, in field `--time-field`: the key's
            // search starts there (Driver.swift).
            func marks(_ line: String, _ field: String = "1", format: TimeFormat = .auto) -> FieldPosition {
                guard case let .success(timeField) = TimeField.parse(field) else { preconditionFailure("bad time field") }
                var reader = TimestampReader(format: format, field: timeField, delimiter: nil, defaultYear: testYear)
                _ = withBytes(line) { reader.read($0) }
                // The first line may settle `auto`; the second takes the short path.
                _ = withBytes(line) { reader.read($0) }
                return reader.timeField
            }
            #expect(marks("1795953600.000569 host03 GET") == FieldPosition(field: 1, offset: 17))
            #expect(marks("  1795953600.5\thost") == FieldPosition(field: 1, offset: 14))
            #expect(marks("[1795953600.5] host") == FieldPosition(field: 1, offset: 13))
            #expect(marks("1795953600,x host", format: .unix) == FieldPosition(field: 1, offset: 10))
            #expect(marks("a 1795953600123 host", "2", format: .unixMs) == FieldPosition(field: 2, offset: 15))
            #expect(marks("x +90ms host", "2", format: .offset) == FieldPosition(field: 2, offset: 7))
            // A calendar format may hold a blank: nothing is said.
            #expect(marks("2026-11-29 12:00:00 host") == .none)
            #expect(marks("Nov 29 12:00:00 host") == .none)
            // A whole value (a NAME) is not a blank-separated field.
            #expect(marks(#"{"ts":1795953600.5,"host":"a"}"#, "ts") == .none)
        }
    }
}
