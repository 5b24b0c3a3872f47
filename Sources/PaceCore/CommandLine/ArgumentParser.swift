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
    parseArguments(bytes: arguments.map { Array($0.utf8) })
}

/// Parses `arguments`, each the bytes of one `argv` string (without the
/// program name). Flags and their values are read as text; file names stay
/// the bytes they were, for open(2) and for messages.
public func parseArguments(bytes arguments: [[UInt8]]) -> Result<Command, UsageError> {
    // --help and --version win over everything else, as in most Unix tools.
    for argument in arguments.lazy.map({ String(decoding: $0, as: UTF8.self) }) {
        if argument == "--" { break }
        if argument == "-h" || argument == "--help" { return .success(.help) }
        if argument == "--version" { return .success(.version) }
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
                // The bytes after the first `=` (a byte no UTF-8 sequence
                // contains, so the text's `=` is the same one).
                let raw = arguments[i - 1]
                typed.valueBytes[flag.id] = Array(raw[(raw.firstIndex(of: UInt8(ascii: "="))! + 1)...])
            } else if i < arguments.count, !arguments[i].starts(with: [UInt8(ascii: "-"), UInt8(ascii: "-")]) {
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

private func unknownOptionMessage(_ spelling: String) -> String {
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
/// names: '-x' is not a typo of '-h'.
func suggestion(for spelling: String) -> [String]? {
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

// MARK: - Step 2: SPEC's rules

func validate(_ typed: TypedArguments) throws(UsageError) -> Configuration {
    let policyFlags = typed.flags.filter { $0.flag.section == .policy }
    guard let chosen = policyFlags.first else {
        throw UsageError("no policy given (choose one of --debounce, --leading, --throttle, --throttle-last, --limit, --rate)")
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
    case .limit: kind = .limit
    case .rate: kind = .rate
    default: preconditionFailure("validate: \(chosen.flag.name) is not a policy")
    }
    var config: Configuration
    if kind == .limit || kind == .rate {
        let (count, period) = try rate(chosen.value!, for: chosen.spelling)
        config = Configuration(policy: kind, window: period)
        config.rateCount = count
    } else {
        config = Configuration(policy: kind, window: try duration(chosen.value!, for: chosen.spelling))
    }
    let window = config.window

    if let (spelling, value) = typed.value(.burst) {
        guard kind == .limit || kind == .rate else {
            throw UsageError("'--burst' only applies to --limit and --rate (not '\(chosen.spelling)')")
        }
        config.burst = try burst(value!, for: spelling)
    }

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
        switch FieldSelector.parse(value!) {
        case let .success(selector): config.keyField = selector
        case let .failure(error): throw UsageError("invalid field list for '\(spelling)': \(error)", hint: fieldHint)
        }
    }
    if let (_, value) = typed.value(.delimiter) {
        switch parseDelimiter(value!) {
        case let .success(byte): config.delimiter = byte
        case let .failure(error): throw UsageError(error.description, hint: delimiterHint)
        }
    }
    config.replay = typed.has(.replay)
    config.emitTime = typed.has(.emitTime)
    config.stats = typed.has(.stats)
    config.count = typed.has(.count)
    config.trace = typed.has(.trace)
    config.marbles = typed.has(.marbles)

    if !config.replay, let replayOnly = typed.flags.first(where: { $0.flag.replayOnly }) {
        throw UsageError("'\(replayOnly.spelling)' only applies with --replay")
    }
    if let (_, value) = typed.value(.record) {
        if config.replay {
            throw UsageError("'--record' is for live mode and cannot be used with --replay")
        }
        let path = typed.valueBytes[.record]!
        if path.isEmpty { throw UsageError("--record: the file name is empty") }
        config.recordPath = path
    }
    if typed.value(.dropped) != nil {
        let path = typed.valueBytes[.dropped]!
        if path.isEmpty { throw UsageError("--dropped: the file name is empty") }
        config.droppedPath = path
    }
    if let (_, value) = typed.value(.timeFormat) {
        config.timeFormat = try timeFormat(value!)
    }
    if let (spelling, value) = typed.value(.timeField) {
        if config.timeFormat == .record {
            throw UsageError("'--time-field' does not apply to --time-format record (its time is the line's prefix)")
        }
        switch TimeField.parse(value!) {
        case let .success(field): config.timeField = field
        case let .failure(error): throw UsageError("invalid time field for '\(spelling)': \(error)", hint: fieldHint)
        }
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

/// The years that hold instants pace can represent (Int64 nanoseconds since
/// 1970: `representableTimes`). Only part of the first and the last is
/// representable; a timestamp outside that part is out of range as any is.
public let minimumYear = 1677
public let maximumYear = 2262

private func duration(_ text: String, for spelling: String) throws(UsageError) -> Nanoseconds {
    switch parseDuration(text) {
    case let .success(ns):
        guard ns > 0 else { throw UsageError("'\(spelling)' must be greater than zero (got '\(text)')", hint: durationHint) }
        return Nanoseconds(ns)
    case let .failure(error):
        let why: String
        switch error {
        case .empty: why = "it is empty"
        case .noNumber: why = "it is not a number with a unit"
        case .missingUnit: why = "a number needs a unit"
        case let .unexpected(offset): why = unexpectedCharacter(in: text, at: offset)
        case .unknownUnit: why = "unknown unit"
        case .tooLarge: why = "it is too large"
        }
        throw UsageError("invalid duration '\(text)' for '\(spelling)': \(why)", hint: durationHint)
    }
}

/// Why a duration has a byte at `offset` that cannot be there: `1,5s`,
/// `1_000ms` and `1..5s` have a unit, but something pace does not read
/// before it.
private func unexpectedCharacter(in text: String, at offset: Int) -> String {
    let bytes = Array(text.utf8)
    let before = String(decoding: bytes[..<offset], as: UTF8.self)
    let character = String(decoding: bytes[offset...], as: UTF8.self).first.map(String.init) ?? ""
    // A hint when the mistake is plain: a separator between digits, a
    // blank between the number and a unit.
    let afterDigit = offset > 0 && digit(bytes[offset - 1]) != nil
    let next: UInt8 = offset + 1 < bytes.count ? bytes[offset + 1] : 0
    let why: String
    switch character {
    case "," where afterDigit && digit(next) != nil: why = " (the decimal point is '.')"
    case "_" where afterDigit && digit(next) != nil, "'" where afterDigit && digit(next) != nil:
        why = " (digits are written without separators)"
    case " " where afterDigit && isASCIILetter(next): why = " (no space between the number and its unit)"
    default: why = ""
    }
    return "unexpected '\(character)' after '\(before)'\(why)"
}

private let fieldHint = """
    Fields are N (1-based), N-M, N- or a NAME (a JSON member path such as kubernetes.pod, or a logfmt key),
    comma-separated for --key-field: 3, 2,4, 5-, host. --time-field takes one number or NAME.
    See 'pace --help' for more information.
    """

private let delimiterHint = """
    --delimiter takes a single byte, as cut -d does: ',', '|', ':', or '\\t' for TAB.
    See 'pace --help' for more information.
    """

// MARK: - Rates

/// The largest N of `N/D` (SPEC).
public let maximumRateCount: Int64 = 1_000_000_000

private let rateHint = """
    A rate is N/D: a whole number of lines N (1 to 1000000000) per duration D, or per one unit:
    10/s, 600/h, 5/250ms, 100/1.5s (units: ns, us, ms, s, m, h).
    See 'pace --help' for more information.
    """

private let burstHint = """
    --burst takes a positive whole number of lines, the bucket's size: --limit 10/m --burst 30.
    See 'pace --help' for more information.
    """

/// `N/D` for `--limit` and `--rate`: N a positive integer (at most 10^9 and
/// at most D's count of nanoseconds), D a duration or a bare unit.
private func rate(_ text: String, for spelling: String) throws(UsageError) -> (count: Int64, period: Nanoseconds) {
    func fail(_ why: String) -> UsageError {
        UsageError("invalid rate '\(text)' for '\(spelling)': \(why)", hint: rateHint)
    }
    guard let slash = text.firstIndex(of: "/") else { throw fail("expected N/D, a count and a duration") }
    let countText = text[..<slash]
    let periodText = String(text[text.index(after: slash)...])
    guard !countText.isEmpty else { throw fail("the count before '/' is missing") }
    guard !periodText.isEmpty else { throw fail("the duration after '/' is missing") }
    guard countText.utf8.allSatisfy({ digit($0) != nil }) else {
        throw fail("the count must be a positive whole number")
    }
    // All digits: only its size can make Int64 fail.
    guard let count = Int64(countText), count <= maximumRateCount else {
        throw fail("the count must be at most \(maximumRateCount)")
    }
    guard count > 0 else { throw fail("the count must be at least 1") }
    let period: Nanoseconds
    if let unit = DurationUnit.allCases.first(where: { "\($0)" == periodText }) {
        period = Nanoseconds(unit.nanoseconds)
    } else {
        switch parseDuration(periodText) {
        case let .success(ns): period = Nanoseconds(ns)
        case .failure(.tooLarge): throw fail("the duration is too large")
        case .failure: throw fail("'\(periodText)' is neither a duration (a number and a unit) nor a unit")
        }
    }
    guard period > 0 else { throw fail("the duration must be greater than zero") }
    guard count <= period.count else {
        throw fail("at most one line per nanosecond: the count must not exceed the \(period) ns of '\(periodText)'")
    }
    return (count, period)
}

/// `--burst B`: a positive integer.
private func burst(_ text: String, for spelling: String) throws(UsageError) -> Int64 {
    func fail(_ why: String) -> UsageError {
        UsageError("invalid burst '\(text)' for '\(spelling)': \(why)", hint: burstHint)
    }
    guard !text.isEmpty, text.utf8.allSatisfy({ digit($0) != nil }) else {
        throw fail("it must be a positive whole number")
    }
    guard let burst = Int64(text) else { throw fail("it is too large") }
    guard burst > 0 else { throw fail("it must be at least 1") }
    return burst
}

/// `--exec` and the flags that only apply with it.
private func commandOptions(_ typed: TypedArguments) throws(UsageError) -> CommandOptions? {
    guard typed.has(.exec) else {
        if let modifier = typed.flags.first(where: { [.onBusy, .jobs, .killAfter].contains($0.flag.id) }) {
            throw UsageError("'\(modifier.spelling)' only applies with --exec")
        }
        return nil
    }
    // CMD runs as the bytes typed (its text may have replaced invalid UTF-8).
    var options = CommandOptions(command: typed.valueBytes[.exec]!)
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
    guard let n = Int(text), n >= 1 else {
        throw UsageError("invalid field number '\(text)' for '\(spelling)' (fields count from 1)")
    }
    guard n <= maximumFieldNumber else {
        throw UsageError("invalid field number '\(text)' for '\(spelling)' (at most \(maximumFieldNumber))")
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
