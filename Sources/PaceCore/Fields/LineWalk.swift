// One walk of a line for several of its values (issues 23 and 25). The time
// field, the key and `--exempt`'s field were each found by a walk of their
// own from the line's start; where two of them are found the same way, one
// walk now finds both, and the reader that comes second takes its value from
// the walk instead of walking again:
//
//   replay, `--time-field NAME`     the time's walk finds the key's NAME and
//                                   `--exempt`'s NAME (undotted ones)
//   `--key-field` of one NAME       the key's walk finds `--exempt`'s NAME
//                                   (both undotted)
//
// Every other combination keeps a walk per value, but for numbered fields:
// `--exempt M` with `--key-field N`, N < M, reads on from the key's end
// (ExemptionMatcher, Exemption.swift), not from the line's start. A reader
// checks that the walk saw the very line it is given (its address and
// length) and walks itself when not, so a caller that reads a key alone
// still gets it right.

/// A walk of a line that found several values: undotted NAMEs. The values are kept, with the line
/// they were found in, until the next walk.
final class LineWalk {
    /// The NAMEs' layouts (kept alive for `names`).
    private let layouts: [NameLayout]
    private let names: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>
    private let words: UnsafeMutableBufferPointer<NameWord>
    /// Whether some NAME is too long for its word.
    private let longNames: Bool
    private let values: UnsafeMutableBufferPointer<StructuredValue>
    /// Value 0 read as a unix time by a JSON walk (WalkedTime.swift).
    let time: UnsafeMutablePointer<WalkedTime>
    /// The line the values were found in.
    private var seen: UnsafeRawPointer?
    private var seenCount = -1

    /// `names`: distinct, undotted; value k is `names[k]`'s.
    init(names: [FieldName]) {
        layouts = names.map(NameLayout.init)
        self.names = .allocate(capacity: names.count)
        for (k, layout) in layouts.enumerated() { self.names[k] = layout.view.bytes }
        words = .allocate(capacity: names.count)
        for k in words.indices { words.initializeElement(at: k, to: NameWord(self.names[k])) }
        longNames = words.contains { $0.long }
        values = .allocate(capacity: names.count)
        values.initialize(repeating: .missing)
        time = .allocate(capacity: 1)
        time.initialize(to: WalkedTime())
    }

    deinit {
        names.deallocate()
        words.deallocate()
        values.deallocate()
        time.deallocate()
    }

    /// Finds the values in `line` (content only, as keys see it).
    @inline(__always)
    func walk(_ line: UnsafeRawBufferPointer) {
        time.pointee.found = false
        structuredValues(line, end: contentLength(line), names: UnsafeBufferPointer(names),
                         words: UnsafeBufferPointer(words), longNames: longNames, into: values, time: time)
        seen = line.baseAddress
        seenCount = line.count
    }

    /// Value `k` of the line last walked.
    @inline(__always)
    func value(_ k: Int) -> StructuredValue { values[k] }

    /// Value `k` of `line`, or nil when the last walk was not of `line`.
    @inline(__always)
    func value(_ k: Int, of line: UnsafeRawBufferPointer) -> StructuredValue? {
        line.baseAddress == seen && line.count == seenCount ? values[k] : nil
    }
}

/// Where a reader takes its value: value `index` of `walk`.
struct WalkedValue {
    let walk: LineWalk
    let index: Int
}

/// Who walks the line for whom in a run (see the top of this file).
package struct LineWalks {
    /// Replay's walk for `--time-field NAME` (value 0 is the time's).
    let time: LineWalk?
    /// The key's walk, finding `--exempt`'s field too (value 0 the key's).
    let key: LineWalk?
    /// Where the key takes its value, when another walk finds it.
    let keyValue: WalkedValue?
    /// Where `--exempt` takes its value, when another walk finds it.
    let exemptValue: WalkedValue?

    /// No value found for another: a walk per value.
    package static var separate: LineWalks { LineWalks(time: nil, key: nil, keyValue: nil, exemptValue: nil) }

    private init(time: LineWalk?, key: LineWalk?, keyValue: WalkedValue?, exemptValue: WalkedValue?) {
        (self.time, self.key, self.keyValue, self.exemptValue) = (time, key, keyValue, exemptValue)
    }

    /// `timed`: lines' times come from `--time-field` (replay).
    package init(_ configuration: Configuration, timed: Bool) {
        self.init(timeField: timed ? configuration.timeField : nil, keyField: configuration.keyField,
                  exempt: configuration.exempt?.item, delimiter: configuration.delimiter)
    }

    init(timeField: TimeField?, keyField: FieldSelector?, exempt: FieldItem?, delimiter: UInt8?) {
        // The key's one item (masked or not); a list or a range walks alone.
        let keyItem = keyField.flatMap { $0.items.count == 1 ? $0.items[0] : nil }
        if case let .name(t) = timeField, t.path.count == 1 {
            var names = [t]
            func index(_ item: FieldItem?) -> Int? {
                guard let name = undotted(item) else { return nil }
                if let k = names.firstIndex(of: name) { return k }
                names.append(name)
                return names.count - 1
            }
            let (keyIndex, exemptIndex) = (index(keyItem), index(exempt))
            if keyIndex != nil || exemptIndex != nil {
                let walk = LineWalk(names: names)
                self.init(time: walk, key: nil, keyValue: keyIndex.map { WalkedValue(walk: walk, index: $0) },
                          exemptValue: exemptIndex.map { WalkedValue(walk: walk, index: $0) })
                // A numbered --exempt field beside a key from this walk
                // walks alone (JSON and logfmt lines have no such fields).
                return
            }
        }
        if let keyItem, let exempt {
            let walk: LineWalk?
            switch (keyItem, exempt) {
            case (.field, .field):
                // Measured: one walk to the later field, however it was
                // written (a field at a time, or counting field starts a word
                // at a time), cost more instructions than the inlined walk
                // of the key's field plus a second one for --exempt's. That
                // second one starts at the key's end when it can
                // (ExemptionMatcher's `fieldsAfterKey`).
                walk = nil
            case let (.name(k), .name(e)) where k.path.count == 1 && e.path.count == 1:
                walk = LineWalk(names: k == e ? [k] : [k, e])
            default:
                walk = nil
            }
            if let walk {
                let exemptIndex = undotted(exempt) == undotted(keyItem) ? 0 : 1
                self.init(time: nil, key: walk, keyValue: nil,
                          exemptValue: WalkedValue(walk: walk, index: exemptIndex))
                return
            }
        }
        self = .separate
    }
}

private func undotted(_ item: FieldItem?) -> FieldName? {
    guard case let .name(name)? = item, name.path.count == 1 else { return nil }
    return name
}
