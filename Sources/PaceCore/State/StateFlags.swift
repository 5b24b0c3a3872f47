// The flags that shape a saved state (SPEC, State): the policy and its
// values, `--trailing`, `--burst`, `--then-every`, `--resolve-after`,
// `--key-field` and `--delimiter`. A state saved under other ones would mean
// something else (a window of another length, keys of other fields), so a
// run refuses it. Values are written in one canonical form (durations in
// nanoseconds, `--burst` as the bucket's size, given or not), so that
// `--throttle 1m` and `--throttle 60s` load each other's state.
// `--then-every`'s M is one: its count of discards in a row is what a key
// owes, which the state keeps.

package struct StateFlags: Equatable, Sendable {
    /// Each flag's name and value, nil for absent, in a fixed order.
    package private(set) var flags: [(name: String, value: [UInt8]?)]

    package static func == (a: StateFlags, b: StateFlags) -> Bool {
        a.flags.elementsEqual(b.flags) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The flags of `configuration`; `keyFieldText` is `--key-field`'s
    /// argument as given.
    package init(_ configuration: Configuration, keyFieldText: [UInt8]?) {
        func ns(_ d: Nanoseconds) -> [UInt8] { Array("\(d.count)ns".utf8) }
        func rate(_ r: CellRate) -> [UInt8] { Array("\(r.count)/\(r.period.count)ns".utf8) }
        var policy: (String, [UInt8])
        var trailing: [UInt8]?
        var burst: [UInt8]?
        switch configuration.policy {
        case let .debounce(window, _): policy = ("--debounce", ns(window))
        case let .leading(window): policy = ("--leading", ns(window))
        case let .leadingTrailing(window):
            policy = ("--leading", ns(window))
            trailing = Array("yes".utf8)
        case let .throttle(window): policy = ("--throttle", ns(window))
        case let .throttleLast(window): policy = ("--throttle-last", ns(window))
        case let .limit(r):
            policy = ("--limit", rate(r))
            burst = Array("\(r.burst)".utf8)
        case let .rate(r):
            policy = ("--rate", rate(r))
            burst = Array("\(r.burst)".utf8)
        }
        flags = [
            (policy.0, policy.1),
            ("--trailing", trailing),
            ("--burst", burst),
            ("--then-every", configuration.thenEvery.map { Array("\($0)".utf8) }),
            ("--resolve-after", configuration.resolveAfter.map(ns)),
            ("--key-field", keyFieldText),
            ("--delimiter", configuration.delimiter.map { [$0] }),
        ]
    }

    /// Keyed (`--key-field`): without it, the one key is the empty one.
    package var keyed: Bool { flags.contains { $0.name == "--key-field" && $0.value != nil } }

    /// Whether a state saved under these flags can hold open episodes.
    package var keepsEpisodes: Bool { flags.contains { $0.name == "--resolve-after" && $0.value != nil } }

    /// Whether a state saved under these flags can be `state`: a window
    /// for the policies that open windows, a bucket (with 0 <= below < N)
    /// for `--limit` and `--rate`, only idle keys for `--debounce`.
    package func accepts(_ state: SavedState?) -> Bool {
        switch state {
        case nil: return true
        case .window?: return ["--throttle", "--throttle-last", "--leading"].contains(flags[0].name)
        case let .bucket(arrival)?:
            guard ["--limit", "--rate"].contains(flags[0].name), let value = flags[0].value,
                  let slash = value.firstIndex(of: UInt8(ascii: "/")),
                  let count = Int64(String(decoding: value[..<slash], as: UTF8.self)) else { return false }
            return arrival.below >= 0 && arrival.below < count
        }
    }

    /// The flags line of a state file, if `line` is one.
    init?(line: UnsafeRawBufferPointer) {
        let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
        guard fields.first.map({ $0.elementsEqual("flags".utf8) }) == true else { return nil }
        var flags: [(name: String, value: [UInt8]?)] = []
        var value: [UInt8] = []
        for field in fields.dropFirst() {
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let name = String(decoding: field[..<equals], as: UTF8.self)
            let text = UnsafeRawBufferPointer(rebasing: field[(equals + 1)...])
            if text.elementsEqual("absent".utf8) {
                flags.append((name, nil))
            } else {
                guard StateFormat.unescape(text, into: &value) else { return nil }
                flags.append((name, value))
            }
        }
        self.flags = flags
    }

    /// `flags<TAB>--name=value<TAB>...`, values escaped.
    package var line: [UInt8] {
        var out = Array("flags".utf8)
        for (name, value) in flags {
            out.append(UInt8(ascii: "\t"))
            out.append(contentsOf: Array("\(name)=".utf8))
            guard let value else {
                out.append(contentsOf: Array("absent".utf8))
                continue
            }
            // A value that is the word itself (`--key-field absent`, a
            // NAME) is written with its first byte escaped, which reads
            // back as the same bytes: an unkeyed run's file never loads
            // into that keyed run, nor the other way round.
            if value.elementsEqual("absent".utf8) {
                out.append(contentsOf: Array(#"\x61bsent"#.utf8))
                continue
            }
            value.withUnsafeBytes { StateFormat.escape($0, into: &out) }
        }
        return out
    }

    /// The first flag that differs from `other`'s, for a message: its name,
    /// its value here and there, quoted (`absent` for none).
    package func firstDifference(from other: StateFlags) -> (name: String, here: String, there: String)? {
        // A value is quoted, escaped as in the file: a `--delimiter` of a
        // space or a comma, or a NAME `absent`, stays readable.
        func shown(_ value: [UInt8]?) -> String {
            guard let value else { return "absent" }
            var out: [UInt8] = [UInt8(ascii: "'")]
            value.withUnsafeBytes { StateFormat.escape($0, into: &out) }
            out.append(UInt8(ascii: "'"))
            return String(decoding: out, as: UTF8.self)
        }
        for (index, flag) in flags.enumerated() {
            guard index < other.flags.count else { return (flag.name, shown(flag.value), "absent") }
            let theirs = other.flags[index]
            if theirs.name != flag.name { return (flag.name, shown(flag.value), "absent") }
            if theirs.value != flag.value { return (flag.name, shown(flag.value), shown(theirs.value)) }
        }
        if other.flags.count > flags.count {
            let extra = other.flags[flags.count]
            return (extra.name, "absent", shown(extra.value))
        }
        return nil
    }
}
