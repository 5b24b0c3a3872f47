// How a key's or a line's bytes are shown to a person (SPEC, Fields): in
// `--stats`' table of keys, `--marbles`' labels, and any message that quotes
// them. Those bytes come from the log, so shown raw they could drive the
// terminal (an ESC sequence clears the screen or recolours it), and bytes
// that are not UTF-8 would all turn into U+FFFD, so that the distinct keys
// `\xff` and `\xfe` looked the same. Shown through here, C0 controls, DEL,
// `\` and every byte that is not part of valid UTF-8 are escaped, and valid
// UTF-8 (multi-byte characters included) stays as it is. Since `\` itself
// is escaped, every `\` shown starts an escape, so two different byte
// strings never look the same.
//
// The escapes: `\t`, `\n`, `\r` and `\\`; any other such byte is `\x`
// and two lower-case hex digits (`\x1b`, `\x7f`, `\xff`).
//
// stdout, `--dropped`, `PACE_KEY` and `PACE_LINE` never come through here:
// they carry the bytes exactly as read.

/// One piece of shown text: a run of bytes shown as they are, or the
/// escape of one byte.
enum DisplayPiece: Equatable {
    /// Valid UTF-8 holding no control byte, DEL or `\`.
    case text(String)
    /// `\t`, `\n`, `\r`, `\\` or `\xHH`.
    case escape(String)
}

/// `bytes` as a person should see them, escaped as the file's header says.
package func displayText(_ bytes: some Collection<UInt8>) -> String {
    joined(displayPieces(bytes))
}

/// The text of `pieces`, one after the other.
func joined(_ pieces: [DisplayPiece]) -> String {
    var text = ""
    for piece in pieces {
        switch piece {
        case let .text(run): text += run
        case let .escape(escape): text += escape
        }
    }
    return text
}

/// `bytes` as the pieces `displayText` joins, for a caller that must not
/// cut an escape in two (`displayKey`).
func displayPieces(_ bytes: some Collection<UInt8>) -> [DisplayPiece] {
    let bytes = Array(bytes)
    var pieces: [DisplayPiece] = []
    var runStart = 0
    var i = 0
    func endRun() {
        if runStart < i { pieces.append(.text(String(decoding: bytes[runStart..<i], as: UTF8.self))) }
    }
    while i < bytes.count {
        let b = bytes[i]
        if b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\\") {
            i += 1
            continue
        }
        if b >= 0x80, let length = validSequenceLength(bytes, at: i) {
            i += length
            continue
        }
        endRun()
        pieces.append(.escape(escape(b)))
        i += 1
        runStart = i
    }
    endRun()
    return pieces
}

/// The escape of a byte that is not shown as it is.
private func escape(_ b: UInt8) -> String {
    switch b {
    case 0x09: return "\\t"
    case 0x0A: return "\\n"
    case 0x0D: return "\\r"
    case UInt8(ascii: "\\"): return "\\\\"
    default:
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
        return "\\x" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 0x0F)])
    }
}

/// The length of the valid UTF-8 sequence of two to four bytes starting at
/// `i`, or nil when `bytes[i]` starts none (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF). An invalid lead or continuation is
/// then escaped alone, and reading goes on at the next byte.
private func validSequenceLength(_ bytes: [UInt8], at i: Int) -> Int? {
    let lead = bytes[i]
    let length: Int
    // The range the second byte must fall in; later ones are 0x80...0xBF.
    let second: ClosedRange<UInt8>
    switch lead {
    case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
    case 0xE0: (length, second) = (3, 0xA0...0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: (length, second) = (3, 0x80...0xBF)
    case 0xED: (length, second) = (3, 0x80...0x9F)
    case 0xF0: (length, second) = (4, 0x90...0xBF)
    case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
    case 0xF4: (length, second) = (4, 0x80...0x8F)
    default: return nil
    }
    guard i + length <= bytes.count, second.contains(bytes[i + 1]) else { return nil }
    for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return nil }
    return length
}
