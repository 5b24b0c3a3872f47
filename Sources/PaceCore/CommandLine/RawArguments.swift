// Arguments are bytes, but the parser reads Strings (CommandLine.arguments),
// which replace invalid UTF-8 with U+FFFD. For the one value pace hands on
// to another program, `--exec`'s CMD, the executable finds the bytes as typed
// again here, so a command in a legacy encoding runs as written.

/// The bytes of `--exec`'s value in `raw` (argv without the program name),
/// given the value the parser saw (`parsed`, its UTF-8): the value of the
/// `--exec` before any `--` whose repaired text is `parsed`; `parsed` itself
/// if there is none.
public func rawExecCommand(_ raw: [[UInt8]], parsed: [UInt8]) -> [UInt8] {
    let flag = Array("--exec".utf8)
    let inline = flag + [UInt8(ascii: "=")]
    func repaired(_ bytes: ArraySlice<UInt8>) -> [UInt8] { Array(String(decoding: bytes, as: UTF8.self).utf8) }
    var i = 0
    while i < raw.count {
        let argument = raw[i]
        if argument == Array("--".utf8) { break }
        if argument == flag, i + 1 < raw.count, repaired(raw[i + 1][...]) == parsed { return raw[i + 1] }
        if argument.starts(with: inline), repaired(argument[inline.count...]) == parsed {
            return Array(argument[inline.count...])
        }
        i += 1
    }
    return parsed
}
