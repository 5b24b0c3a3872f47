// `--resolve-after`: how stdout's sink writes a marked line. The counting
// layer (Counting.swift) sends every output line of a run that marks
// episodes through `emitMarked`, and the scheduler keeps each key's episode
// (Scheduler/Episodes.swift) only then (`Scheduler.marks`): a run without the
// flag runs none of it.

extension FileSink {
    /// `--resolve-after`: the prefixes, then the mark and a TAB (SPEC
    /// Output). Out of line, as the counted write is.
    @inline(never)
    package mutating func emitMarked(_ emission: Emission) throws(OutputError) {
        if case let .field(member, pair) = countStyle {
            // `--count-field`: the count inside the line, a resolved line's 0 too.
            try write(emission.line, at: emission.time, count: emission.count, member: member, pair: pair,
                      first: emission.number == 1, mark: emission.mark)
            return
        }
        if capacity - used < maxSecondsLength + maxCountLength + 8 + 3 {
            try Self.beforeLine { () throws(OutputError) in try makeRoom() }
        }
        if emitTime {
            used += formatSeconds(emission.time, into: buffer + used)
            buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
            used += 1
        }
        // `--count` shows every marked line's count, a resolved line's 0 too.
        if countStyle == .prefix {
            used += formatCount(emission.count, into: buffer + used)
            buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
            used += 1
        }
        // The word's bytes at once (each fits 8), then a TAB over its end.
        let (bytes, length) = emission.mark.packedWord
        buffer.storeBytes(of: bytes.littleEndian, toByteOffset: used, as: UInt64.self)
        used += length
        buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
        used += 1
        try append(emission.line)
        if flushEachLine { try flush() }
    }
}

extension EpisodeMark {
    /// The word's bytes in a little-endian word, and how many there are.
    var packedWord: (UInt64, Int) {
        switch self {
        case .none: (0, 0)
        case .first: (0x7473726966, 5)  // "first"
        case .repeat: (0x746165706572, 6)  // "repeat"
        case .resolved: (0x6465766c6f736572, 8)  // "resolved"
        case .exempt: (0x74706d657865, 6)  // "exempt"
        }
    }
}
