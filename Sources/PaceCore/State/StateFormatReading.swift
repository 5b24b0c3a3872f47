// The state file read back (StateFormat.swift has the format): the whole
// file checked before any of it is used, so a file cut short or edited by
// hand is refused with the reason, never half loaded.

import Glibc

extension StateFormat {
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
            guard byte == stateBackslash else {
                guard (0x20..<0x7F).contains(byte) else { return false }
                out.append(byte)
                i += 1
                continue
            }
            guard i + 1 < text.count else { return false }
            switch text[i + 1] {
            case stateBackslash: out.append(stateBackslash)
            case UInt8(ascii: "t"): out.append(stateTab)
            case UInt8(ascii: "n"): out.append(stateNewline)
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
