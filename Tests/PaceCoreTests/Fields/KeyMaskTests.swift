// Masked key items (`5-~`, `msg~`) against SPEC's rule, byte by byte: every
// maximal run of ASCII letters, digits, `_` and `.` that holds a digit
// becomes `#`; every other byte separates runs and is kept. Expected keys
// are written out by hand.

import Testing
@testable import PaceCore
import PaceTesting

/// `value` masked by the masker alone.
private func masked(_ value: [UInt8]) -> [UInt8] {
    let scratch = ByteScratch()
    return withExtendedLifetime(scratch) {
        _ = value.withUnsafeBytes { scratch.appendMasked($0) }
        return Array(scratch.bytes)
    }
}

private func masked(_ value: String) -> String { String(decoding: masked(Array(value.utf8)), as: UTF8.self) }

extension Fields {
    @Suite struct KeyMaskTests {
        @Test func spec() {
            #expect(masked("user 4711 failed from 10.0.0.7 at 12:03:44") == "user # failed from # at #:#:#")
            #expect(masked("user 17 failed from 10.0.0.9 at 12:09:01") == "user # failed from # at #:#:#")
        }

        @Test func digitsInsideWords() {
            #expect(masked("app[12]") == "app[#]")
            #expect(masked("sda1 sdb") == "# sdb")
            #expect(masked("v1.2.3") == "#")
            #expect(masked("0x7fff") == "#")
            #expect(masked("s3 ec2 ok") == "# # ok")
            #expect(masked("file_2.log") == "#")
            #expect(masked("file_a.log") == "file_a.log")
        }

        @Test func addressesIdsAndTimes() {
            #expect(masked("10.0.0.7:8080") == "#:#")
            #expect(masked("fe80::1ff:fe23:4567:890a") == "#::#:#:#:#")
            // A run without a digit stays: `fe` and `ab` here.
            #expect(masked("2001:db8::ff:ab") == "#:#::ff:ab")
            #expect(masked("123e4567-e89b-12d3-a456-426614174000") == "#-#-#-#-#")
            #expect(masked("12:03:44") == "#:#:#")
            #expect(masked("2026-11-29T12:00:00.123Z") == "#-#-#:#:#")
            #expect(masked(#"name="job 42" id='x9'"#) == #"name="job #" id='#'"#)
        }

        @Test func runsAtTheEdges() {
            #expect(masked("42") == "#")
            #expect(masked("42 end") == "# end")
            #expect(masked("start 42") == "start #")
            #expect(masked(" 42 ") == " # ")
            #expect(masked("-1") == "-#")
            #expect(masked("....") == "....")
            #expect(masked("a.1.") == "#")
        }

        @Test func nonASCIIBytesSeparateRuns() {
            // é is two bytes, 0xC3 0xA9: each a separator.
            #expect(masked("caf\u{E9}1 ab\u{E9}") == "caf\u{E9}# ab\u{E9}")
            #expect(masked([0x61, 0x31, 0xFF, 0x62, 0x80, 0x32]) == [0x23, 0xFF, 0x62, 0x80, 0x23])
            #expect(masked([0x00, 0x35, 0x7F]) == [0x00, 0x23, 0x7F])
        }

        @Test func anEmptyValue() {
            #expect(masked("") == "")
            #expect(shownKey("t", "2~") == "")
        }

        @Test func maskedItemsInKeys() {
            #expect(shownKey("0ms ERROR user 4711 failed", "2-~") == "ERROR user # failed")
            #expect(shownKey("0ms ERROR user 4711 failed", "3~") == "user")
            #expect(shownKey("0ms ERROR user 4711 failed", "4~") == "#")
            // Masked and plain items in one key: only the masked ones change.
            #expect(shownKey("0ms h7 user 4711", "2,3-~") == "h7 user #")
            // A masked range masks each field on its own, blanks kept apart.
            #expect(shownKey("0ms a1\tb2", "2-~") == "# #")
            #expect(sameKey("0ms x 1.2.3", "1ms x 9", "3~"))
            #expect(!sameKey("0ms x 1.2.3", "1ms x 9", "3"))
            #expect(!sameKey("0ms x 1 2", "0ms x 1", "2-~"))
            // NAMEs, JSON and logfmt, decoded before they are masked.
            #expect(shownKey(#"{"msg":"user 42 left","n":1}"#, "msg~") == "user # left")
            #expect(shownKey(#"{"msg":"user \u0034\u0032 left"}"#, "msg~") == "user # left")
            #expect(shownKey(#"level=info msg="took 12ms""#, "msg~") == "took #")
            #expect(shownKey(#"level=info msg="took 12ms""#, "level,msg~") == "info took #")
            // With a delimiter: the field's whole value.
            #expect(shownKey("a,b 12,c", "2~", delimiter: UInt8(ascii: ",")) == "b #")
        }

        @Test func parsing() {
            #expect(selector("5-~").masked == [true])
            #expect(selector("2,5-~,msg~").masked == [false, true, true])
            #expect(selector("2,5-~,msg~").items == [.field(2), .from(5), .name(FieldName(Array("msg".utf8)))])
            #expect(!selector("3").isMasked)
            for bad in ["~", "2,~", "2~~", "~2", "ms~g"] {
                guard case .failure = FieldSelector.parse(bad) else {
                    Issue.record("'\(bad)' parsed")
                    continue
                }
            }
            guard case .failure = TimeField.parse("1~") else { Issue.record("'1~' parsed as a time field"); return }
            guard case .failure = TimeField.parse("ts~") else { Issue.record("'ts~' parsed as a time field"); return }
        }
    }
}

// MARK: - Fuzzing the masker with the field extractors

/// A random line of tokens: runs (letters, digits, `_`, `.`) between
/// separators (blanks, punctuation, a quote, bytes above 0x7F). Each run is
/// returned apart, so a variant can change the runs that hold a digit.
private func randomTokens(_ random: inout SplitMix64) -> [(bytes: [UInt8], isRun: Bool)] {
    let runBytes = Array("abcxyzABZ_.0123456789".utf8)
    let separators: [UInt8] = Array(" \t:-[]/=\"',#".utf8) + [0xC3, 0xA9, 0xFF, 0x80, 0x7F, 0x01]
    var tokens: [(bytes: [UInt8], isRun: Bool)] = []
    for _ in 0..<(1 + random.below(12)) {
        if random.below(2) == 0 {
            tokens.append(((0..<(1 + random.below(6))).map { _ in runBytes[random.below(runBytes.count)] }, true))
        } else {
            tokens.append(((0..<(1 + random.below(2))).map { _ in separators[random.below(separators.count)] }, false))
        }
    }
    return tokens
}

/// The same tokens with every run that holds a digit replaced by another
/// that holds one (a run next to the same separators stays one run).
private func variant(_ tokens: [(bytes: [UInt8], isRun: Bool)], _ random: inout SplitMix64) -> [UInt8] {
    var line: [UInt8] = []
    var i = 0
    while i < tokens.count {
        // Adjacent run tokens make one run: take them together.
        guard tokens[i].isRun else {
            line += tokens[i].bytes
            i += 1
            continue
        }
        var run: [UInt8] = []
        while i < tokens.count && tokens[i].isRun { run += tokens[i].bytes; i += 1 }
        if run.contains(where: { $0 >= 0x30 && $0 <= 0x39 }) {
            let letters = Array("q_.7".utf8)
            run = (0..<random.below(4)).map { _ in letters[random.below(letters.count)] } + [UInt8(ascii: "0") + UInt8(random.below(10))]
        }
        line += run
    }
    return line
}

/// SPEC's rule, written again on arrays: the reference the masker is held to.
private func referenceMask(_ value: [UInt8]) -> [UInt8] {
    func isRun(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2E
    }
    var out: [UInt8] = []
    var run: [UInt8] = []
    func endRun() {
        out += run.contains(where: { $0 >= 0x30 && $0 <= 0x39 }) ? [0x23] : run
        run = []
    }
    for b in value {
        if isRun(b) { run.append(b) } else { endRun(); out.append(b) }
    }
    endRun()
    return out
}

extension Fields.KeyMaskTests {
    @Test func fuzzedLinesThroughTheExtractors() {
        var random = SplitMix64(seed: 23)
        for _ in 0..<3000 {
            let tokens = randomTokens(&random)
            let line = tokens.flatMap(\.bytes)
            let other = variant(tokens, &random)
            #expect(masked(line) == referenceMask(line), "\(line)")
            // No digit is left: every run that held one is a `#`.
            #expect(!masked(line).contains { $0 >= 0x30 && $0 <= 0x39 })
            let text = String(decoding: line, as: UTF8.self)
            let otherText = String(decoding: other, as: UTF8.self)
            // Split by blanks, by a delimiter, and as a logfmt value.
            for fields in ["1-~", "2~", "1~,3-~"] {
                let pair = keys([text, otherText], fields)
                #expect(pair[0] == pair[1], "\(fields): \(line) and \(other)")
            }
            let pair = keys([text, otherText], "1-~", delimiter: UInt8(ascii: ":"))
            #expect(pair[0] == pair[1])
            // As a JSON string's value: escaped, so any byte goes in.
            let json = { (bytes: [UInt8]) -> String in
                "{\"msg\":\"" + bytes.map { String(format: "\\u%04x", $0 < 0x80 ? Int($0) : 0x41) }.joined() + "\"}"
            }
            let members = keys([json(line), json(other)], "msg~")
            #expect(members[0] == members[1])
        }
    }
}

/// Whether two lines share a key.
private func sameKey(_ a: String, _ b: String, _ fields: String) -> Bool {
    let k = keys([a, b], fields)
    return k[0] == k[1]
}
