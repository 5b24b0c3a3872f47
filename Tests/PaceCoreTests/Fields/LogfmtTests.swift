// SPEC's logfmt rules: pairs and bare keys separated by blanks, bare and
// quoted values, `\"` and `\\` decoded and other escapes kept, the first
// pair of a key, quoted text no pair, an unterminated quote ending the
// pairs, dots part of the name.

import Testing
@testable import PaceCore
import PaceTesting

extension Fields {
    @Suite struct LogfmtTests {
        @Test func pairs() {
            let line = #"time=2026-11-29T12:00:00Z level=INFO msg="request done" status=200 path=/a=b"#
            #expect(structuredText(line, "time") == "2026-11-29T12:00:00Z")
            #expect(structuredText(line, "level") == "INFO")
            #expect(structuredText(line, "msg") == "request done")
            #expect(structuredText(line, "status") == "200")
            // A bare value runs to the next blank, `=` included.
            #expect(structuredText(line, "path") == "/a=b")
            #expect(structuredText(line, "nope") == nil)
        }

        @Test func blanksAndBareKeys() {
            let line = "  \ta=1\t\tflag  b= c=3"
            #expect(structuredText(line, "a") == "1")
            // A bare key and an empty value are present, and empty.
            #expect(structuredText(line, "flag") == "")
            #expect(structuredText(line, "b") == "")
            #expect(structuredText(line, "c") == "3")
        }

        @Test func quoting() {
            #expect(structuredText(#"m="say \"hi\"""#, "m") == #"say "hi""#)
            #expect(structuredText(#"m="back\\slash""#, "m") == #"back\slash"#)
            // Other escapes are kept as written.
            #expect(structuredText(#"m="a\nb\tc\u0041""#, "m") == #"a\nb\tc\u0041"#)
            #expect(structuredText(#"m="""#, "m") == "")
            // `\\` before the closing quote: the quote closes.
            #expect(structuredText(#"m="x\\" n=2"#, "n") == "2")
            // A quoted value ends at its quote; the next pair may follow at once.
            #expect(structuredText(#"a="x"b=1"#, "b") == "1")
        }

        @Test func textInsideQuotesIsNoPair() {
            let line = #"msg="user=alice host=evil" host=web-1"#
            #expect(structuredText(line, "host") == "web-1")
            #expect(structuredText(line, "user") == nil)
        }

        @Test func theFirstPairOfAKeyCounts() {
            #expect(structuredText("k=1 k=2", "k") == "1")
            #expect(structuredText("k k=2", "k") == "")
        }

        @Test func anUnterminatedQuoteEndsThePairs() {
            let line = #"a=1 msg="never closed b=2"#
            #expect(structuredText(line, "a") == "1")
            #expect(structuredText(line, "b") == nil)
            #expect(structuredText(line, "msg") == nil)
            #expect(structuredText(#"a="x\"#, "a") == nil)
        }

        @Test func dotsArePartOfTheName() {
            let line = "http.status=500 http=x"
            #expect(structuredText(line, "http.status") == "500")
            #expect(structuredText(line, "http") == "x")
        }

        @Test func aCarriageReturnEndingTheLineIsNoPart() {
            #expect(structuredText("a=1 b=2\r", "b") == "2")
            #expect(structuredText("a=1 b\r", "b") == "")
            #expect(structuredText("a=\"x\r", "a") == nil)
        }

        @Test func quotesOnlyOpenAValue() {
            // A quote inside a key or a bare value is an ordinary byte.
            #expect(structuredText(#"a"b=1 c=d"e f=2"#, #"f"#) == "2")
            #expect(structuredText(#"c=d"e f=2"#, "c") == #"d"e"#)
        }
    }
}
