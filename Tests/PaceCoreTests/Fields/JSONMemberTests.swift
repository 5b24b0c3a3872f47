// SPEC's JSON rules, sentence by sentence: a member by name, dots into
// nested objects, the first member of a name, decoded strings, literal
// scalars, exact objects and arrays, strict JSON up to the value's end and
// nothing read after it.

import Testing
@testable import PaceCore
import PaceTesting

extension Fields {
    @Suite struct JSONMemberTests {
        @Test func membersByName() {
            let line = #"{"ts":1795953600.5,"level":"info","host":"web-1","msg":"GET /"}"#
            #expect(structuredText(line, "host") == "web-1")
            #expect(structuredText(line, "ts") == "1795953600.5")
            #expect(structuredText(line, "msg") == "GET /")
            #expect(structuredText(line, "nope") == nil)
            // Names are case-sensitive, and a prefix is not the name.
            #expect(structuredText(line, "Host") == nil)
            #expect(structuredText(line, "hos") == nil)
        }

        @Test func blanksAndWhitespace() {
            // Leading blanks before `{`, and JSON whitespace between tokens.
            let line = " \t{ \"a\" :\n 1 , \"b\"\t:\r\"x\" }"
            #expect(structuredText(line, "a") == "1")
            #expect(structuredText(line, "b") == "x")
        }

        @Test func nestedPaths() {
            let line = #"{"log":"x","kubernetes":{"pod_name":"api-7","labels":{"app":"api"}},"pod_name":"outer"}"#
            #expect(structuredText(line, "kubernetes.pod_name") == "api-7")
            #expect(structuredText(line, "kubernetes.labels.app") == "api")
            #expect(structuredText(line, "pod_name") == "outer")
            // A step into something that is not an object finds nothing.
            #expect(structuredText(line, "log.x") == nil)
            #expect(structuredText(line, "kubernetes.nope") == nil)
            // A dotted member name is not reached by a dotted NAME: dots step.
            #expect(structuredText(#"{"a.b":1}"#, "a.b") == nil)
        }

        @Test func theFirstMemberOfANameCounts() {
            #expect(structuredText(#"{"k":"first","k":"second"}"#, "k") == "first")
            // Whatever its value: the later object is not looked into.
            #expect(structuredText(#"{"k":1,"k":{"x":2}}"#, "k.x") == nil)
            #expect(structuredText(#"{"k":{"y":1},"k":{"x":2}}"#, "k.x") == nil)
        }

        @Test func stringsAreDecoded() {
            #expect(structuredText(#"{"m":"a\"b\\c\/d"}"#, "m") == #"a"b\c/d"#)
            #expect(structured(#"{"m":"\b\f\n\r\t"}"#, "m") == [0x08, 0x0C, 0x0A, 0x0D, 0x09])
            #expect(structuredText(#"{"m":"caf\u00e9 \u20ac"}"#, "m") == "café €")
            // A surrogate pair is one code point: U+1F600.
            #expect(structured(#"{"m":"\ud83d\ude00"}"#, "m") == [0xF0, 0x9F, 0x98, 0x80])
            #expect(structured(#"{"m":"a\u0000b"}"#, "m") == [0x61, 0x00, 0x62])
            // Upper-case hex digits and escapes in member names.
            #expect(structuredText(#"{"h\u006Fst":"x"}"#, "host") == "x")
            // Raw UTF-8 passes through as it is.
            #expect(structuredText(#"{"m":"Grüße"}"#, "m") == "Grüße")
        }

        @Test func scalarsAreTheirLiteralText() {
            let line = #"{"i":-0,"f":1.5e+3,"e":2E-2,"t":true,"n":null,"z":false,"s":""}"#
            #expect(structuredText(line, "i") == "-0")
            #expect(structuredText(line, "f") == "1.5e+3")
            #expect(structuredText(line, "e") == "2E-2")
            #expect(structuredText(line, "t") == "true")
            #expect(structuredText(line, "n") == "null")
            #expect(structuredText(line, "z") == "false")
            #expect(structuredText(line, "s") == "")
        }

        @Test func objectsAndArraysAreTheirExactBytes() {
            let line = #"{"a":[1, {"b" : "c\n"}, []] ,"o":{ "x" :[ ] },"e":{}}"#
            #expect(structuredText(line, "a") == #"[1, {"b" : "c\n"}, []]"#)
            #expect(structuredText(line, "o") == #"{ "x" :[ ] }"#)
            #expect(structuredText(line, "e") == "{}")
        }

        /// Anything malformed before the member's value ends: missing.
        @Test(arguments: [
            "{\"a\":\"x\u{01}\",\"k\":1}",       // a raw control byte in an earlier string
            "{\"k\":\"x\ty\"}",                  // a raw TAB in the value itself
            #"{"a":"\ud83d","k":1}"#,            // a lone high surrogate
            #"{"a":"\ude00x","k":1}"#,           // a lone low surrogate
            #"{"a":"\ud83d\u0041","k":1}"#,      // a high surrogate without its low one
            #"{"a":01,"k":1}"#,                  // a leading zero
            #"{"k":01}"#,
            #"{"k":truex}"#,                     // a literal running on
            #"{"a":truex,"k":1}"#,
            #"{"k":nul}"#,
            #"{"k":1.}"#, #"{"k":-}"#, #"{"k":1e}"#, #"{"k":.5}"#, #"{"k":+1}"#,
            #"{"a":"\x","k":1}"#,                // an unknown escape
            #"{"a":"\u12G4","k":1}"#,
            #"{"a":1 "k":1}"#,                   // no comma
            #"{"a":1,,"k":1}"#,
            #"{'k':1}"#,                         // not JSON quotes
            #"{k:1}"#,
            #"{"a":[1,],"k":1}"#,                // a trailing comma in an array
            #"{"a":{"b":1,},"k":1}"#,
            #"{"a":[1}],"k":1}"#,
            #"{"k":[1,2"#,                       // an array unterminated
            #"{"k":"abc"#,                       // a string unterminated
            #"{"k" 1}"#,                         // no colon
        ])
        func malformedBeforeTheValueEnds(_ line: String) {
            #expect(structured(line, "k") == nil, "\(line)")
        }

        /// SPEC: a number or a literal ends only at a blank, `,`, `}`, `]` or
        /// the end of the line; anything else running on makes the member
        /// missing (issue 21).
        @Test(arguments: [
            #"{"k":5x}"#, #"{"k":5""#, #"{"k":5"}"#, #"{"k":5x,"a":1}"#, #"{"k":5:1}"#, #"{"k":5{}"#,
            #"{"k":5[]}"#, #"{"k":-1.5e3x}"#, #"{"k":true"}"#, #"{"k":null:}"#, #"{"k":false5}"#,
            #"{"k":5/}"#, #"{"k":5;}"#,
        ])
        func aScalarRunningOn(_ line: String) {
            #expect(structured(line, "k") == nil, "\(line)")
        }

        @Test func whereAScalarEnds() {
            #expect(structuredText(#"{"k":5 x"#, "k") == "5")
            #expect(structuredText("{\"k\":5\tx", "k") == "5")
            #expect(structuredText(#"{"k":5,x"#, "k") == "5")
            #expect(structuredText(#"{"k":5}"#, "k") == "5")
            #expect(structuredText(#"{"k":5]"#, "k") == "5")
            #expect(structuredText(#"{"k":5"#, "k") == "5")
            #expect(structuredText(#"{"k":true]"#, "k") == "true")
            #expect(structuredText(#"{"k":null"#, "k") == "null")
            #expect(structuredText("{\"k\":-0.5E+2\r", "k") == "-0.5E+2")
            // A member before the one asked for is held to the same rule.
            #expect(structuredText(#"{"a":5x,"k":1}"#, "k") == nil)
            #expect(structuredText(#"{"a":5 ,"k":1}"#, "k") == "1")
        }

        /// What follows the value is not read.
        @Test func malformedAfterTheValue() {
            #expect(structuredText(#"{"k":"v" garbage"#, "k") == "v")
            #expect(structuredText(#"{"k":1}}}}"#, "k") == "1")
            #expect(structuredText(#"{"k":1"#, "k") == "1")
            #expect(structuredText(#"{"k":true ,"x":01}"#, "k") == "true")
            #expect(structuredText(#"{"k":[1]"#, "k") == "[1]")
            #expect(structuredText("{\"k\":\"v\",\"x\":\"\u{01}\"}", "k") == "v")
            // A member after a malformed one is missing, one before it is not.
            #expect(structuredText(#"{"a":1,"b":01,"c":2}"#, "a") == "1")
            #expect(structuredText(#"{"a":1,"b":01,"c":2}"#, "c") == nil)
        }

        @Test func depthIsBounded() {
            let deep = String(repeating: "[", count: maximumJSONDepth + 10)
            #expect(structured("{\"a\":\(deep),\"k\":1}", "k") == nil)
            let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
            #expect(structuredText("{\"a\":\(fine),\"k\":1}", "k") == "1")
        }

        @Test func aCarriageReturnEndingTheLineIsNoPart() {
            #expect(structuredText("{\"k\":\"v\"}\r", "k") == "v")
            // An unterminated string does not take the `\r` as its text.
            #expect(structuredText("{\"k\":\"v\r", "k") == nil)
        }

        @Test func emptyObjectsAndNonObjects() {
            #expect(structuredText("{}", "k") == nil)
            #expect(structuredText("{", "k") == nil)
            // A line starting with `[` is not JSON for NAMEs: it is logfmt.
            #expect(structuredText(#"[{"k":1}]"#, "k") == nil)
        }
    }
}
