// Parses pace's arguments in two steps, as ripgrep does: first what was typed
// (each flag once, values attached), then SPEC's cross-flag rules, which turn
// it into a Configuration. Pure: no I/O, so every usage error is unit-tested
// and the parser can be fuzzed. (Whether FILE can be opened is checked by the
// executable, which owns file descriptors.)

/// Parses `arguments` (without the program name).
package func parseArguments(_ arguments: [String]) -> Result<Command, UsageError> {
    parseArguments(bytes: arguments.map { Array($0.utf8) })
}

/// Parses `arguments`, each the bytes of one `argv` string (without the
/// program name). Flags and their values are read as text; file names stay
/// the bytes they were, for open(2) and for messages.
package func parseArguments(bytes arguments: [[UInt8]]) -> Result<Command, UsageError> {
    // --help and --version win over everything else, as in most Unix tools,
    // but not as the value of a flag whose value may be anything, a file or
    // a command: `--dropped -h` names a file, as `grep -e -h` searches for
    // `-h` (taken as readTyped takes a value). `--debounce -h`, which no
    // duration could be, still asks for help.
    var i = 0
    while i < arguments.count {
        let argument = String(decoding: arguments[i], as: UTF8.self)
        i += 1
        if argument == "--" { break }
        if argument == "-h" || argument == "--help" { return .success(.help) }
        if argument == "--version" { return .success(.version) }
        if argument.hasPrefix("--"), !argument.contains("="), i < arguments.count,
           flagTable.contains(where: { ($0.value == "file" || $0.value == "command") && $0.names.contains(argument) }),
           canBeValue(arguments[i]) {
            i += 1
        }
    }
    do throws(UsageError) {
        let typed = try readTyped(arguments)
        return .success(.run(try validate(typed)))
    } catch {
        return .failure(error)
    }
}

// MARK: - Step 1: what was typed

struct TypedArguments {
    /// Each flag given, with its value and the spelling used, in order.
    var flags: [(flag: Flag, spelling: String, value: String?)] = []
    /// Each value's bytes as given (the text above may have replaced
    /// invalid UTF-8), for the values that are file names.
    var valueBytes: [FlagID: [UInt8]] = [:]
    var positionals: [[UInt8]] = []

    func value(_ id: FlagID) -> (spelling: String, value: String?)? {
        flags.first { $0.flag.id == id }.map { ($0.spelling, $0.value) }
    }

    func has(_ id: FlagID) -> Bool { flags.contains { $0.flag.id == id } }
}

func readTyped(_ arguments: [[UInt8]]) throws(UsageError) -> TypedArguments {
    var typed = TypedArguments()
    var i = 0
    var optionsEnded = false
    while i < arguments.count {
        let argument = String(decoding: arguments[i], as: UTF8.self)
        i += 1
        if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
            typed.positionals.append(arguments[i - 1])
            continue
        }
        if argument == "--" {
            optionsEnded = true
            continue
        }
        var spelling = argument
        var inline: String?
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
            spelling = String(argument[..<eq])
            inline = String(argument[argument.index(after: eq)...])
        }
        guard let flag = flagTable.first(where: { $0.names.contains(spelling) }) else {
            // `--=x` has no name before its `=`: the whole argument is named.
            throw UsageError(unknownOptionMessage(spelling == "--" ? argument : spelling))
        }
        if let earlier = typed.flags.first(where: { $0.flag.id == flag.id }) {
            let same = earlier.spelling == spelling ? "" : " (same as '\(earlier.spelling)')"
            throw UsageError("option '\(spelling)' given more than once\(same)")
        }
        var value: String?
        if flag.value != nil {
            if let inline {
                value = inline
                // The bytes after the first `=` (a byte no UTF-8 sequence
                // contains, so the text's `=` is the same one).
                let raw = arguments[i - 1]
                typed.valueBytes[flag.id] = Array(raw[(raw.firstIndex(of: UInt8(ascii: "="))! + 1)...])
            } else if i < arguments.count, canBeValue(arguments[i]) {
                value = String(decoding: arguments[i], as: UTF8.self)
                typed.valueBytes[flag.id] = arguments[i]
                i += 1
            } else {
                throw UsageError("missing value for '\(flag.synopsis)'")
            }
        } else if inline != nil {
            throw UsageError("option '\(spelling)' takes no value")
        }
        typed.flags.append((flag, spelling, value))
    }
    return typed
}

/// Whether the argument after a flag that takes a value is that value: not
/// when it starts with `--` (CHOICES: the value is missing, not bad).
private func canBeValue(_ argument: [UInt8]) -> Bool {
    !argument.starts(with: [UInt8(ascii: "-"), UInt8(ascii: "-")])
}

// MARK: - Step 2: SPEC's rules

func validate(_ typed: TypedArguments) throws(UsageError) -> Configuration {
    let policyFlags = typed.flags.filter { $0.flag.section == .policy }
    guard let chosen = policyFlags.first else {
        throw UsageError("no policy given (choose one of --debounce, --leading, --throttle, --throttle-last, --limit, --rate)")
    }
    if policyFlags.count > 1 {
        throw UsageError("two policies given, '\(policyFlags[0].spelling)' and '\(policyFlags[1].spelling)' (choose one)")
    }
    let id = chosen.flag.id
    let value = chosen.value ?? ""
    // `--limit`'s and `--rate`'s N/D, or every other policy's window D.
    var bucket: (count: Int64, period: Nanoseconds)?
    var window: Nanoseconds = 0
    if id == .limit || id == .rate {
        bucket = try rate(value, for: chosen.spelling)
    } else {
        window = try duration(value, for: chosen.spelling)
    }

    var burstSize: Int64?
    if let (spelling, text) = typed.value(.burst) {
        guard bucket != nil else {
            throw UsageError("'--burst' only applies to --limit and --rate (not '\(chosen.spelling)')")
        }
        burstSize = try burst(text ?? "", for: spelling)
    }

    var maxWait: Nanoseconds?
    if let (spelling, text) = typed.value(.maxWait) {
        guard id == .debounce else {
            throw UsageError("'--max-wait' only applies to --debounce (not '\(chosen.spelling)')")
        }
        let wait = try duration(text ?? "", for: spelling)
        guard wait >= window else {
            throw UsageError("'--max-wait' (\(text ?? "")) must be at least the debounce window (\(value))")
        }
        maxWait = wait
    }

    let trailing = typed.has(.trailing)
    if trailing && id != .leading {
        throw UsageError("'--trailing' only applies to --leading (not '\(chosen.spelling)')")
    }

    var batch: Int32?
    if let (spelling, text) = typed.value(.batch) {
        guard id == .debounce || id == .throttleLast else {
            throw UsageError("'--batch' only applies to --debounce and --throttle-last (not '\(chosen.spelling)')")
        }
        batch = try batchSize(text ?? "", for: spelling)
    }

    let policy: PolicyChoice
    if let (count, period) = bucket {
        let rate = CellRate(count: count, per: period, burst: burstSize ?? (id == .limit ? count : 1))
        policy = id == .limit ? .limit(rate) : .rate(rate)
    } else {
        switch id {
        case .debounce: policy = .debounce(window, maxWait: maxWait)
        case .leading: policy = trailing ? .leadingTrailing(window) : .leading(window)
        case .throttle: policy = .throttle(window)
        case .throttleLast: policy = .throttleLast(window)
        default: preconditionFailure("validate: \(chosen.flag.name) is not a policy")
        }
    }
    var config = Configuration(policy: policy)
    config.batch = batch
    if let (spelling, value) = typed.value(.keyField) {
        switch FieldSelector.parse(bytes: typed.valueBytes[.keyField] ?? Array(value!.utf8)) {
        case let .success(selector): config.keyField = selector
        case let .failure(error): throw UsageError("invalid field list for '\(spelling)': \(error)", hint: fieldHint)
        }
    }
    if typed.has(.delimiter) {
        // Any single byte: the argument's bytes, not its text.
        switch parseDelimiter(typed.valueBytes[.delimiter]!) {
        case let .success(byte): config.delimiter = byte
        case let .failure(error): throw UsageError(bytes: error.bytes, hint: delimiterHint)
        }
    }
    config.replay = typed.has(.replay)
    config.emitTime = typed.has(.emitTime)
    config.stats = typed.has(.stats)
    config.count = typed.has(.count)
    config.trace = typed.has(.trace)
    config.marbles = typed.has(.marbles)
    config.progress = typed.has(.progress)
    if typed.value(.metrics) != nil {
        let path = typed.valueBytes[.metrics]!
        if path.isEmpty { throw UsageError("--metrics: the file name is empty") }
        config.metricsPath = path
    }

    if !config.replay, let replayOnly = typed.flags.first(where: { $0.flag.replayOnly }) {
        throw UsageError("'\(replayOnly.spelling)' only applies with --replay")
    }
    if typed.has(.record) {
        if config.replay {
            throw UsageError("'--record' is for live mode and cannot be used with --replay")
        }
        let path = typed.valueBytes[.record]!
        if path.isEmpty { throw UsageError("--record: the file name is empty") }
        config.recordPath = path
    }
    if typed.has(.state) {
        if config.replay {
            throw UsageError("'--state' is for live mode and cannot be used with --replay")
        }
        let path = typed.valueBytes[.state]!
        if path.isEmpty { throw UsageError("--state: the file name is empty") }
        config.state = StateOptions(path: path, keyFieldText: typed.valueBytes[.keyField])
    }
    if typed.value(.dropped) != nil {
        let path = typed.valueBytes[.dropped]!
        if path.isEmpty { throw UsageError("--dropped: the file name is empty") }
        config.droppedPath = path
    }
    if let (_, value) = typed.value(.timeFormat) {
        config.timeFormat = try timeFormat(value!, bytes: typed.valueBytes[.timeFormat] ?? Array(value!.utf8))
    }
    if let (spelling, value) = typed.value(.timeField) {
        if config.timeFormat == .record {
            throw UsageError("'--time-field' does not apply to --time-format record (its time is the line's prefix)")
        }
        switch TimeField.parse(bytes: typed.valueBytes[.timeField] ?? Array(value!.utf8)) {
        case let .success(field): config.timeField = field
        case let .failure(error): throw UsageError("invalid time field for '\(spelling)': \(error)", hint: timeFieldHint)
        }
    }
    if let (_, value) = typed.value(.year) {
        let range = "pace handles years \(minimumYear) to \(maximumYear)"
        guard !value!.isEmpty, value!.utf8.allSatisfy({ digit($0) != nil }) else {
            throw UsageError("invalid year '\(value!)' for '--year' (a year is its digits alone; \(range))")
        }
        guard let year = Int(value!), (minimumYear...maximumYear).contains(year) else {
            throw UsageError("invalid year '\(value!)' for '--year' (\(range))")
        }
        config.year = year
    }
    if let (_, value) = typed.value(.onBadTime) {
        guard let action = BadTimeAction(rawValue: value!) else {
            throw UsageError("invalid value '\(value!)' for '--on-bad-time' (choose error, skip or pass)")
        }
        config.onBadTime = action
    }

    config.exec = try commandOptions(typed)
    if let (spelling, text) = typed.value(.resolveAfter) {
        config.resolveAfter = try duration(text ?? "", for: spelling)
    }
    try floodOptions(typed, &config, policy: chosen.spelling)

    switch typed.positionals.count {
    case 0: break
    case 1:
        if typed.positionals[0].isEmpty { throw UsageError("the input file name is empty (use - for stdin)") }
        config.inputPath = typed.positionals[0] == [UInt8(ascii: "-")] ? nil : typed.positionals[0]
    default:
        let quote = UInt8(ascii: "'")
        throw UsageError(bytes: Array("more than one input file (".utf8) + [quote] + typed.positionals[0]
                             + Array("' and '".utf8) + typed.positionals[1] + Array("'); pace reads one".utf8))
    }
    return config
}
