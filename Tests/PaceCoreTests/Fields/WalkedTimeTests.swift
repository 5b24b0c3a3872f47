// A unix time read by the JSON walk where it crosses the time member
// (WalkedTime.swift): replay's reader with `--time-field NAME` and a key NAME
// shares one walk, which reads a ten-digit time itself once the format is
// unix. Every reading and key is SPEC's, written out by hand; the numbers
// the short parser does not take, and those strict JSON refuses, read as
// they do without the walk.

import Testing
@testable import PaceCore
import PaceTesting

/// One run's time reader for `--time-field ts --key-field KEY`, and the
/// walks it shares with the key.
private func timeReader(format: TimeFormat, key: String) -> (TimestampReader, LineWalks) {
    let timeField = TimeField.name(fieldName("ts"))
    let walks = LineWalks(timeField: timeField, keyField: selector(key), exempt: nil, delimiter: nil)
    precondition(walks.time != nil && walks.keyValue != nil, "one walk finds the time and the key")
    let reader = TimestampReader(format: format, field: timeField, delimiter: nil, defaultYear: testYear,
                                 walk: walks.time)
    return (reader, walks)
}

/// The readings and keys of `lines`, read in order by one run's readers:
/// the time (which walks the line), then the key from the walk.
private func read(_ lines: [String], format: TimeFormat = .unix, key: String = "host") -> [String] {
    var (reader, walks) = timeReader(format: format, key: key)
    let keys = KeyExtractor(selector(key), delimiter: nil, walked: walks.keyValue, walking: nil)
    return lines.map { line in
        withBytes(line) { raw in
            let reading: String
            switch reader.read(raw) {
            case let .time(t, _): reading = "\(t.nanoseconds)"
            case let .bad(why): reading = "\(why)"
            }
            return reading + " '" + String(decoding: keys.key(of: raw), as: UTF8.self) + "'"
        }
    }
}

/// Whether the walk read the last line's time itself.
private func walkReads(_ line: String, format: TimeFormat = .unix) -> Bool {
    var (reader, walks) = timeReader(format: format, key: "host")
    _ = withBytes(line) { reader.read($0) }
    _ = withBytes(line) { reader.read($0) }
    return walks.time?.time.pointee.found == true
}

extension Fields {
    @Suite struct WalkedTimeTests {
        @Test func theWalkReadsATenDigitTimeOnceTheFormatIsUnix() {
            let line = #"{"ts":1795953600.000569,"host":"a"}"#
            #expect(walkReads(line))
            #expect(walkReads(line, format: .auto))
            #expect(!walkReads(line, format: .unixMs))
            #expect(!walkReads(#"{"ts":"1795953600.000569","host":"a"}"#))
        }

        @Test func timesReadInTheWalk() {
            #expect(read([#"{"ts":1795953600.000569,"host":"a"}"#, #"{"ts":1795953600.5,"host":"b"}"#,
                          #"{"ts":1795953601.123456789,"host":"c"}"#, #"{ "ts" : 1795953602.25 , "host" : "d" }"#,
                          #"{"level":"x","ts":1795953603.1,"host":"e"}"#])
                    == ["1795953600000569000 'a'", "1795953600500000000 'b'", "1795953601123456789 'c'",
                        "1795953602250000000 'd'", "1795953603100000000 'e'"])
            // Under auto, from the line after the one that settles it.
            #expect(read([#"{"ts":1795953600.5,"host":"a"}"#, #"{"ts":1795953600.25,"host":"b"}"#], format: .auto)
                    == ["1795953600500000000 'a'", "1795953600250000000 'b'"])
        }

        @Test func aLineTheWalkDoesNotReadIsNotGivenTheLastLinesTime() {
            #expect(read([#"{"ts":1795953600.5,"host":"a"}"#, #"{"ts":"1795953601.5","host":"b"}"#,
                          #"{"host":"c"}"#, #"{"ts":1795953602,"host":"d"}"#, #"host=e ts=1795953603.5"#,
                          #"{"ts":1795953604.5}"#])
                    == ["1795953600500000000 'a'", "1795953601500000000 'b'", "no time field 'ts' (no such JSON member or logfmt key) 'c'",
                        "1795953602000000000 'd'", "1795953603500000000 'e'", "1795953604500000000 ''"])
        }

        @Test func numbersTheShortParserLeavesReadAsBefore() {
            // Ten fraction digits: the ninth is the last kept.
            #expect(read([#"{"ts":1795953600.1234567891,"host":"a"}"#]) == ["1795953600123456789 'a'"])
            // A valid number the format does not fit whole.
            #expect(read([#"{"ts":1795953600.5e3,"host":"a"}"#]) == ["timestamp does not match --time-format unix 'a'"])
            // Nine digits.
            #expect(read([#"{"ts":179595360.5,"host":"a"}"#]) == ["179595360500000000 'a'"])
        }

        @Test func numbersStrictJSONRefusesMakeTheMembersMissing() {
            // A leading zero, a dot without a digit, a number run into a
            // letter: the time and the key after it are missing.
            let missing = "no time field 'ts' (no such JSON member or logfmt key) ''"
            #expect(read([#"{"ts":0795953600.5,"host":"a"}"#, #"{"ts":1795953600.,"host":"a"}"#,
                          #"{"ts":1795953600.5x,"host":"a"}"#, #"{"ts":1795953600.000569x,"host":"a"}"#])
                    == [missing, missing, missing, missing])
        }

        @Test func theFirstTimeMemberCountsAndTheKeyMayBeTheTime() {
            #expect(read([#"{"ts":1795953600.5,"ts":1795953601.5,"host":"a"}"#]) == ["1795953600500000000 'a'"])
            #expect(read([#"{"ts":"x","ts":1795953601.5,"host":"a"}"#])
                    == ["timestamp does not match --time-format unix 'a'"])
            #expect(read([#"{"ts":1795953600.000569,"host":"a"}"#], key: "ts") == ["1795953600000569000 '1795953600.000569'"])
        }
    }
}
