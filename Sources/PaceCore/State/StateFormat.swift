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
// shape the state (StateFlags), each `--name=value` or `--name=absent` (a
// value that is that word, a NAME, is `\x61bsent`); a run under other ones
// refuses the file. Then the number of keys, one line
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
        head.append(stateNewline)
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
                    out.append(stateTab)
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
                        out.append(stateTab)
                        out.appendDecimal(Int128(arrival.below))
                    }
                    if let episode = snapshot.episodes[index] {
                        out.append("\tepisode\t")
                        out.appendSeconds(Int128(episode.resolveAt.nanoseconds))
                        out.append(stateTab)
                        snapshot.withEpisodeLine(index) { escape($0, into: &out) }
                    }
                    out.append(stateNewline)
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
            case stateBackslash: out.append(stateBackslash, stateBackslash)
            case stateTab: out.append(stateBackslash, UInt8(ascii: "t"))
            case stateNewline: out.append(stateBackslash, UInt8(ascii: "n"))
            case 0x0D: out.append(stateBackslash, UInt8(ascii: "r"))
            case 0x20..<0x7F: out.append(byte)
            default:
                out.append(stateBackslash, UInt8(ascii: "x"))
                out.append(hexDigit(byte >> 4), hexDigit(byte & 0x0F))
            }
        }
    }

    @inline(__always)
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}

// The bytes the format escapes, for its writing, its reading
// (StateFormatReading.swift) and its lines' and fields' search (StateText.swift).
let stateTab = UInt8(ascii: "\t")
let stateNewline = UInt8(ascii: "\n")
let stateBackslash = UInt8(ascii: "\\")
