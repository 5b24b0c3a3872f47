// Fields are found eight bytes at a time (nextBlank); these tests hold
// fieldRange against a byte-by-byte splitter on random lines of blanks, a
// final `\r`, and bytes near space and tab in value.

@testable import PaceCore
import PaceTesting
import Testing

/// Field `field` (1-based) the plain way: split on runs of spaces and tabs,
/// after dropping one final `\r`.
private func referenceField(_ line: [UInt8], _ field: Int) -> Range<Int> {
    var n = line.count
    if n > 0 && line[n - 1] == 0x0D { n -= 1 }
    var i = 0
    var seen = 0
    while i < n {
        while i < n && (line[i] == 0x20 || line[i] == 0x09) { i += 1 }
        if i >= n { break }
        let start = i
        while i < n && line[i] != 0x20 && line[i] != 0x09 { i += 1 }
        seen += 1
        if seen == field { return start..<i }
    }
    return 0..<0
}

/// Every place a search may start from: each byte of fields 1 to 4 and of
/// the blanks after each, as FieldPosition(field: F, offset: byte).
private func knownPlaces(_ line: [UInt8]) -> [FieldPosition] {
    var places: [FieldPosition] = []
    for known in 1...4 {
        let own = referenceField(line, known)
        guard !own.isEmpty else { continue }
        var after = own.upperBound
        while after < line.count && (line[after] == 0x20 || line[after] == 0x09) { after += 1 }
        for offset in own.lowerBound...max(own.upperBound, after - 1) {
            places.append(FieldPosition(field: known, offset: offset))
        }
    }
    return places
}

struct FieldScanTests {
    @Test func fieldsMatchAPlainSplit() {
        var rng = SplitMix64(seed: 5)
        let alphabet: [UInt8] = [0x20, 0x20, 0x09, 0x0D, 0x21, 0x1F, 0x08, 0x0A, 0x29, 0x89, 0xA0, 0x00, 0x01]
            + Array("abcdefgh0123456789.:[".utf8)
        for _ in 0..<30_000 {
            let line = (0..<rng.below(40)).map { _ in alphabet[rng.below(alphabet.count)] }
            line.withUnsafeBytes { raw in
                for field in 1...5 {
                    #expect(fieldRange(raw, field: field) == referenceField(line, field), "\(line) field \(field)")
                }
            }
        }
    }

    @Test func aFieldSearchedForFromAKnownPlaceIsTheSameField() {
        // From any byte of field F, or of the blanks after it, field N > F
        // is the field a search from the line's start finds.
        var rng = SplitMix64(seed: 6)
        let alphabet: [UInt8] = [0x20, 0x20, 0x09, 0x0D, 0x21, 0x1F, 0x0A, 0x00] + Array("abcdefgh0123456789.:[".utf8)
        for _ in 0..<4_000 {
            let line = (0..<rng.below(48)).map { _ in alphabet[rng.below(alphabet.count)] }
            line.withUnsafeBytes { raw in
                for place in knownPlaces(line) {
                    for field in (place.field + 1)...6 {
                        #expect(fieldRange(raw, field: field, after: place) == referenceField(line, field),
                                "\(line) field \(field) from \(place.field) at \(place.offset)")
                    }
                }
            }
        }
    }

    @Test func aKeyFieldFromAKnownPlaceIsTheFieldAPlainSplitGives() {
        // fieldRange tells the field right after a known place by two bytes
        // when one blank is there. Through the key extractor, from any byte
        // of field F or of the blanks after it, and from nothing known (F
        // 0), every key field is the plain split's (an earlier field too:
        // the search then starts at the line's start).
        var rng = SplitMix64(seed: 7)
        let alphabet: [UInt8] = [0x20, 0x20, 0x20, 0x09, 0x0D, 0x21, 0x1F, 0x0A, 0x00] + Array("abcdefgh0123.:[".utf8)
        let extractors = (1...6).map { KeyExtractor(selector("\($0)"), delimiter: nil) }
        withExtendedLifetime(extractors) {
            for _ in 0..<4_000 {
                let line = (0..<rng.below(40)).map { _ in alphabet[rng.below(alphabet.count)] }
                line.withUnsafeBytes { raw in
                    for place in [FieldPosition.none] + knownPlaces(line) {
                        for field in 1...6 {
                            let expected = Array(line[referenceField(line, field)])
                            #expect(Array(extractors[field - 1].key(of: raw, after: place)) == expected,
                                    "\(line) field \(field) from \(place.field) at \(place.offset)")
                        }
                    }
                }
            }
        }
    }

    @Test func aLineHasNoContentWhenItIsEmptyOrALoneCarriageReturn() {
        let cases: [([UInt8], Bool)] = [
            ([], true), ([0x0D], true), ([0x20], false), ([0x0A], false), ([0x0D, 0x0D], false),
            ([0x61, 0x0D], false), ([0x00], false),
        ]
        for (line, none) in cases {
            line.withUnsafeBytes { raw in
                #expect(hasNoContent(raw) == none, "\(line)")
                #expect(hasNoContent(raw) == (contentLength(raw) == 0), "\(line)")
            }
        }
    }
}
