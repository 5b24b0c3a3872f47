// `--key-field`: the key bytes of a line, for the key table. SPEC: the key
// is the sequence of the items' values, and two lines share a key iff every
// item's value is the same bytes.
//
// A key of one value (one numbered field, one NAME) is that value: a slice
// of the line, or a decoded string. A key of several values (several items,
// or a range) is encoded in the extractor's scratch so that no two sequences
// meet: each value as an 8-byte length and its bytes, and each range first
// says how many values it holds. `a b` + `c` and `a` + `b c` stay apart;
// `shown` (KeyValuesShown.swift) joins the values by one space for
// `PACE_KEY`, `--stats` and `--marbles`, where they may look alike (still
// bytes: what a person sees is then escaped by `displayText`).
//
// A masked item (`5-~`, `msg~`) has its value masked (KeyMask.swift) into
// the scratch: one masked field or NAME is that masked value; in an encoded
// key, each masked value replaces the value, with its own length.
//
// A range's missing fields and empty ones are the same value, so trailing
// empty fields are dropped from it: with `--delimiter ,`, `2-` of `a,b` and
// of `a,b,` is the one value `b`.
//
// A key of one item may share a walk of the line (LineWalk.swift): it takes
// its value from replay's time walk (`walked`), or its own walk finds
// `--exempt`'s field too (`walking`).

package struct KeyExtractor {
    enum Shape { case unkeyed, blankField, delimitedField, name, masked, encoded, walked, walkedUnmasked, walking }

    let shape: Shape
    private let field: Int
    private let delimiter: UInt8
    private let delimited: Bool
    /// The NAME items' layouts, in item order (kept alive for `names`).
    private let layouts: [NameLayout]
    /// Where the NAME items' bytes are, in item order.
    private let names: [NameView]
    /// A key of one NAME: where its bytes are.
    private let name: NameView?
    let items: [FieldItem]
    /// Per item: masked (`5-~`): its value is written masked (KeyMask.swift).
    private let masks: [Bool]
    private let scratch = ByteScratch()
    /// A masked NAME's value, decoded before it is masked into `scratch`.
    private let unmasked = ByteScratch()
    /// `walked`: the walk the value comes from, and which of its values;
    /// `walking`: the walk that finds this key (its value 0) and more.
    private let walk: LineWalk?
    private let walkIndex: Int

    /// `selector` nil: every line has the empty key. A key of one item may
    /// take its value from another's walk (`walked`), or find its value in
    /// a walk that finds another's too (`walking`, value 0 its own).
    package init(_ selector: FieldSelector?, delimiter: UInt8?) {
        self.init(selector, delimiter: delimiter, walked: nil, walking: nil)
    }

    init(_ selector: FieldSelector?, delimiter: UInt8?, walked: WalkedValue?, walking: LineWalk?) {
        precondition(walked == nil || walking == nil, "KeyExtractor: a key reads a walk or walks, not both")
        walk = walked?.walk ?? walking
        walkIndex = walked?.index ?? 0
        self.delimiter = delimiter ?? 0
        delimited = delimiter != nil
        items = selector?.items ?? []
        masks = selector?.masked ?? []
        var field = 0
        var name: NameView?
        layouts = items.compactMap { item in
            if case let .name(n) = item { return NameLayout(n) }
            return nil
        }
        names = layouts.map(\.view)
        if selector == nil {
            shape = .unkeyed
        } else if walked != nil || walking != nil {
            precondition(items.count == 1, "KeyExtractor: a walk finds a key of one item")
            shape = walking != nil ? .walking : masks[0] ? .walked : .walkedUnmasked
        } else if items.count == 1, masks[0], case .field = items[0] {
            shape = .masked
        } else if items.count == 1, masks[0], case .name = items[0] {
            shape = .masked
        } else if items.count == 1, case let .field(n) = items[0] {
            shape = delimited ? .delimitedField : .blankField
            field = n
        } else if items.count == 1, case .name = items[0] {
            shape = .name
            name = names[0]
        } else {
            shape = .encoded
        }
        self.field = field
        self.name = name
    }

    /// Whether lines have keys of their own (`--key-field` was given).
    package var isKeyed: Bool { shape != .unkeyed }

    /// The key of `line` (content only: for `record`, past its prefix). It
    /// is valid until the next call: a slice of `line`, or of the scratch.
    ///
    /// The commonest shapes (a blank-separated field, no key, an unmasked
    /// NAME that replay's time walk found) are decided here, inlined into
    /// the loop; the others are a call away, so that this stays small enough to inline
    /// (inlining all of it cost `--key-field 2` a tenth of its speed).
    @inline(__always)
    package func key(of line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        key(of: line, after: .none)
    }

    /// `key(of:)`, where `known` says where an earlier blank-separated
    /// field of `line` is (replay's timestamp, `FieldPosition`): a key's
    /// field after it is searched for from there, not from the line's start.
    @inline(__always)
    package func key(of line: UnsafeRawBufferPointer, after known: FieldPosition) -> UnsafeRawBufferPointer {
        if shape == .blankField {
            let from = known.field < field ? known : .none
            return UnsafeRawBufferPointer(rebasing: line[fieldRange(line, field: field, after: from)])
        }
        if shape == .unkeyed { return .empty }
        // A JSON key from replay's time walk, as found in the line: three
        // calls away it cost about 95 instructions a line.
        if shape == .walkedUnmasked, case let .plain(range)? = walk.unsafelyUnwrapped.value(walkIndex, of: line) {
            return UnsafeRawBufferPointer(rebasing: line[range])
        }
        return otherKey(of: line)
    }

    @inline(never)
    private func otherKey(of line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        switch shape {
        case .blankField, .unkeyed:
            preconditionFailure("KeyExtractor: \(shape) is decided inline")
        case .delimitedField:
            let range = delimitedFieldRange(line, field: field, delimiter: delimiter) ?? 0..<0
            return UnsafeRawBufferPointer(rebasing: line[range])
        case .name:
            let value = structuredValue(line, end: contentLength(line), name: name.unsafelyUnwrapped)
            return valueBytes(value, of: line, scratch: scratch)
        case .masked:
            return maskedKey(line)
        case .encoded:
            return encodedKey(line)
        case .walked, .walkedUnmasked, .walking:
            return walkedKey(line)
        }
    }

    /// A key of one item, found by a walk that finds other values too: its
    /// value, masked when the item is.
    private func walkedKey(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let walk = walk.unsafelyUnwrapped
        let value: StructuredValue
        if shape == .walking {
            walk.walk(line)
            value = walk.value(0)
        } else {
            value = walk.value(walkIndex, of: line) ?? ownValue(line)
        }
        guard masks[0] else { return valueBytes(value, of: line, scratch: scratch) }
        let bytes = valueBytes(value, of: line, scratch: unmasked)
        scratch.count = 0
        scratch.appendMasked(bytes)
        return scratch.bytes
    }

    /// The one item's value, found by a walk of its own.
    private func ownValue(_ line: UnsafeRawBufferPointer) -> StructuredValue {
        let end = contentLength(line)
        switch items[0] {
        case let .field(n):
            return numberedField(line, n, end: end, delimited: delimited, delimiter: delimiter).map(StructuredValue.plain)
                ?? .missing
        case .name:
            return structuredValue(line, end: end, name: names[0])
        case .range, .from:
            preconditionFailure("KeyExtractor: a walk finds a key of one item")
        }
    }

    /// A key of one masked field or NAME: its value masked, in the scratch.
    private func maskedKey(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let end = contentLength(line)
        let value: UnsafeRawBufferPointer
        switch items[0] {
        case let .field(n):
            let range = numberedField(line, n, end: end, delimited: delimited, delimiter: delimiter) ?? 0..<0
            value = UnsafeRawBufferPointer(rebasing: line[range])
        case .name:
            value = valueBytes(structuredValue(line, end: end, name: names[0]), of: line, scratch: unmasked)
        case .range, .from:
            preconditionFailure("KeyExtractor: a masked range is encoded")
        }
        scratch.count = 0
        scratch.appendMasked(value)
        return scratch.bytes
    }

    private func encodedKey(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let end = contentLength(line)
        scratch.count = 0
        var nameIndex = 0
        for (index, item) in items.enumerated() {
            let masked = masks[index]
            switch item {
            case let .field(n):
                appendValue(numberedField(line, n, end: end, delimited: delimited, delimiter: delimiter), line,
                            masked: masked)
            case let .range(low, high):
                appendRange(line, low, high, end: end, masked: masked)
            case let .from(low):
                appendRange(line, low, Int.max, end: end, masked: masked)
            case .name:
                let lengthAt = scratch.count
                scratch.appendLength(0)
                let value = structuredValue(line, end: end, name: names[nameIndex])
                let n: Int
                if masked {
                    n = scratch.appendMasked(valueBytes(value, of: line, scratch: unmasked))
                } else {
                    n = scratch.append(value, of: line)
                }
                nameIndex += 1
                scratch.storeLength(n, at: lengthAt)
            }
        }
        return scratch.bytes
    }

    @inline(__always)
    private func appendValue(_ range: Range<Int>?, _ line: UnsafeRawBufferPointer, masked: Bool) {
        let range = range ?? 0..<0
        let value = UnsafeRawBufferPointer(rebasing: line[range])
        if masked {
            let lengthAt = scratch.count
            scratch.appendLength(0)
            scratch.storeLength(scratch.appendMasked(value), at: lengthAt)
        } else {
            scratch.appendLength(range.count)
            scratch.append(value)
        }
    }

    /// Fields `low` to `high` (as far as the line has them): their count,
    /// then each value; trailing empty ones dropped.
    private func appendRange(_ line: UnsafeRawBufferPointer, _ low: Int, _ high: Int, end: Int, masked: Bool) {
        let countAt = scratch.count
        scratch.appendLength(0)
        var values = 0
        var kept = (values: 0, end: scratch.count)
        var next: Range<Int>? = numberedField(line, low, end: end, delimited: delimited, delimiter: delimiter)
        var n = low
        while let range = next, n <= high {
            appendValue(range, line, masked: masked)
            values += 1
            if !range.isEmpty { kept = (values, scratch.count) }
            // The field after `range`.
            if delimited {
                next = range.upperBound < end
                    ? range.upperBound + 1..<nextByte(delimiter, in: line, from: range.upperBound + 1, end: end) : nil
            } else {
                var i = range.upperBound
                while i < end && isBlank(line[i]) { i += 1 }
                next = i < end ? i..<nextBlank(line, from: i, end: end) : nil
            }
            n += 1
        }
        scratch.count = kept.end
        scratch.storeLength(kept.values, at: countAt)
    }
}
