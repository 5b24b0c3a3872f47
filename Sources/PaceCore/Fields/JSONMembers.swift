// Several top-level members of a JSON line in one walk (issue 25: the time
// member and the key member were found by two walks from the `{`). The walk
// is `jsonMember`'s (JSONMember.swift), with each member name checked
// against every name still wanted, and it goes on past a found value until
// every name is found: what each name finds is what a walk of its own finds.
// A member is missing when anything before its value's end is malformed; a
// value found before a malformed byte is kept, as its own walk, which stops
// at its value, would keep it. At each name the first member counts.
//
// Only names of one level (`ts`, `host`, not `kubernetes.pod_name`) are
// walked together; dotted names keep a walk each (LineWalk.swift decides).

/// A NAME of at most 7 bytes with the quote that closes it, as the 8 bytes
/// after a member name's opening quote load (little-endian), and the mask
/// of those bytes: one load, an `and` and a compare tell a member of that
/// name, where a compare of the closing quote and of the bytes cost about
/// 17 instructions for each name at each member. A longer NAME has mask 0
/// and word 1, which no load matches: it is compared byte for byte.
struct NameWord {
    let word: UInt64
    let mask: UInt64

    init(_ name: UnsafeRawBufferPointer) {
        guard name.count < 8 else { (word, mask) = (1, 0); return }
        var word = UInt64(UInt8(ascii: "\"")) << (8 * name.count)
        for (k, b) in name.enumerated() { word |= UInt64(b) << (8 * k) }
        self.word = word
        mask = name.count == 7 ? ~0 : (1 << (8 * (name.count + 1))) - 1
    }

    /// Whether the NAME is compared byte for byte.
    var long: Bool { mask == 0 }
}

/// The top-level members `names` (undotted, distinct; `words` theirs;
/// `longNames`: whether some word is `long`) of the JSON object whose `{` is
/// at `start` of `line[..<end]`, into `values` (one per name; `.missing`
/// where there is none). `time`, when it `reads`: value 0 read as a unix
/// time where it lies (WalkedTime.swift).
func jsonMembers(_ line: UnsafeRawBufferPointer, objectAt start: Int, end: Int,
                 names: UnsafeBufferPointer<UnsafeRawBufferPointer>, words: UnsafeBufferPointer<NameWord>,
                 longNames: Bool, into values: UnsafeMutableBufferPointer<StructuredValue>,
                 time: UnsafeMutablePointer<WalkedTime>) {
    for k in values.indices { values[k] = .missing }
    guard let base = line.baseAddress else { return }
    var scan = JSONScanner(base: base, end: end, at: start)
    var wanted = names.count
    scan.i &+= 1
    scan.skipWhitespace()
    if scan.byte == UInt8(ascii: "}") { return }
    while true {
        guard scan.byte == UInt8(ascii: "\"") else { return }
        // A NAME holds no quote, backslash or control byte: when its bytes
        // and a quote follow, that is the whole member name.
        var which = -1
        let first = scan.i &+ 1
        // The short NAMEs by their words first: a load, an `and` and a
        // compare for each, about 8 instructions a NAME (a word of 0, near
        // the line's end, matches none). One loop taking each NAME by its
        // word or its bytes cost 22 a NAME.
        let loaded = first &+ 8 <= end
        let word = loaded ? UInt64(littleEndian: base.loadUnaligned(fromByteOffset: first, as: UInt64.self)) : 0
        for k in 0..<words.count where word & words[k].mask == words[k].word {
            scan.i = first &+ names[k].count &+ 1
            which = k
            break
        }
        // Then, when some NAME is long or the word could not be loaded, byte
        // for byte the NAMEs not told by their words.
        if which < 0 && (longNames || !loaded) {
            for k in 0..<names.count where words[k].long || !loaded {
                let name = names[k]
                let close = first &+ name.count
                if close < end && scan.byte(at: close) == UInt8(ascii: "\"")
                    && sameBytes(UnsafeRawBufferPointer(start: base + first, count: name.count), name) {
                    scan.i = close &+ 1
                    which = k
                    break
                }
            }
        }
        if which < 0 {
            guard let member = scan.string() else { return }
            if member.escaped {
                for k in 0..<names.count where scan.textEquals(member, names[k]) {
                    which = k
                    break
                }
            }
        }
        scan.skipWhitespace()
        guard scan.byte == UInt8(ascii: ":") else { return }
        scan.i &+= 1
        scan.skipWhitespace()
        // A name found already is skipped like any other: the first counts.
        if which >= 0 && values[which] == .missing {
            let value: StructuredValue
            if scan.byte == UInt8(ascii: "\"") {
                guard let s = scan.string() else { return }
                value = s.value
            } else if which == 0 && time.pointee.reads, case let after = scan.unixTimeEnd(at: scan.i, into: &time.pointee),
                      after >= 0 {
                value = .plain(scan.i..<after)
                scan.i = after
            } else {
                let (other, after) = scan.nonStringValue(at: scan.i)
                if other == .missing { return }
                scan.i = after
                value = other
            }
            values[which] = value
            wanted &-= 1
            if wanted == 0 { return }
        } else {
            let first = scan.byte
            if first == UInt8(ascii: "\"") {
                guard scan.string() != nil else { return }
            } else if startsNumber(first) {
                // By value, not `number()`, as in jsonMember.
                let after = scan.numberEnd(from: scan.i)
                guard after >= 0 else { return }
                scan.i = after
            } else {
                guard scan.skipValue(depth: 1) else { return }
            }
        }
        scan.skipWhitespace()
        guard scan.byte == UInt8(ascii: ",") else { return }
        scan.i &+= 1
        scan.skipWhitespace()
    }
}

/// The values of the logfmt keys `names` (distinct) in `line[..<end]`, into
/// `values`, in one walk of the pairs: `logfmtValue`'s (LogfmtPair.swift),
/// going on until every name is found. The first pair of a key counts; an
/// unterminated quote ends the pairs, for the names not found before it.
func logfmtValues(_ line: UnsafeRawBufferPointer, end: Int, names: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                  into values: UnsafeMutableBufferPointer<StructuredValue>) {
    for k in values.indices { values[k] = .missing }
    var wanted = names.count
    var i = 0
    while wanted > 0 {
        guard let (key, value, next) = logfmtPair(line, at: i, end: end) else { return }
        i = next
        let keyBytes = UnsafeRawBufferPointer(rebasing: line[key])
        for k in 0..<names.count where values[k] == .missing && sameBytes(keyBytes, names[k]) {
            values[k] = value
            wanted &-= 1
            break
        }
    }
}

/// The values of `names` (undotted, distinct) in a structured line, one
/// walk: a JSON object's members, or else logfmt's keys (as
/// `structuredValue` decides for one name).
func structuredValues(_ line: UnsafeRawBufferPointer, end: Int, names: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                      words: UnsafeBufferPointer<NameWord>, longNames: Bool,
                      into values: UnsafeMutableBufferPointer<StructuredValue>, time: UnsafeMutablePointer<WalkedTime>) {
    var i = 0
    while i < end && isBlank(line[i]) { i &+= 1 }
    if i < end && line[i] == UInt8(ascii: "{") {
        jsonMembers(line, objectAt: i, end: end, names: names, words: words, longNames: longNames, into: values,
                    time: time)
    } else {
        logfmtValues(line, end: end, names: names, into: values)
    }
}
