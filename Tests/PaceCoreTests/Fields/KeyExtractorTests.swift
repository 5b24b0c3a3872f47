// `--key-field` lists against SPEC: numbered fields split by blanks or by
// one delimiter byte, ranges, NAMEs, composite keys that never confuse their
// values, and keys shown with their values joined by one space.

import Testing
@testable import PaceCore
import PaceTesting

private func text(_ bytes: [[UInt8]]) -> [String] { bytes.map { String(decoding: $0, as: UTF8.self) } }

/// Whether each pair of lines gets the same key.
private func sameKey(_ a: String, _ b: String, _ fields: String, delimiter: UInt8? = nil) -> Bool {
    let k = keys([a, b], fields, delimiter: delimiter)
    return k[0] == k[1]
}

extension Fields {
    @Suite struct KeyExtractorTests {
        @Test func oneNumberedFieldIsASliceOfTheLine() {
            let line: [UInt8] = Array("  2026 host7 GET".utf8)
            let extractor = KeyExtractor(.field(2), delimiter: nil)
            line.withUnsafeBytes { raw in
                let key = extractor.key(of: raw)
                #expect(key.baseAddress == raw.baseAddress! + 7 && key.count == 5)
            }
        }

        @Test func blanks() {
            #expect(text(keys(["a  b\tc", " \ta b", "a", "", "a b\r", "a \r"], "2")) == ["b", "b", "", "", "b", ""])
        }

        @Test func aDelimiterMakesEmptyFields() {
            let comma = UInt8(ascii: ",")
            #expect(text(keys(["a,b,c", ",b", "a,,c", "a", "", "a,b\r", " a , b "], "2", delimiter: comma))
                    == ["b", "b", "", "", "", "b", " b "])
            // A leading delimiter makes an empty field 1; a line without it is one field.
            #expect(text(keys([",x", "no commas here"], "1", delimiter: comma)) == ["", "no commas here"])
            // TAB as the delimiter: empty fields between two TABs.
            #expect(text(keys(["a\t\tc"], "3", delimiter: 0x09)) == ["c"])
            // Blanks are ordinary bytes then.
            #expect(text(keys(["a b|c d"], "2", delimiter: UInt8(ascii: "|"))) == ["c d"])
        }

        @Test func aMissingFieldAndAnEmptyOneAreTheSameValue() {
            let comma = UInt8(ascii: ",")
            #expect(sameKey("a,", "a", "2", delimiter: comma))
            #expect(sameKey("a,,c", "x,,c", "2,3", delimiter: comma))
            #expect(sameKey("a,b", "a,b,,", "1-4", delimiter: comma))
            #expect(sameKey("a,b", "a,b,", "2-", delimiter: comma))
            #expect(!sameKey("a,b", "a,b,x", "2-", delimiter: comma))
            #expect(!sameKey("a,,b", "a,b", "2-", delimiter: comma))
        }

        @Test func rangesPastTheLastField() {
            #expect(sameKey("a b", "x a b", "5-9"))
            #expect(sameKey("1 2 3", "1 2 3", "3-1000000"))
            #expect(sameKey("t h msg one", "t2 h2 msg one", "3-"))
            #expect(!sameKey("t h msg one", "t h msg two", "3-"))
            #expect(shownKey("t h msg  one\ttwo", "3-") == "msg one two")
            #expect(shownKey("t h", "3-") == "")
        }

        @Test func separatorsBetweenFieldsDoNotMatter() {
            #expect(sameKey("a b c", "a  b\tc", "1-3"))
            #expect(sameKey("x b c", "y  b\t c", "2,3"))
        }

        @Test func compositeValuesNeverRunTogether() {
            // `a b` + `c` and `a` + `b c` (SPEC's example), as JSON values.
            #expect(!sameKey(#"{"x":"a b","y":"c"}"#, #"{"x":"a","y":"b c"}"#, "x,y"))
            #expect(shownKey(#"{"x":"a b","y":"c"}"#, "x,y") == "a b c")
            #expect(shownKey(#"{"x":"a","y":"b c"}"#, "x,y") == "a b c")
            // Ranges next to each other, and values that are empty.
            #expect(!sameKey("a b c", "a b c d", "2-,1"))
            #expect(!sameKey("p=1 q=", "p= q=1", "p,q"))
            #expect(!sameKey("a,b,c", "a,bc,", "2,3", delimiter: UInt8(ascii: ",")))
            #expect(sameKey("1 2 3", "1 2 3", "1,1-2,2-,x"))
        }

        @Test func namesAndNumbersMix() {
            #expect(shownKey(#"{"host":"h1","svc":"api"}"#, "host,svc") == "h1 api")
            #expect(shownKey("ts host=h1 svc=api", "1,svc,host") == "ts api h1")
            #expect(shownKey(#"{"m":"line\none"}"#, "m") == "line\none")
            // A missing NAME is the empty value.
            #expect(shownKey("a=1", "b") == "")
            #expect(sameKey("a=1", "{\"c\":2}", "b"))
        }

        @Test func keysAreShownAsTheyAreForOneValue() {
            // One field or one NAME: the key bytes are the value, shown as is.
            #expect(shownKey("a b c", "2") == "b")
            #expect(shownKey(#"{"k":"a\"b"}"#, "k") == #"a"b"#)
        }

        @Test func theScratchIsReusedAcrossLines() {
            // A long decoded value, then a short one: no stale bytes.
            let long = String(repeating: "x", count: 1000)
            let lines = [#"{"k":"\#(long)\n"}"#, #"{"k":"\tb"}"#, "k=\"q\\\"\" j=2"]
            #expect(text(keys(lines, "k")) == [long + "\n", "\tb", "q\""])
            #expect(text(keys(lines, "k,j")).map(\.count) == [8 + 1001 + 8, 8 + 2 + 8, 8 + 2 + 8 + 1])
        }

        @Test("a --state file's key is checked against what the extractor makes: lengths and counts fill it exactly")
        func makesOnlyItsOwnKeys() {
            func length(_ n: UInt64) -> [UInt8] { withUnsafeBytes(of: n.littleEndian) { Array($0) } }
            let two = KeyExtractor(selector("1,2"), delimiter: UInt8(ascii: ","))
            let range = KeyExtractor(selector("2-"), delimiter: nil)
            func makes(_ extractor: KeyExtractor, _ key: [UInt8]) -> Bool { key.withUnsafeBytes { extractor.makes($0) } }
            let made = keys(["a,bc"], "1,2", delimiter: UInt8(ascii: ","))[0]
            #expect(made == length(1) + Array("a".utf8) + length(2) + Array("bc".utf8))
            #expect(makes(two, made))
            #expect(!makes(two, length(5) + Array("ab".utf8)))
            #expect(!makes(two, length(UInt64.max) + Array("ab".utf8)))
            #expect(!makes(two, [1]))
            #expect(!makes(two, []))
            #expect(!makes(two, made + [0]))
            #expect(!makes(two, made + length(0)))
            #expect(makes(two, length(0) + length(0)))
            #expect(makes(range, length(2) + length(1) + [0x61] + length(0)))
            #expect(!makes(range, length(3) + length(1) + [0x61] + length(0)))
            #expect(!makes(range, length(UInt64.max)))
            // A key of one value is any bytes.
            #expect(makes(KeyExtractor(selector("1"), delimiter: nil), length(5)))
        }
    }

    @Suite struct EmptyKeyTests {
        /// A missing JSON member's key has no base address, an empty field's is
        /// a slice of the line: the key table must see one key.
        @Test func anEmptyKeyIsOneKeyWithOrWithoutABaseAddress() {
            let line: [UInt8] = Array("abc".utf8)
            line.withUnsafeBytes { raw in
                let slice = UnsafeRawBufferPointer(rebasing: raw[1..<1])
                #expect(hashBytes(slice) == hashBytes(UnsafeRawBufferPointer(start: nil, count: 0)))
            }
            var scheduler = Scheduler(policy: ThrottleFirst<EventNumber>(window: 10),
                                      keys: ManyKeys<ThrottleFirst<EventNumber>.State>.self, sink: RecordingSink())
            for (n, text) in [#"{"host":""}"#, #"{"other":1}"#].enumerated() {
                var text = text
                text.withUTF8 { bytes in
                    let raw = UnsafeRawBufferPointer(bytes)
                    try! scheduler.send(raw, key: KeyExtractor(selector("host"), delimiter: nil).key(of: raw), at: 0,
                                        number: EventNumber(n + 1))
                }
            }
            try! scheduler.finish()
            #expect(scheduler.sink.emissions == [Emitted(time: 0, #"{"host":""}"#)])
    }
    }

    @Suite struct FieldListParsingTests {
        @Test func items() throws {
            #expect(selector("3").items == [.field(3)])
            #expect(selector("2,4").items == [.field(2), .field(4)])
            #expect(selector("5-").items == [.from(5)])
            #expect(selector("2-2,1-3").items == [.range(2, 2), .range(1, 3)])
            #expect(selector("host,@timestamp,_x,kubernetes.pod_name,x-request-id,a1").items.count == 6)
            #expect(selector("kubernetes.pod").items == [.name(fieldName("kubernetes.pod"))])
            #expect(fieldName("kubernetes.pod").path == [Array("kubernetes".utf8), Array("pod".utf8)])
        }

        @Test func timeFields() {
            #expect(TimeField.parse("4") == .success(.number(4)))
            #expect(TimeField.parse("ts") == .success(.name(fieldName("ts"))))
        }

        @Test func delimiters() {
            #expect(parseDelimiter(Array("\\t".utf8)) == .success(0x09))
            #expect(parseDelimiter(Array("\t".utf8)) == .success(0x09))
            #expect(parseDelimiter(Array("\\".utf8)) == .success(UInt8(ascii: "\\")))
            #expect(parseDelimiter(Array(",".utf8)) == .success(UInt8(ascii: ",")))
            #expect(parseDelimiter([0xFF]) == .success(0xFF))
            #expect((try? parseDelimiter(Array("::".utf8)).get()) == nil)
        }
    }
}
