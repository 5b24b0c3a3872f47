// libFuzzer target: the field extractors over every line of the input never
// trap, and what they return stays inside the line or the scratch: JSON
// members and logfmt keys by several NAMEs (nested ones too), composite keys
// with ranges under blanks and a delimiter, and time fields by NAME. A
// decoded value is never longer than its escaped text. A time NAME read by
// the walk that finds the key too (which reads a unix time where it lies,
// WalkedTime.swift) reads every line as a walk of its own does, and so does
// the key it finds.

private let selectors: [(FieldSelector, UInt8?)] = {
    var list: [(FieldSelector, UInt8?)] = []
    for (text, delimiter) in [("a", nil), ("a.b", nil), ("k,a.b.c", nil), ("2", UInt8(ascii: ",")),
                              ("1,3-,a", UInt8(ascii: ",")), ("2-4,msg", nil), ("a,a", nil), ("@t,x-y", nil)]
        as [(String, UInt8?)] {
        if case let .success(selector) = FieldSelector.parse(text) { list.append((selector, delimiter)) }
    }
    return list
}()

private let extractors = selectors.map { KeyExtractor($0.0, delimiter: $0.1) }

/// Time fields are parsed per input: kept in a global, their enum payloads
/// carry spare-bit tags that hide the references from LeakSanitizer, which
/// then reports them as leaked at exit.
private let timeFieldNames = ["a", "k", "a.b", "ts"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFields(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    var readers = timeFieldNames.compactMap { name -> TimestampReader? in
        guard case let .success(field) = TimeField.parse(name) else { return nil }
        return TimestampReader(format: .auto, field: field, delimiter: nil, defaultYear: 2026)
    }
    guard case let .success(ts) = TimeField.parse("ts"), case let .success(host) = FieldSelector.parse("host")
    else { preconditionFailure("fuzzFields: the time field and key") }
    // A walk for each format: `auto` settling on another format would stop
    // the walk reading unix times for both.
    var pairs = [TimeFormat.auto, .unix].map { format in
        let walks = LineWalks(timeField: ts, keyField: host, exempt: nil, delimiter: nil)
        precondition(walks.time != nil && walks.keyValue != nil, "fuzzFields: one walk finds the time and the key")
        return (walked: TimestampReader(format: format, field: ts, delimiter: nil, defaultYear: 2026, walk: walks.time),
                alone: TimestampReader(format: format, field: ts, delimiter: nil, defaultYear: 2026),
                walkedKey: KeyExtractor(host, delimiter: nil, walked: walks.keyValue, walking: nil),
                keyAlone: KeyExtractor(host, delimiter: nil))
    }
    for line in lines {
        let raw = UnsafeRawBufferPointer(rebasing: line)
        for (extractor, (selector, _)) in zip(extractors, selectors) {
            let key = extractor.key(of: raw)
            if selector.items.count == 1, case .name = selector.items[0] {
                precondition(key.count <= raw.count, "a decoded value is longer than the line")
            }
            _ = extractor.shown(Array(key))
        }
        for i in readers.indices { _ = readers[i].read(raw) }
        for i in pairs.indices {
            precondition(pairs[i].walked.read(raw) == pairs[i].alone.read(raw), "a walked time reads otherwise")
            precondition(Array(pairs[i].walkedKey.key(of: raw)) == Array(pairs[i].keyAlone.key(of: raw)),
                         "a walked key reads otherwise")
        }
    }
    return 0
}
