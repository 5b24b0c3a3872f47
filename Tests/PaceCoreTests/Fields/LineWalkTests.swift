// One walk of the line for several values (LineWalk.swift): the key's walk
// finding `--exempt`'s field, and replay's time walk finding the key's and
// `--exempt`'s NAMEs. Each case reads the values the way a run does (the
// walker first, then the readers) and expects SPEC's values, written out by
// hand; a plan test pins that the walks are shared where they should be, so
// that the value tests exercise the combined walk and not a fallback.

import Testing
@testable import PaceCore
import PaceTesting

/// What a run reads of one line: the key, the exempt field's value as the
/// matcher sees it, and (with a time NAME) the time field's text.
private struct Read: Equatable, CustomStringConvertible {
    var time: String?
    var key: String
    var exempt: String

    var description: String { "time \(time ?? "nil"), key '\(key)', exempt '\(exempt)'" }
}

private func item(_ text: String) -> FieldItem { selector(text).items[0] }

/// Reads each line (in order, one set of readers) as a run does: the time
/// walk, then the key, then the exempt field.
private func read(_ lines: [String], time: String? = nil, key: String, exempt: String,
                  delimiter: UInt8? = nil) -> [Read] {
    let timeField = time.map { TimeField.name(fieldName($0)) }
    let walks = LineWalks(timeField: timeField, keyField: selector(key), exempt: item(exempt), delimiter: delimiter)
    let keys = KeyExtractor(selector(key), delimiter: delimiter, walked: walks.keyValue, walking: walks.key)
    let exempts = KeyExtractor(FieldSelector([item(exempt)]), delimiter: delimiter, walked: walks.exemptValue,
                               walking: nil)
    let times = timeField.map { TimeFieldText($0, delimiter: delimiter, walk: walks.time) }
    return withExtendedLifetime((keys, exempts)) {
        lines.map { line in
            Array(line.utf8).withUnsafeBytes { raw in
                let t = times.map { $0.text(of: raw).map { String(decoding: $0.text, as: UTF8.self) } } ?? nil
                let k = String(decoding: keys.key(of: raw), as: UTF8.self)
                let e = String(decoding: exempts.key(of: raw), as: UTF8.self)
                return Read(time: t, key: k, exempt: e)
            }
        }
    }
}

private func read(_ line: String, time: String? = nil, key: String, exempt: String, delimiter: UInt8? = nil) -> Read {
    read([line], time: time, key: key, exempt: exempt, delimiter: delimiter)[0]
}

extension Fields {
    @Suite struct LineWalkTests {
        @Test func theWalksAreSharedWhereBothValuesAreFoundAlike() {
            func plan(_ time: String?, _ key: String, _ exempt: String, delimiter: UInt8? = nil) -> String {
                let walks = LineWalks(timeField: time.map { .name(fieldName($0)) }, keyField: selector(key),
                                      exempt: item(exempt), delimiter: delimiter)
                return [walks.time != nil ? "time" : "-", walks.key != nil ? "key" : "-",
                        walks.keyValue.map { "k\($0.index)" } ?? "-", walks.exemptValue.map { "e\($0.index)" } ?? "-"]
                    .joined(separator: " ")
            }
            #expect(plan(nil, "2", "5") == "- - - -")
            #expect(plan(nil, "5-~", "5") == "- - - -")
            #expect(plan(nil, "2~", "2", delimiter: 0x2C) == "- - - -")
            #expect(plan(nil, "host", "level") == "- key - e1")
            #expect(plan(nil, "host", "host") == "- key - e0")
            #expect(plan(nil, "2", "level") == "- - - -")
            #expect(plan(nil, "a.b", "level") == "- - - -")
            #expect(plan(nil, "2,3", "5") == "- - - -")
            #expect(plan("ts", "host", "level") == "time - k1 e2")
            #expect(plan("ts", "host", "host") == "time - k1 e1")
            #expect(plan("ts", "ts", "level") == "time - k0 e1")
            #expect(plan("ts", "host", "5") == "time - k1 -")
            #expect(plan("ts", "2", "level") == "time - - e1")
            #expect(plan("ts", "2", "5") == "- - - -")
            #expect(plan("a.ts", "host", "level") == "- key - e1")
            #expect(plan("ts", "k.host", "5") == "- - - -")
        }

        // MARK: - The key and --exempt's field (numbered: a walk each)

        @Test func exemptFieldBeforeAfterOrTheKeysField() {
            let line = "  0ms\thost1 GET  /a ERROR tail"
            #expect(read(line, key: "2", exempt: "5") == Read(key: "host1", exempt: "ERROR"))
            #expect(read(line, key: "5", exempt: "2") == Read(key: "ERROR", exempt: "host1"))
            #expect(read(line, key: "3", exempt: "3") == Read(key: "GET", exempt: "GET"))
            #expect(read(line, key: "1", exempt: "6") == Read(key: "0ms", exempt: "tail"))
            #expect(read(line, key: "6", exempt: "1") == Read(key: "tail", exempt: "0ms"))
        }

        /// Every pair of fields of lines whose fields and blanks straddle
        /// eight-byte words.
        @Test func everyPairOfFieldsAcrossWords() {
            let lines: [(String, [String])] = [
                ("a b\tc  dddddddd e         f", ["a", "b", "c", "dddddddd", "e", "f"]),
                ("\t \t \t \t x1234567 y1234567z 12345678\t\t\t\t\t\t\t\tq", ["x1234567", "y1234567z", "12345678", "q"]),
                ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 ", (1...17).map(String.init)),
                ("onlyonefieldthatislong", ["onlyonefieldthatislong"]),
            ]
            for (line, fields) in lines {
                for k in 1...(fields.count + 1) {
                    for e in 1...(fields.count + 1) {
                        let expected = Read(key: k <= fields.count ? fields[k - 1] : "",
                                            exempt: e <= fields.count ? fields[e - 1] : "")
                        #expect(read(line, key: "\(k)", exempt: "\(e)") == expected, "\(line): \(k), \(e)")
                    }
                }
            }
        }

        @Test func aLineTooShortForEitherField() {
            #expect(read("0ms h1 GET", key: "2", exempt: "5") == Read(key: "h1", exempt: ""))
            #expect(read("0ms h1 GET", key: "5", exempt: "2") == Read(key: "", exempt: "h1"))
            #expect(read("0ms", key: "2", exempt: "5") == Read(key: "", exempt: ""))
            #expect(read("   \t ", key: "2", exempt: "1") == Read(key: "", exempt: ""))
            // A `\r` ending the line belongs to no field.
            #expect(read("0ms h1 ERROR\r", key: "2", exempt: "3") == Read(key: "h1", exempt: "ERROR"))
            #expect(read("0ms h1 \r", key: "2", exempt: "3") == Read(key: "h1", exempt: ""))
        }

        @Test func delimitedFields() {
            let comma = UInt8(ascii: ",")
            #expect(read("0ms,h1,,GET,ERROR", key: "2", exempt: "5", delimiter: comma) == Read(key: "h1", exempt: "ERROR"))
            #expect(read("0ms,h1,,GET,ERROR", key: "5", exempt: "3", delimiter: comma) == Read(key: "ERROR", exempt: ""))
            #expect(read(",h1", key: "1", exempt: "2", delimiter: comma) == Read(key: "", exempt: "h1"))
            #expect(read("0ms,h1,", key: "3", exempt: "2", delimiter: comma) == Read(key: "", exempt: "h1"))
            #expect(read("0ms,h1", key: "2", exempt: "3", delimiter: comma) == Read(key: "h1", exempt: ""))
            #expect(read("0ms h1 ERROR", key: "1", exempt: "2", delimiter: comma) == Read(key: "0ms h1 ERROR", exempt: ""))
            // Blanks are no separators with a delimiter.
            #expect(read(" a , b ", key: "2", exempt: "1", delimiter: comma) == Read(key: " b ", exempt: " a "))
        }

        @Test func aMaskedKeyWithItsExemptField() {
            #expect(read("0ms sda1 disk ERROR", key: "2~", exempt: "4") == Read(key: "#", exempt: "ERROR"))
            #expect(read("0ms v1.2 ERROR", key: "3~", exempt: "3") == Read(key: "ERROR", exempt: "ERROR"))
            #expect(read(#"{"m":"user 42","level":"error"}"#, key: "m~", exempt: "level")
                == Read(key: "user #", exempt: "error"))
        }

        /// The key NAME replay's time walk found: sliced from the line when
        /// plain, decoded when escaped, masked when `~`, empty when missing.
        @Test func aKeyTheTimeWalkFound() {
            let lines = [#"{"ts":1,"m":"user 42","level":"error"}"#, #"{"m":"h\u0031 7","ts":2}"#, #"{"ts":3}"#]
            #expect(read(lines, time: "ts", key: "m", exempt: "level")
                == [Read(time: "1", key: "user 42", exempt: "error"), Read(time: "2", key: "h1 7", exempt: ""),
                    Read(time: "3", key: "", exempt: "")])
            #expect(read(lines, time: "ts", key: "m~", exempt: "level")
                == [Read(time: "1", key: "user #", exempt: "error"), Read(time: "2", key: "# #", exempt: ""),
                    Read(time: "3", key: "", exempt: "")])
        }

        @Test func namesOfAKeyAndItsExemptField() {
            let json = #"{"level":"error","host":"h\u0031","msg":"x"}"#
            #expect(read(json, key: "host", exempt: "level") == Read(key: "h1", exempt: "error"))
            #expect(read(json, key: "level", exempt: "host") == Read(key: "error", exempt: "h1"))
            #expect(read(json, key: "host", exempt: "host") == Read(key: "h1", exempt: "h1"))
            #expect(read(json, key: "host", exempt: "nope") == Read(key: "h1", exempt: ""))
            #expect(read(json, key: "nope", exempt: "level") == Read(key: "", exempt: "error"))
            let logfmt = #"level=error host="h \"1\"" msg=x"#
            #expect(read(logfmt, key: "host", exempt: "level") == Read(key: #"h "1""#, exempt: "error"))
            #expect(read(logfmt, key: "msg", exempt: "host") == Read(key: "x", exempt: #"h "1""#))
        }

        /// Lines in a row through one set of readers: each reads its own
        /// line's values, never the last line's.
        @Test func eachLineItsOwnValues() {
            let lines = ["0ms a GET x ERROR", "1ms b", "2ms c POST y INFO", "", "3ms"]
            #expect(read(lines, key: "2", exempt: "5") == [
                Read(key: "a", exempt: "ERROR"), Read(key: "b", exempt: ""), Read(key: "c", exempt: "INFO"),
                Read(key: "", exempt: ""), Read(key: "", exempt: ""),
            ])
        }

        // MARK: - Replay's time walk finds the key (and --exempt's field)

        @Test func theTimeMemberAfterOrBeforeTheKeyMember() {
            let after = #"{"host":"h1","level":"info","ts":1795953600.5}"#
            #expect(read(after, time: "ts", key: "host", exempt: "level")
                == Read(time: "1795953600.5", key: "h1", exempt: "info"))
            let before = #"{"ts":"2026-11-29T12:00:00Z","host":"h2","level":"error","msg":"m"}"#
            #expect(read(before, time: "ts", key: "host", exempt: "level")
                == Read(time: "2026-11-29T12:00:00Z", key: "h2", exempt: "error"))
            #expect(read(before, time: "ts", key: "ts", exempt: "ts")
                == Read(time: "2026-11-29T12:00:00Z", key: "2026-11-29T12:00:00Z", exempt: "2026-11-29T12:00:00Z"))
        }

        @Test func nestedObjectsAreSkippedWithTheirMembers() {
            let line = #"{"req":{"ts":1,"host":"inner","level":["error"]},"host":"outer","ts":2,"level":{"a":1}}"#
            #expect(read(line, time: "ts", key: "host", exempt: "level")
                == Read(time: "2", key: "outer", exempt: #"{"a":1}"#))
            // An array of objects between them.
            let arrays = #"{"ts":3,"x":[{"host":"no"},[1,{"host":"no"}]],"host":"yes"}"#
            #expect(read(arrays, time: "ts", key: "host", exempt: "level") == Read(time: "3", key: "yes", exempt: ""))
        }

        @Test func escapedMemberNames() {
            let line = #"{"\u0074s":7,"ho\u0073t":"h\"1","lev\u0065l":"ERROR"}"#
            #expect(read(line, time: "ts", key: "host", exempt: "level") == Read(time: "7", key: #"h"1"#, exempt: "ERROR"))
        }

        /// A NAME of up to 7 bytes is told a word at a time, a longer one
        /// byte for byte, and byte for byte near the line's end; a member
        /// whose name begins or extends a NAME is another member.
        @Test func namesShortLongAndAlike() {
            let line = #"{"hos":"a","hostname":"b","host":"c","ts":1,"service":"s7","instance":"i8","t":2}"#
            #expect(read(line, time: "ts", key: "host", exempt: "hostname") == Read(time: "1", key: "c", exempt: "b"))
            #expect(read(line, time: "ts", key: "service", exempt: "instance")
                == Read(time: "1", key: "s7", exempt: "i8"))
            #expect(read(line, time: "ts", key: "hos", exempt: "servic") == Read(time: "1", key: "a", exempt: ""))
            #expect(read(line, time: "t", key: "hostnam", exempt: "s") == Read(time: "2", key: "", exempt: ""))
            #expect(read(#"{"ts":1,"ho":2}"#, time: "ts", key: "ho", exempt: "h") == Read(time: "1", key: "2", exempt: ""))
            #expect(read(#"{"ts":1,"host""#, time: "ts", key: "host", exempt: "x") == Read(time: "1", key: "", exempt: ""))
            #expect(read(#"{"ts":1,"hos"#, time: "ts", key: "hos", exempt: "x") == Read(time: "1", key: "", exempt: ""))
        }

        @Test func theFirstOfADuplicatedNameCounts() {
            let line = #"{"host":"first","ts":5,"host":"second","ts":6,"level":"a","level":"b"}"#
            #expect(read(line, time: "ts", key: "host", exempt: "level") == Read(time: "5", key: "first", exempt: "a"))
            // Whatever the first one's value is.
            let object = #"{"ts":1,"host":{"n":1},"host":"later"}"#
            #expect(read(object, time: "ts", key: "host", exempt: "level")
                == Read(time: "1", key: #"{"n":1}"#, exempt: ""))
        }

        @Test func missingMembers() {
            #expect(read(#"{"host":"h1"}"#, time: "ts", key: "host", exempt: "level") == Read(time: nil, key: "h1", exempt: ""))
            #expect(read(#"{"ts":1}"#, time: "ts", key: "host", exempt: "level") == Read(time: "1", key: "", exempt: ""))
            #expect(read(#"{}"#, time: "ts", key: "host", exempt: "level") == Read(time: nil, key: "", exempt: ""))
            #expect(read("not json at all", time: "ts", key: "host", exempt: "level") == Read(time: nil, key: "", exempt: ""))
        }

        /// What is malformed before a value's end makes that member missing;
        /// a value found before it stays found.
        @Test func malformedJSONStopsTheWalkWhereItIs() {
            #expect(read(#"{"ts":1,"host":"h1","x":01,"level":"error"}"#, time: "ts", key: "host", exempt: "level")
                == Read(time: "1", key: "h1", exempt: ""))
            #expect(read(#"{"ts":1x,"host":"h1"}"#, time: "ts", key: "host", exempt: "level")
                == Read(time: nil, key: "", exempt: ""))
            #expect(read(#"{"host":"h1","ts":truex}"#, time: "ts", key: "host", exempt: "level")
                == Read(time: nil, key: "h1", exempt: ""))
            // A line cut short after the members still has them.
            #expect(read(#"{"ts":2,"host":"h1","level":"info","msg":"cut"#, time: "ts", key: "host", exempt: "level")
                == Read(time: "2", key: "h1", exempt: "info"))
            #expect(read("{\"ts\":2,\"host\":\"a\u{01}b\",\"level\":\"info\"}", time: "ts", key: "host", exempt: "level")
                == Read(time: "2", key: "", exempt: ""))
        }

        /// Numbers and literals, kept or skipped, with blanks around them;
        /// a malformed one, kept or skipped, ends the walk.
        @Test func numbersAndLiteralsKeptAndSkipped() {
            #expect(read(#"{"n":-0.5e+3 ,"ts": 12E-1 , "host" :7,"level":null}"#, time: "ts", key: "host", exempt: "level")
                == Read(time: "12E-1", key: "7", exempt: "null"))
            #expect(read(#"{"ts":0,"b":true,"host":-1,"level":false}"#, time: "ts", key: "host", exempt: "level")
                == Read(time: "0", key: "-1", exempt: "false"))
            #expect(read(#"{"n":1.,"ts":1,"host":"h"}"#, time: "ts", key: "host", exempt: "level")
                == Read(time: nil, key: "", exempt: ""))
            #expect(read(#"{"ts":2,"host":-,"level":"x"}"#, time: "ts", key: "host", exempt: "level")
                == Read(time: "2", key: "", exempt: ""))
            #expect(read(#"{"ts":2,"host":1e,"level":"x"}"#, time: "ts", key: "host", exempt: "level")
                == Read(time: "2", key: "", exempt: ""))
        }

        @Test func logfmtTimeAndKey() {
            let line = #"ts=1795953600.5 level=error host="web 1" host=other"#
            #expect(read(line, time: "ts", key: "host", exempt: "level")
                == Read(time: "1795953600.5", key: "web 1", exempt: "error"))
            // An unterminated quote ends the pairs for the names after it.
            #expect(read(#"ts=3 msg="open host=h1"#, time: "ts", key: "host", exempt: "level")
                == Read(time: "3", key: "", exempt: ""))
        }
    }
}
