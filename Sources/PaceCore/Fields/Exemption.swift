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
    package static func parse(_ text: String) -> Result<Exemption, FieldSyntaxError> { parse(bytes: Array(text.utf8)) }

    /// An `--exempt` value as the bytes of its argument: VALUES are compared
    /// as bytes, so one that is not UTF-8 stays as given (messages show such
    /// a byte as U+FFFD).
    package static func parse(bytes: [UInt8]) -> Result<Exemption, FieldSyntaxError> {
        let text = String(decoding: bytes, as: UTF8.self)
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
        switch parseOneItem(Array(bytes[..<equals])) {
        case let .success(parsed): item = parsed
        case let .failure(error): return .failure(error)
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

/// Decides, line by line, whether a line is exempt. A class, so the driver
/// holds one reference (a struct of arrays was retained and released field
/// by field at every line), with the values back to back in one buffer.
package final class ExemptionMatcher {
    private let field: KeyExtractor
    /// Every value, lower-cased, one after the other.
    private let bytes: UnsafeMutableRawBufferPointer
    /// Where each value ends in `bytes`.
    private let ends: UnsafeMutableBufferPointer<Int>
    /// `--exempt M=…` with `--key-field N`, both blank-separated fields and
    /// N < M: the field is M - N fields past the key's end, so the walk
    /// goes on from there instead of crossing fields 1 to N again (0: not
    /// so; the field is found by a walk of its own).
    private let fieldsAfterKey: Int

    /// `walked`: where another's walk of the line finds the field
    /// (LineWalk.swift); nil: the field is found by a walk of its own.
    /// `key`: `--key-field`'s selector, if any.
    package convenience init(_ exemption: Exemption, delimiter: UInt8?, key: FieldSelector? = nil) {
        self.init(exemption, delimiter: delimiter, walked: nil, key: key)
    }

    init(_ exemption: Exemption, delimiter: UInt8?, walked: WalkedValue?, key: FieldSelector? = nil) {
        field = KeyExtractor(FieldSelector([exemption.item]), delimiter: delimiter, walked: walked, walking: nil)
        if delimiter == nil, walked == nil, let key, key.items.count == 1, !key.isMasked,
           case let .field(n) = key.items[0], case let .field(m) = exemption.item, m > n {
            fieldsAfterKey = m - n
        } else {
            fieldsAfterKey = 0
        }
        let all = exemption.values.flatMap { $0 }
        bytes = .allocate(byteCount: max(all.count, 1), alignment: 8)
        bytes.copyBytes(from: all)
        ends = .allocate(capacity: exemption.values.count)
        var end = 0
        for (i, value) in exemption.values.enumerated() {
            end += value.count
            ends[i] = end
        }
    }

    deinit {
        bytes.deallocate()
        ends.deallocate()
    }

    /// Whether the line (its fields, as keys see them) is exempt.
    @inline(__always)
    package func exempts(_ fields: UnsafeRawBufferPointer) -> Bool {
        matches(field.key(of: fields))
    }

    /// The same, given the line's key as `--key-field` took it from
    /// `fields`: past the key when that saves a walk (`fieldsAfterKey`).
    @inline(__always)
    package func exempts(_ fields: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) -> Bool {
        guard fieldsAfterKey > 0, key.count > 0, let line = fields.baseAddress, let start = key.baseAddress,
              start >= line, start + key.count <= line + fields.count else { return exempts(fields) }
        // The key ends at a blank or at the line's end: the rest's first
        // field is the one after it.
        let rest = UnsafeRawBufferPointer(rebasing: fields[(start - line + key.count)...])
        let range = fieldRange(rest, field: fieldsAfterKey)
        return matches(UnsafeRawBufferPointer(rebasing: rest[range]))
    }

    @inline(__always)
    private func matches(_ value: UnsafeRawBufferPointer) -> Bool {
        var start = 0
        for end in ends {
            if end &- start == value.count && equalIgnoringCase(value, from: start) { return true }
            start = end
        }
        return false
    }

    private func equalIgnoringCase(_ value: UnsafeRawBufferPointer, from start: Int) -> Bool {
        for i in 0..<value.count where asciiLowercased(value[i]) != bytes[start &+ i] { return false }
        return true
    }
}

@inline(__always)
private func asciiLowercased(_ b: UInt8) -> UInt8 { b &- UInt8(ascii: "A") < 26 ? b | 0x20 : b }
