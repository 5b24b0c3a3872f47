// "Did you mean": the suggestion an unknown option's message carries. A
// unique prefix is completed first (`--rec` is `--record`); otherwise the
// nearest flag name within a tight edit distance, or nothing.

func unknownOptionMessage(_ spelling: String) -> String {
    if let names = suggestion(for: spelling) {
        return "unknown option '\(spelling)' (did you mean \(names.map { "'\($0)'" }.joined(separator: " or "))?)"
    }
    return "unknown option '\(spelling)'"
}

/// The long flags to suggest for an unknown `spelling`: first the flags it
/// is a prefix of (`--rec` is `--record`; `--re` could be `--record` or
/// `--replay`), else the nearest by edit distance, if it is near: at most
/// one edit per four letters (at least one), a swap of two neighbours
/// counting as one. So `--debunce` gets `--debounce`, and `--delay` (two
/// edits in five letters) gets nothing rather than `--replay`. Only long
/// names: '-x' is not a typo of '-h', but `-debounce` (one dash, as Go's
/// and find's flags are written) is looked for as `--debounce`.
func suggestion(for spelling: String) -> [String]? {
    if !spelling.hasPrefix("--"), spelling.hasPrefix("-"), spelling.utf8.count > 2 {
        return suggestion(for: "-" + spelling)
    }
    guard spelling.hasPrefix("--"), spelling.count > 2 else { return nil }
    let long = flagTable.map { flag in flag.names.filter { $0.hasPrefix("--") } }.filter { !$0.isEmpty }
    // Per flag, the first of its names that completes the prefix.
    let completions = long.compactMap { names in names.first { $0.hasPrefix(spelling) } }
    if !completions.isEmpty { return completions }
    let letters = spelling.utf8.count - 2
    let best = long.joined().map { ($0, editDistance($0, spelling)) }.min { $0.1 < $1.1 }
    guard let (name, distance) = best, distance <= max(1, letters / 4) else { return nil }
    return [name]
}

/// Edit distance (optimal string alignment: insertions, deletions,
/// substitutions and swaps of adjacent bytes), for "did you mean".
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.utf8), b = Array(b.utf8)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    // Rows i-2, i-1 and i of the table.
    var beforePrevious = Array(0...b.count)
    var previous = beforePrevious
    var current = previous
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], beforePrevious[j - 2] + 1)
            }
        }
        (beforePrevious, previous, current) = (previous, current, beforePrevious)
    }
    return previous[b.count]
}
