// What the field tests share: the suite they nest in (`swift test --filter
// Fields`), and short ways to read a NAME or a key from a string line.
//
// Expected values are written out by hand from SPEC's text.

import Testing
@testable import PaceCore
import PaceTesting

@Suite enum Fields {}

/// A NAME as the parser would make it.
func fieldName(_ text: String) -> FieldName {
    guard case let .success(.name(name)) = TimeField.parse(text) else { preconditionFailure("not a NAME: \(text)") }
    return name
}

/// The value of NAME in `line` as bytes, or nil when it is missing.
func structured(_ line: [UInt8], _ name: String) -> [UInt8]? {
    let layout = NameLayout(fieldName(name))
    return withExtendedLifetime(layout) { structured(line, layout.view) }
}

private func structured(_ line: [UInt8], _ name: NameView) -> [UInt8]? {
    line.withUnsafeBytes { raw -> [UInt8]? in
        let value = structuredValue(raw, end: contentLength(raw), name: name)
        if value == .missing { return nil }
        let scratch = ByteScratch()
        return withExtendedLifetime(scratch) { Array(valueBytes(value, of: raw, scratch: scratch)) }
    }
}

func structured(_ line: String, _ name: String) -> [UInt8]? { structured(Array(line.utf8), name) }

/// `structured` as text, for readable expectations.
func structuredText(_ line: String, _ name: String) -> String? {
    structured(line, name).map { String(decoding: $0, as: UTF8.self) }
}

/// The selector a `--key-field` value parses into.
func selector(_ text: String) -> FieldSelector {
    guard case let .success(s) = FieldSelector.parse(text) else { preconditionFailure("bad field list: \(text)") }
    return s
}

/// The key bytes of each line under one extractor (lines in order, as a run
/// reads them, so the scratch is reused between them).
func keys(_ lines: [String], _ fields: String, delimiter: UInt8? = nil) -> [[UInt8]] {
    let extractor = KeyExtractor(selector(fields), delimiter: delimiter)
    return withExtendedLifetime(extractor) {
        lines.map { line in Array(line.utf8).withUnsafeBytes { Array(extractor.key(of: $0)) } }
    }
}

/// The key as `--stats` shows it.
func shownKey(_ line: String, _ fields: String, delimiter: UInt8? = nil) -> String {
    let extractor = KeyExtractor(selector(fields), delimiter: delimiter)
    let key = withExtendedLifetime(extractor) { Array(line.utf8).withUnsafeBytes { Array(extractor.key(of: $0)) } }
    return String(decoding: extractor.shown(key), as: UTF8.self)
}
