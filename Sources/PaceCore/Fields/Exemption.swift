// `--exempt ITEM=VALUES`: lines whose field ITEM has one of VALUES pass
// outside the policy (SPEC, Semantics). ITEM is one item of Fields, a
// number or a NAME (not a range, a list or masked); VALUES are
// comma-separated and none is empty. A line's value is found by a key
// extractor of that one item, so the field rules are those of --key-field;
// a missing field is the empty value, which no VALUE equals.

/// What `--exempt` parsed into.
package struct Exemption: Equatable, Sendable {
    /// The field: `.field(N)` or `.name`.
    package let item: FieldItem
    /// The values, ASCII lower-cased (the comparison ignores ASCII case).
    package let values: [[UInt8]]

    /// An `--exempt` value: `ITEM=VALUES`.
    package static func parse(_ text: String) -> Result<Exemption, FieldSyntaxError> {
        let bytes = Array(text.utf8)
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else {
            return .failure(FieldSyntaxError(description: "'\(text)' is not ITEM=VALUES (no '=')"))
        }
        let itemText = String(decoding: bytes[..<equals], as: UTF8.self)
        if itemText.isEmpty { return .failure(FieldSyntaxError(description: "'\(text)' names no field before '='")) }
        if itemText.utf8.contains(UInt8(ascii: ",")) {
            return .failure(FieldSyntaxError(description: "'\(itemText)': the field is one item (a number or a NAME), not a list"))
        }
        if itemText.utf8.last == UInt8(ascii: "~") {
            return .failure(FieldSyntaxError(description: "'\(itemText)': the field is not masked ('~' is for --key-field)"))
        }
        let item: FieldItem
        switch FieldSelector.parse(itemText) {
        case let .success(selector):
            item = selector.items[0]
        case let .failure(error):
            return .failure(error)
        }
        switch item {
        case .range, .from:
            return .failure(FieldSyntaxError(description: "'\(itemText)': the field is one item (a number or a NAME), not a range"))
        case .field, .name:
            break
        }
        let values = bytes[(equals + 1)...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        if values.contains(where: \.isEmpty) {
            return .failure(FieldSyntaxError(description: "'\(text)' has an empty value (VALUES are comma-separated, none empty)"))
        }
        return .success(Exemption(item: item, values: values.map { $0.map(asciiLowercased) }))
    }
}

/// Decides, line by line, whether a line is exempt.
package struct ExemptionMatcher {
    private let field: KeyExtractor
    private let values: [[UInt8]]

    package init(_ exemption: Exemption, delimiter: UInt8?) {
        field = KeyExtractor(FieldSelector([exemption.item]), delimiter: delimiter)
        values = exemption.values
    }

    /// Whether the line (its fields, as keys see them) is exempt.
    package func exempts(_ fields: UnsafeRawBufferPointer) -> Bool {
        let value = field.key(of: fields)
        for candidate in values where candidate.count == value.count {
            var equal = true
            for i in 0..<value.count where asciiLowercased(value[i]) != candidate[i] {
                equal = false
                break
            }
            if equal { return true }
        }
        return false
    }
}

@inline(__always)
private func asciiLowercased(_ b: UInt8) -> UInt8 { b &- UInt8(ascii: "A") < 26 ? b | 0x20 : b }
