// What `--key-field`, `--time-field` and `--delimiter` parse into (SPEC's
// Fields section), and their parsing. A field list is comma-separated items:
// `N`, `N-M`, `N-`, or a NAME (a dotted JSON member path, or a logfmt key).

/// One item of a `--key-field` list.
package enum FieldItem: Equatable, Sendable {
    /// `N`: field N (1-based).
    case field(Int)
    /// `N-M`: fields N to M (N <= M).
    case range(Int, Int)
    /// `N-`: field N to the last.
    case from(Int)
    /// A NAME: a member of a JSON line, or a key of a logfmt line.
    case name(FieldName)
}

/// A NAME: it starts with a letter, `_` or `@` and holds letters, digits and
/// `_ - @ .`.
package struct FieldName: Equatable, Sendable {
    /// As typed: the logfmt key (dots are part of it).
    package let bytes: [UInt8]
    /// Split at each dot: the JSON member at each level of nesting.
    let path: [[UInt8]]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        path = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
    }

    package var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// `--key-field K`: the key is the sequence of the items' values.
package struct FieldSelector: Equatable, Sendable {
    package let items: [FieldItem]
    /// Per item: masked (`5-~`, `msg~`: see KeyMask.swift).
    package let masked: [Bool]

    /// `masked`: per item (nil: none is).
    package init(_ items: [FieldItem], masked: [Bool]? = nil) {
        precondition(!items.isEmpty, "FieldSelector: a field list has at least one item")
        precondition(masked == nil || masked!.count == items.count, "FieldSelector: one mask flag per item")
        self.items = items
        self.masked = masked ?? items.map { _ in false }
    }

    /// Whether any item is masked.
    package var isMasked: Bool { masked.contains(true) }

    /// `--key-field 2`.
    package static func field(_ n: Int) -> FieldSelector { FieldSelector([.field(n)]) }
}

/// `--time-field T`: a number (where the timestamp starts, or with
/// `--delimiter` field N's whole value) or a NAME (that field's whole value).
package enum TimeField: Equatable, Sendable {
    case number(Int)
    case name(FieldName)
}

/// Why a field list, a time field or a delimiter is refused; `bytes` follow
/// `pace: ` (bytes, since they may quote an argument that is not UTF-8).
package struct FieldSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    package let bytes: [UInt8]

    init(description: String) { bytes = Array(description.utf8) }

    init(bytes: [UInt8]) { self.bytes = bytes }

    package var description: String { String(decoding: bytes, as: UTF8.self) }
}

/// The largest field number accepted (as before field lists existed).
let maximumFieldNumber = 1_000_000

// MARK: - Parsing

extension FieldSelector {
    /// A `--key-field` value.
    package static func parse(_ text: String) -> Result<FieldSelector, FieldSyntaxError> { parse(bytes: Array(text.utf8)) }

    /// A field list as the bytes of its argument, so that a message names a
    /// byte that is not UTF-8 as it is (not as U+FFFD's first byte).
    package static func parse(bytes: [UInt8]) -> Result<FieldSelector, FieldSyntaxError> {
        let text = String(decoding: bytes, as: UTF8.self)
        var items: [FieldItem] = []
        var masked: [Bool] = []
        for part in bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            var item = Array(part)
            let mask = item.last == UInt8(ascii: "~")
            if mask {
                item.removeLast()
                if item.isEmpty {
                    return .failure(FieldSyntaxError(description: "'~' masks the item before it, and '\(text)' has none"))
                }
                if item.last == UInt8(ascii: "~") {
                    let whole = String(decoding: part, as: UTF8.self)
                    return .failure(FieldSyntaxError(description: "'\(whole)': one '~' masks an item (it ends it once)"))
                }
            }
            masked.append(mask)
            if item.isEmpty {
                let why = text.isEmpty ? "an empty field list" : "an empty item in the field list '\(text)'"
                return .failure(FieldSyntaxError(description: why))
            }
            switch parseItem(item) {
            case let .success(parsed): items.append(parsed)
            case let .failure(error): return .failure(error)
            }
        }
        return .success(FieldSelector(items, masked: masked))
    }
}

extension TimeField {
    /// A `--time-field` value: one number or one NAME.
    package static func parse(_ text: String) -> Result<TimeField, FieldSyntaxError> { parse(bytes: Array(text.utf8)) }

    /// A time field as the bytes of its argument (see `FieldSelector.parse(bytes:)`).
    package static func parse(bytes: [UInt8]) -> Result<TimeField, FieldSyntaxError> {
        let text = String(decoding: bytes, as: UTF8.self)
        if bytes.isEmpty { return .failure(FieldSyntaxError(description: "an empty time field")) }
        if bytes.contains(UInt8(ascii: ",")) {
            return .failure(FieldSyntaxError(description: "'\(text)': a time field is one field (a number or a NAME), not a list"))
        }
        if bytes.last == UInt8(ascii: "~") {
            return .failure(FieldSyntaxError(description: "'\(text)': a time field is not masked ('~' is for --key-field)"))
        }
        // A bad number's message names the one form a time field has.
        switch parseItem(bytes, numberForms: "") {
        case let .success(.field(n)): return .success(.number(n))
        case let .success(.name(name)): return .success(.name(name))
        case .success(.range), .success(.from):
            return .failure(FieldSyntaxError(description: "'\(text)': a time field is one field (a number or a NAME), not a range"))
        case let .failure(error):
            return .failure(error)
        }
    }
}

/// `--delimiter C`: any one byte, read from the argument's bytes (a
/// String would turn `\xff` into the three bytes of U+FFFD); `\t`
/// (backslash, t) means TAB. A refused value is quoted as given, as file
/// names are.
package func parseDelimiter(_ bytes: [UInt8]) -> Result<UInt8, FieldSyntaxError> {
    if bytes == [UInt8(ascii: "\\"), UInt8(ascii: "t")] { return .success(0x09) }
    guard bytes.count == 1 else {
        let got = bytes.isEmpty ? Array("it is empty".utf8)
            : [UInt8(ascii: "'")] + bytes + Array("' is \(bytes.count) bytes".utf8)
        return .failure(FieldSyntaxError(bytes: Array("'--delimiter' takes one byte (".utf8) + got + [UInt8(ascii: ")")]))
    }
    return .success(bytes[0])
}

/// One item of a field list, as `--exempt`'s ITEM is: a bad number's
/// message names only the one form (no ranges).
func parseOneItem(_ item: [UInt8]) -> Result<FieldItem, FieldSyntaxError> { parseItem(item, numberForms: "") }

/// One item; `numberForms` ends a bad number's message with the forms a
/// number may take where the item is.
private func parseItem(_ item: [UInt8], numberForms: String = ": N, N-M or N-") -> Result<FieldItem, FieldSyntaxError> {
    let text = String(decoding: item, as: UTF8.self)
    let first = item[0]
    // `-1`, `+2`: a signed number; `-x`, `-`: no number at all, and no NAME.
    if first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
        if item.count > 1 && isDigitByte(item[1]) {
            return .failure(FieldSyntaxError(description: "'\(text)': field numbers have no sign"))
        }
        return .failure(FieldSyntaxError(description: "'\(text)' is not a field number or a NAME (a NAME starts with a letter, '_' or '@')"))
    }
    if isDigitByte(first) { return parseNumbered(item, text, numberForms) }
    // Letters are any script's (`hôte`); the bytes are UTF-8, and a byte
    // that is not is refused as that byte.
    guard let name = String(validating: item, as: UTF8.self) else {
        let bad = item[invalidUTF8Start(item)]
        return .failure(FieldSyntaxError(description: "'\(text)' is not a NAME: byte \(bad) (a NAME holds letters, digits and '_ - @ .')"))
    }
    guard let start = name.unicodeScalars.first, isNameStart(start) else {
        return .failure(FieldSyntaxError(description: "'\(text)' is not a field number or a NAME (a NAME starts with a letter, '_' or '@')"))
    }
    if let bad = name.unicodeScalars.first(where: { !isNameScalar($0) }) {
        let shown = bad.value >= 0x20 && bad.value != 0x7F ? "'\(Character(bad))'" : "byte \(bad.value)"
        return .failure(FieldSyntaxError(description: "'\(text)' is not a NAME: \(shown) (a NAME holds letters, digits and '_ - @ .')"))
    }
    return .success(.name(FieldName(item)))
}

/// Where the first byte that does not begin or continue a well-formed UTF-8
/// sequence is in `bytes` (which holds one).
private func invalidUTF8Start(_ bytes: [UInt8]) -> Int {
    var end = bytes.count
    while String(validating: bytes[..<end], as: UTF8.self) == nil { end -= 1 }
    return end
}

/// `N`, `N-M` or `N-`; the first byte is a digit.
private func parseNumbered(_ item: [UInt8], _ text: String, _ forms: String) -> Result<FieldItem, FieldSyntaxError> {
    let dash = item.firstIndex(of: UInt8(ascii: "-"))
    let low = dash.map { Array(item[..<$0]) } ?? item
    let high = dash.map { Array(item[($0 + 1)...]) }
    guard let n = fieldNumber(low) else { return .failure(badNumber(text, forms)) }
    guard let high else { return .success(.field(n)) }
    if high.isEmpty { return .success(.from(n)) }
    if high[0] == UInt8(ascii: "+") || high[0] == UInt8(ascii: "-") {
        return .failure(FieldSyntaxError(description: "'\(text)': field numbers have no sign"))
    }
    guard let m = fieldNumber(high) else { return .failure(badNumber(text, forms)) }
    guard n <= m else {
        return .failure(FieldSyntaxError(description: "'\(text)': a range N-M needs N <= M"))
    }
    return .success(.range(n, m))
}

private func badNumber(_ text: String, _ forms: String) -> FieldSyntaxError {
    FieldSyntaxError(description: "invalid field '\(text)' (fields count from 1, up to \(maximumFieldNumber)\(forms))")
}

/// A field number: digits only, 1 to `maximumFieldNumber`.
private func fieldNumber(_ digits: [UInt8]) -> Int? {
    guard !digits.isEmpty, digits.count <= 7, digits.allSatisfy(isDigitByte) else { return nil }
    let n = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    return (1...maximumFieldNumber).contains(n) ? n : nil
}

private func isDigitByte(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

/// A letter (of any script), `_` or `@`.
private func isNameStart(_ s: Unicode.Scalar) -> Bool {
    s.isASCII ? isASCIILetter(UInt8(s.value)) || s == "_" || s == "@" : s.properties.isAlphabetic
}

/// After the first: a letter, a combining mark (a word's letters in many
/// scripts, `नमस्ते`'s virama, a decomposed `ô`), a digit, `-` or `.`.
private func isNameScalar(_ s: Unicode.Scalar) -> Bool {
    if s.isASCII { return isNameStart(s) || isDigitByte(UInt8(s.value)) || s == "-" || s == "." }
    switch s.properties.generalCategory {
    case .nonspacingMark, .spacingMark, .enclosingMark: return true
    default: return s.properties.isAlphabetic
    }
}
