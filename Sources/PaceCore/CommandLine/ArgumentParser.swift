// Parses pace's arguments in two steps, as ripgrep does: first what was typed
// (each flag once, values attached), then SPEC's cross-flag rules, which turn
// it into a Configuration. Pure: no I/O, so every usage error is unit-tested
// and the parser can be fuzzed. (Whether FILE can be opened is checked by the
// executable, which owns file descriptors.)

private let durationHint = """
    A duration is a number and a unit: 300ms, 1.5s, .5s, 2m, 250us (units: ns, us, ms, s, m, h).
    See 'pace --help' for more information.
    """

/// Parses `arguments` (without the program name).
public func parseArguments(_ arguments: [String]) -> Result<Command, UsageError> {
    // --help and --version win over everything else, as in most Unix tools.
    for argument in arguments {
        if argument == "--" { break }
        if argument == "-h" || argument == "--help" { return .success(.help) }
        if argument == "--version" { return .success(.version) }
    }
    do {
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
    var positionals: [String] = []

    func value(_ id: FlagID) -> (spelling: String, value: String?)? {
        flags.first { $0.flag.id == id }.map { ($0.spelling, $0.value) }
    }

    func has(_ id: FlagID) -> Bool { flags.contains { $0.flag.id == id } }
}

func readTyped(_ arguments: [String]) throws(UsageError) -> TypedArguments {
    var typed = TypedArguments()
    var i = 0
    var optionsEnded = false
    while i < arguments.count {
        let argument = arguments[i]
        i += 1
        if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
            typed.positionals.append(argument)
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
            throw UsageError(unknownOptionMessage(spelling))
        }
        if let earlier = typed.flags.first(where: { $0.flag.id == flag.id }) {
            let same = earlier.spelling == spelling ? "" : " (same as '\(earlier.spelling)')"
            throw UsageError("option '\(spelling)' given more than once\(same)")
        }
        var value: String?
        if flag.value != nil {
            if let inline {
                value = inline
            } else if i < arguments.count, !arguments[i].hasPrefix("--") {
                value = arguments[i]
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

private func unknownOptionMessage(_ spelling: String) -> String {
    // Only long names are suggested: '-x' is not a typo of '-h'.
    let all = flagTable.flatMap(\.names).filter { $0.hasPrefix("--") }
    let best = all.map { ($0, editDistance($0, spelling)) }.min { $0.1 < $1.1 }
    if let (name, distance) = best, distance <= max(2, spelling.count / 3) {
        return "unknown option '\(spelling)' (did you mean '\(name)'?)"
    }
    return "unknown option '\(spelling)'"
}

/// Levenshtein distance, for "did you mean".
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.utf8), b = Array(b.utf8)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = previous
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}

// MARK: - Step 2: SPEC's rules

func validate(_ typed: TypedArguments) throws(UsageError) -> Configuration {
    let policyFlags = typed.flags.filter { $0.flag.section == .policy }
    guard let chosen = policyFlags.first else {
        throw UsageError("no policy given (choose one of --debounce, --leading, --throttle, --throttle-last)")
    }
    if policyFlags.count > 1 {
        throw UsageError("two policies given, '\(policyFlags[0].spelling)' and '\(policyFlags[1].spelling)' (choose one)")
    }
    let kind: PolicyKind
    switch chosen.flag.id {
    case .debounce: kind = .debounce
    case .leading: kind = .leading
    case .throttle: kind = .throttleFirst
    case .throttleLast: kind = .throttleLast
    default: preconditionFailure("validate: \(chosen.flag.name) is not a policy")
    }
    let window = try duration(chosen.value!, for: chosen.spelling)
    var config = Configuration(policy: kind, window: window)

    if let (spelling, value) = typed.value(.maxWait) {
        guard kind == .debounce else {
            throw UsageError("'--max-wait' only applies to --debounce (not '\(chosen.spelling)')")
        }
        let maxWait = try duration(value!, for: spelling)
        guard maxWait >= window else {
            throw UsageError("'--max-wait' (\(value!)) must be at least the debounce window (\(chosen.value!))")
        }
        config.maxWait = maxWait
    }
    if let (spelling, value) = typed.value(.keyField) {
        config.keyField = try fieldNumber(value!, for: spelling)
    }
    config.replay = typed.has(.replay)
    config.emitTime = typed.has(.emitTime)
    config.stats = typed.has(.stats)
    config.trace = typed.has(.trace)
    config.marbles = typed.has(.marbles)

    if !config.replay, let replayOnly = typed.flags.first(where: { $0.flag.replayOnly }) {
        throw UsageError("'\(replayOnly.spelling)' only applies with --replay")
    }
    if let (_, value) = typed.value(.record) {
        if config.replay {
            throw UsageError("'--record' is for live mode and cannot be used with --replay")
        }
        config.recordPath = value!
    }
    if let (_, value) = typed.value(.timeFormat) {
        config.timeFormat = try timeFormat(value!)
    }
    if let (spelling, value) = typed.value(.timeField) {
        if config.timeFormat == .record {
            throw UsageError("'--time-field' does not apply to --time-format record (its time is the line's prefix)")
        }
        config.timeField = try fieldNumber(value!, for: spelling)
    }
    if let (_, value) = typed.value(.year) {
        guard let year = Int(value!), (minimumYear...maximumYear).contains(year) else {
            throw UsageError("invalid year '\(value!)' for '--year' (pace handles years \(minimumYear) to \(maximumYear))")
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

    switch typed.positionals.count {
    case 0: break
    case 1: config.inputPath = typed.positionals[0] == "-" ? nil : typed.positionals[0]
    default:
        throw UsageError("more than one input file ('\(typed.positionals[0])' and '\(typed.positionals[1])'); pace reads one")
    }
    return config
}

/// Years whose instants fit Int64 nanoseconds since 1970 (with a margin).
public let minimumYear = 1678
public let maximumYear = 2261

private func duration(_ text: String, for spelling: String) throws(UsageError) -> Nanoseconds {
    switch parseDuration(text) {
    case let .success(ns):
        guard ns > 0 else { throw UsageError("'\(spelling)' must be greater than zero (got '\(text)')", hint: durationHint) }
        return ns
    case let .failure(error):
        let why: String
        switch error {
        case .empty: why = "it is empty"
        case .noNumber: why = "it is not a number with a unit"
        case .missingUnit: why = "a number needs a unit"
        case .unknownUnit: why = "unknown unit"
        case .tooLarge: why = "it is too large"
        }
        throw UsageError("invalid duration '\(text)' for '\(spelling)': \(why)", hint: durationHint)
    }
}

/// `--exec` and the flags that only apply with it.
private func commandOptions(_ typed: TypedArguments) throws(UsageError) -> CommandOptions? {
    guard let (_, command) = typed.value(.exec) else {
        if let modifier = typed.flags.first(where: { [.onBusy, .jobs, .killAfter].contains($0.flag.id) }) {
            throw UsageError("'\(modifier.spelling)' only applies with --exec")
        }
        return nil
    }
    var options = CommandOptions(command: Array(command!.utf8))
    if let (_, value) = typed.value(.onBusy) {
        guard let action = OnBusy(rawValue: value!) else {
            throw UsageError("invalid value '\(value!)' for '--on-busy' (choose queue, drop or restart)")
        }
        options.onBusy = action
    }
    if let (_, value) = typed.value(.jobs) {
        guard let jobs = Int(value!), jobs >= 1, jobs <= maximumJobs else {
            throw UsageError("invalid value '\(value!)' for '--jobs' (a whole number from 1 to \(maximumJobs))")
        }
        options.jobs = jobs
    }
    if let (spelling, value) = typed.value(.killAfter) {
        options.killAfter = try duration(value!, for: spelling)
    }
    return options
}

/// More commands at once than any machine runs usefully; the bound keeps a
/// typo from asking for billions.
public let maximumJobs = 100_000

private func fieldNumber(_ text: String, for spelling: String) throws(UsageError) -> Int {
    guard let n = Int(text), n >= 1, n <= 1_000_000 else {
        throw UsageError("invalid field number '\(text)' for '\(spelling)' (fields count from 1)")
    }
    return n
}

private func timeFormat(_ text: String) throws(UsageError) -> TimeFormat {
    if let named = TimeFormat.names.first(where: { $0.0 == text }) { return named.1 }
    if text.contains("%") {
        switch TimePattern.compile(text) {
        case let .success(pattern): return .pattern(pattern)
        case let .failure(error): throw UsageError(error.description)
        }
    }
    let names = TimeFormat.names.map(\.0)
    let best = names.min { editDistance($0, text) < editDistance($1, text) }!
    let suggestion = editDistance(best, text) <= 2 ? " (did you mean '\(best)'?)" : ""
    throw UsageError("unknown time format '\(text)'\(suggestion)",
                     hint: "Formats: \(names.joined(separator: ", ")), or a strptime-style pattern such as '%Y-%m-%d %H:%M:%S'.\nSee 'pace --help' for more information.")
}
