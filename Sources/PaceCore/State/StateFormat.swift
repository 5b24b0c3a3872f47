// The state file's text: a format a person can read with `head`, and that
// any key's bytes go through unchanged.
//
//   pace state 1
//   flags<TAB>--throttle=10000000000ns<TAB>--trailing=absent<TAB>...
//   keys<TAB>3
//   web-1<TAB>0<TAB>window<TAB>1795953610.250000000
//   db\t2<TAB>4<TAB>bucket<TAB>1795953601.000000000<TAB>2
//   \xff<TAB>7<TAB>idle
//   end
//
// Line 1 names the format and its version. Line 2 holds the flags that
// shape the state (StateFlags), each `--name=value` or `--name=absent`; a
// run under other ones refuses the file. Then the number of keys, one line
// per key and an `end` line: a file cut short has no `end` (or too few
// keys), so it is refused, never half loaded. A key line is the key's bytes
// escaped, the discards it owes, and its policy state: `window` and its end,
// `bucket` and its A (the ceiling in seconds, then how far below it in 1/N
// ns), or `idle` (a key kept only for what it owes). Times are seconds since
// the Unix epoch with 9 decimals, on the `--record` clock.
//
// A key with an open episode (`--resolve-after`) has three more fields
// after its state: `episode`, its T (a time as above) and its last line
// escaped. Version 1 refuses any field it does not know, so a file with
// episodes is never misread by a pace that has none.
//
// Escapes, so that a key holds any byte: `\\`, `\t`, `\n`, `\r`, and `\xHH`
// (lower-case hex) for every other byte below 0x20, DEL and every byte of
// 0x80 and above; everything else is itself.

import Glibc

package enum StateFormat {
    package static let versionLine: [UInt8] = Array("pace state 1".utf8)

    // MARK: - Writing

    /// The whole file for `snapshot`, saved under `flags`.
    package static func encode(_ snapshot: StateSnapshot, flags: StateFlags) -> [UInt8] {
        var head = versionLine
        head.append(newline)
        head.append(contentsOf: flags.line)
        head.append(contentsOf: Array("\nkeys\t\(snapshot.count)\n".utf8))
        // At most: each key byte escaped to 4, and per key a count (20),
        // `\tbucket\t` (8), a time (41), a TAB and `below` (20), a newline;
        // per episode `\tepisode\t` (9), a time (41), a TAB and its line.
        let episodes = snapshot.episodes.lazy.filter { $0 != nil }.count
        let bound = head.count + snapshot.keyBytes.count * 4 + snapshot.count * 96 + 4
            + episodes * 51 + snapshot.episodeLines.count * 4
        return [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            var out = ByteWriter(buffer.baseAddress!)
            head.withUnsafeBytes { out.append($0) }
            snapshot.keyBytes.withUnsafeBytes { keys in
                var start = 0
                for index in 0..<snapshot.count {
                    let end = snapshot.keyEnds[index]
                    escape(UnsafeRawBufferPointer(rebasing: keys[start..<end]), into: &out)
                    start = end
                    out.append(tab)
                    out.appendDecimal(Int128(snapshot.owed[index]))
                    switch snapshot.states[index] {
                    case nil:
                        out.append("\tidle")
                    case let .window(end)?:
                        out.append("\twindow\t")
                        out.appendSeconds(Int128(end.nanoseconds))
                    case let .bucket(arrival)?:
                        out.append("\tbucket\t")
                        out.appendSeconds(arrival.ceiling)
                        out.append(tab)
                        out.appendDecimal(Int128(arrival.below))
                    }
                    if let episode = snapshot.episodes[index] {
                        out.append("\tepisode\t")
                        out.appendSeconds(Int128(episode.resolveAt.nanoseconds))
                        out.append(tab)
                        snapshot.withEpisodeLine(index) { escape($0, into: &out) }
                    }
                    out.append(newline)
                }
            }
            out.append("end\n")
            count = out.count
        }
    }

    /// Appends `bytes` escaped (see the file's opening comment).
    package static func escape(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let bound = bytes.count * 4
        let old = out.count
        out.append(contentsOf: repeatElement(0, count: bound))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            var writer = ByteWriter(buffer.baseAddress! + old)
            escape(bytes, into: &writer)
            return writer.count
        }
        out.removeLast(bound - written)
    }

    /// Writes `bytes` escaped.
    static func escape(_ bytes: UnsafeRawBufferPointer, into out: inout ByteWriter) {
        for byte in bytes {
            switch byte {
            case backslash: out.append(backslash, backslash)
            case tab: out.append(backslash, UInt8(ascii: "t"))
            case newline: out.append(backslash, UInt8(ascii: "n"))
            case 0x0D: out.append(backslash, UInt8(ascii: "r"))
            case 0x20..<0x7F: out.append(byte)
            default:
                out.append(backslash, UInt8(ascii: "x"))
                out.append(hexDigit(byte >> 4), hexDigit(byte & 0x0F))
            }
        }
    }

    @inline(__always)
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    // MARK: - Reading

    /// The snapshot `bytes` holds, if they are a whole state saved under
    /// `flags`; otherwise why not.
    /// `isKey`: whether bytes are a key the run's `--key-field` makes (a
    /// key of several values is encoded: KeyExtractor.swift).
    package static func decode(_ bytes: [UInt8], flags: StateFlags,
                               isKey: (UnsafeRawBufferPointer) -> Bool = { _ in true })
        -> Result<StateSnapshot, StateFileProblem> {
        bytes.withUnsafeBytes { decode($0, flags: flags, isKey: isKey) }
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer, flags: StateFlags,
                               isKey: (UnsafeRawBufferPointer) -> Bool = { _ in true })
        -> Result<StateSnapshot, StateFileProblem> {
        var lines = LineCursor(bytes)
        guard let first = lines.next(), first.elementsEqual(versionLine) else {
            let prefix = Array("pace state ".utf8)
            lines = LineCursor(bytes)
            if let first = lines.next(), first.starts(with: prefix) {
                // Lines ended by CR LF (an editor's): this version's file, damaged.
                if first.elementsEqual(versionLine + [0x0D]) { return .failure(.damaged(line: 1)) }
                return .failure(.otherVersion)
            }
            return .failure(.foreign)
        }
        guard let flagsLine = lines.next() else { return .failure(.truncated) }
        if !flagsLine.elementsEqual(flags.line) {
            guard let saved = StateFlags(line: flagsLine) else { return .failure(.damaged(line: 2)) }
            return .failure(.otherFlags(saved: saved, given: flags))
        }
        guard let keysLine = lines.next() else { return .failure(.truncated) }
        let keysPrefix = Array("keys\t".utf8)
        guard keysLine.starts(with: keysPrefix),
              let count = wholeNumber(UnsafeRawBufferPointer(rebasing: keysLine[keysPrefix.count...])),
              count >= 0, count <= Int128(bytes.count) else {
            return .failure(.damaged(line: 3))
        }
        // A key's line has at least 8 bytes ("\t0\tidle\n"): no more room
        // than the file can fill, whatever its count says.
        let room = min(Int(count), bytes.count / 8)
        var snapshot = StateSnapshot()
        snapshot.reserve(room)
        var key: [UInt8] = []
        var lastLine: [UInt8] = []
        // The keys read so far, slot i for entry i: a key twice is found.
        var keys = ByteKeyTable<PackedKeys>()
        for index in 0..<Int(count) {
            let number = index + 4
            guard let line = lines.next() else { return .failure(.truncated) }
            // Unkeyed, the one key is the empty one.
            guard let (state, owed, episode) = keyLine(line, key: &key, lastLine: &lastLine), flags.accepts(state),
                  episode == nil || flags.keepsEpisodes, flags.keyed || key.isEmpty,
                  key.withUnsafeBytes(isKey) else {
                return .failure(.damaged(line: number))
            }
            // pace saves a key once: a second entry would replace the
            // first, and what the first owes would be lost.
            let repeated: Int32? = key.withUnsafeBytes { key in
                let hash = hashBytes(key)
                if let first = keys.find(key, hash: hash) { return first }
                keys.insert(key, hash: hash, slot: Int32(index))
                return nil
            }
            if let first = repeated { return .failure(.repeatedKey(line: number, first: Int(first) + 4)) }
            if let episode {
                snapshot.append(key: key, state: state, owed: owed, episode: (episode, lastLine))
            } else {
                snapshot.append(key: key, state: state, owed: owed)
            }
        }
        guard let end = lines.next() else { return .failure(.truncated) }
        guard end.elementsEqual("end".utf8), lines.atEnd else { return .failure(.damaged(line: Int(count) + 4)) }
        return .success(snapshot)
    }

    /// One key's line: its key into `key`, its state, what it owes and its
    /// episode's T (its last line into `lastLine`), if it has one.
    private static func keyLine(_ line: UnsafeRawBufferPointer, key: inout [UInt8], lastLine: inout [UInt8])
        -> (SavedState?, Int64, Instant?)? {
        var fields = FieldCursor(line)
        guard let keyField = fields.next(), unescape(keyField, into: &key),
              let owedField = fields.next(), let owed = wholeNumber(owedField),
              owed >= 0, owed <= maximumOwed, let kind = fields.next() else { return nil }
        let state: SavedState?
        if kind.elementsEqual("idle".utf8) {
            state = nil
        } else if kind.elementsEqual("window".utf8) {
            guard let field = fields.next(), let end = seconds(field), let nanoseconds = Int64(exactly: end) else {
                return nil
            }
            state = .window(end: Instant(nanoseconds: nanoseconds))
        } else if kind.elementsEqual("bucket".utf8) {
            guard let field = fields.next(), let ceiling = seconds(field),
                  let belowField = fields.next(), let below = wholeNumber(belowField),
                  let below64 = Int64(exactly: below), below64 >= 0 else { return nil }
            state = .bucket(arrival: ExactInstant(ceiling: ceiling, below: below64))
        } else {
            return nil
        }
        var episode: Instant?
        if let field = fields.next() {
            guard field.elementsEqual("episode".utf8), let timeField = fields.next(), let time = seconds(timeField),
                  let nanoseconds = Int64(exactly: time), let lineField = fields.next(),
                  unescape(lineField, into: &lastLine) else { return nil }
            episode = Instant(nanoseconds: nanoseconds)
        }
        guard fields.next() == nil else { return nil }
        return (state, Int64(owed), episode)
    }

    /// The bytes an escaped text stands for, into `out`; false when the
    /// text is not one `escape` writes.
    package static func unescape(_ text: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        var i = 0
        while i < text.count {
            let byte = text[i]
            guard byte == backslash else {
                guard (0x20..<0x7F).contains(byte) else { return false }
                out.append(byte)
                i += 1
                continue
            }
            guard i + 1 < text.count else { return false }
            switch text[i + 1] {
            case backslash: out.append(backslash)
            case UInt8(ascii: "t"): out.append(tab)
            case UInt8(ascii: "n"): out.append(newline)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "x"):
                guard i + 3 < text.count, let high = hexValue(text[i + 2]), let low = hexValue(text[i + 3]) else {
                    return false
                }
                out.append(high << 4 | low)
                i += 2
            default: return false
            }
            i += 2
        }
        return true
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// A decimal whole number, optionally negative, of at most 30 digits.
    private static func wholeNumber(_ text: UnsafeRawBufferPointer) -> Int128? {
        var i = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { i = 1 }
        guard i < text.count, text.count - i <= 30 else { return nil }
        var low: UInt64 = 0
        var value: Int128 = 0
        var digits = 0
        while i < text.count {
            let digit = text[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // 64-bit steps while they cannot overflow (18 digits), Int128 after.
            if digits < 18 {
                low = low &* 10 &+ UInt64(digit)
                if digits == 17 || i == text.count - 1 { value = Int128(low) }
            } else {
                value = value * 10 + Int128(digit)
            }
            digits += 1
            i += 1
        }
        return negative ? -value : value
    }

    /// Seconds with exactly 9 decimals, as nanoseconds.
    private static func seconds(_ text: UnsafeRawBufferPointer) -> Int128? {
        guard text.count > 10, text[text.count - 10] == UInt8(ascii: "."),
              let whole = wholeNumber(UnsafeRawBufferPointer(rebasing: text[..<(text.count - 10)])),
              let fraction = wholeNumber(UnsafeRawBufferPointer(rebasing: text[(text.count - 9)...])),
              fraction >= 0, text[text.count - 9] != UInt8(ascii: "-") else { return nil }
        let negative = text.first == UInt8(ascii: "-")
        // 30 digits of seconds are more nanoseconds than 128 bits hold.
        let (scaled, over) = whole.magnitude.multipliedReportingOverflow(by: 1_000_000_000)
        let (magnitude, past) = scaled.addingReportingOverflow(fraction.magnitude)
        guard !over, !past, magnitude <= UInt128(Int128.max) else { return nil }
        return negative ? -Int128(magnitude) : Int128(magnitude)
    }
}

/// The most a key may owe in a state file: half of what a count holds, so
/// that the discards of any later run cannot carry it past `Int64.max`.
private let maximumOwed = Int128(Int64.max / 2)

private let tab = UInt8(ascii: "\t")
private let newline = UInt8(ascii: "\n")
private let backslash = UInt8(ascii: "\\")
