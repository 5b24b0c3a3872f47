// The values flags take, each read and checked on its own: durations, rates
// and bursts, field numbers, time formats, years, and `--exec`'s options. The
// cross-flag rules are validate()'s (ArgumentParser.swift); these say what is
// wrong with one value, with the hint that shows its forms.

let durationHint = """
    A duration is a number and a unit: 300ms, 1.5s, .5s, 2m, 250us (units: ns, us, ms, s, m, h).
    See 'pace --help' for more information.
    """

func duration(_ text: String, for spelling: String) throws(UsageError) -> Nanoseconds {
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
        // `5MS`: a unit in capitals is named as such.
        case .unknownUnit:
            why = (try? parseDuration(text.lowercased()).get()) != nil ? "unknown unit (units are lower case)" : "unknown unit"
        case .tooLarge: why = "it is too large"
        }
        throw UsageError("invalid duration '\(text)' for '\(spelling)': \(why)", hint: durationHint)
    }
}

/// Why a duration has a byte at `offset` that cannot be there: `1,5s`,
/// `1_000ms` and `1..5s` have a unit, but something pace does not read
/// before it.
func unexpectedCharacter(in text: String, at offset: Int) -> String {
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

let fieldHint = """
    Fields are N (1-based), N-M, N- or a NAME (a JSON member path such as kubernetes.pod, or a logfmt key),
    comma-separated for --key-field: 3, 2,4, 5-, host. --time-field takes one number or NAME.
    See 'pace --help' for more information.
    """

/// `--time-field` takes one item: no list, no range (`fieldHint` offers both).
let timeFieldHint = """
    --time-field takes one field: a number N (1-based, where the timestamp starts) or a NAME
    (a JSON member path such as ts or log.time, or a logfmt key), not a list or a range: 2, ts.
    See 'pace --help' for more information.
    """

let delimiterHint = """
    --delimiter takes a single byte, as cut -d does: ',', '|', ':', or '\\t' for TAB.
    See 'pace --help' for more information.
    """

// MARK: - Rates

/// The largest N of `N/D` (SPEC).
package let maximumRateCount: Int64 = 1_000_000_000

let rateHint = """
    A rate is N/D: a whole number of lines N (1 to 1000000000) per duration D, or per one unit:
    10/s, 600/h, 5/250ms, 100/1.5s (units: ns, us, ms, s, m, h).
    See 'pace --help' for more information.
    """

let burstHint = """
    --burst takes a positive whole number of lines, the bucket's size: --limit 10/m --burst 30.
    See 'pace --help' for more information.
    """

/// `N/D` for `--limit` and `--rate`: N a positive integer (at most 10^9 and
/// at most D's count of nanoseconds), D a duration or a bare unit.
func rate(_ text: String, for spelling: String) throws(UsageError) -> (count: Int64, period: Nanoseconds) {
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
        case .failure:
            // `1/S`, `5/10MS`: a unit in capitals is named as such.
            let lower = periodText.lowercased()
            if DurationUnit.allCases.contains(where: { "\($0)" == lower })
                || (try? parseDuration(lower).get()) != nil {
                throw fail("'\(periodText)' has an unknown unit (units are lower case)")
            }
            throw fail("'\(periodText)' is neither a duration (a number and a unit) nor a unit")
        }
    }
    guard period > 0 else { throw fail("the duration must be greater than zero") }
    guard count <= period.count else {
        throw fail("at most one line per nanosecond: the count must not exceed the \(period) ns of '\(periodText)'")
    }
    return (count, period)
}

let batchHint = """
    --batch takes a positive whole number of lines, the most pending at once: --debounce 2s --batch 100.
    See 'pace --help' for more information.
    """

/// `--batch N`: a positive integer that fits a batch's size (Int32).
func batchSize(_ text: String, for spelling: String) throws(UsageError) -> Int32 {
    func fail(_ why: String) -> UsageError {
        UsageError("invalid batch size '\(text)' for '\(spelling)': \(why)", hint: batchHint)
    }
    guard !text.isEmpty, text.utf8.allSatisfy({ digit($0) != nil }) else {
        throw fail("it must be a positive whole number")
    }
    guard let size = Int32(text) else { throw fail("it must be at most \(Int32.max)") }
    guard size > 0 else { throw fail("it must be at least 1") }
    return size
}

/// `--burst B`: a positive integer.
func burst(_ text: String, for spelling: String) throws(UsageError) -> Int64 {
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
func commandOptions(_ typed: TypedArguments) throws(UsageError) -> CommandOptions? {
    guard typed.has(.exec) else {
        if let modifier = typed.flags.first(where: { [.onBusy, .jobs, .killAfter].contains($0.flag.id) }) {
            throw UsageError("'\(modifier.spelling)' only applies with --exec")
        }
        return nil
    }
    // CMD runs as the bytes typed (its text may have replaced invalid UTF-8).
    let command = typed.valueBytes[.exec]!
    // An empty command would run `sh -c ''` for each line, doing nothing.
    guard command.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A }) else {
        throw UsageError("'--exec' needs a command (it is empty)")
    }
    var options = CommandOptions(command: command)
    if let (_, value) = typed.value(.onBusy) {
        guard let action = OnBusy(rawValue: value!) else {
            throw UsageError("invalid value '\(value!)' for '--on-busy' (choose queue, drop or restart)")
        }
        options.onBusy = action
    }
    if let (_, value) = typed.value(.jobs) {
        guard value!.utf8.allSatisfy({ digit($0) != nil }), let jobs = Int(value!), jobs >= 1, jobs <= maximumJobs else {
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
package let maximumJobs = 100_000

/// `--time-format`'s value, as text and as the argument's bytes (a
/// pattern's literal bytes need not be UTF-8).
func timeFormat(_ text: String, bytes: [UInt8]) throws(UsageError) -> TimeFormat {
    if let named = TimeFormat.names.first(where: { $0.0 == text }) { return named.1 }
    if text.contains("%") {
        switch TimePattern.compile(bytes: bytes) {
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

// MARK: - Floods (issue 23)

let exemptHint = """
    --exempt takes ITEM=VALUES: one field (a number or a NAME) and comma-separated values,
    none empty, compared ignoring ASCII case: level=error,fatal, 5=ERROR.
    See 'pace --help' for more information.
    """

let countFieldHint = """
    --count-field takes a NAME (a letter, '_' or '@', then letters, digits and '_ - @ .'): n, count.
    See 'pace --help' for more information.
    """

/// `--exempt`, `--then-every` and `--count-field`, with their cross-flag rules.
func floodOptions(_ typed: TypedArguments, _ config: inout Configuration, policy: String) throws(UsageError) {
    if let (spelling, value) = typed.value(.exempt) {
        switch Exemption.parse(bytes: typed.valueBytes[.exempt] ?? Array((value ?? "").utf8)) {
        case let .success(exemption): config.exempt = exemption
        case let .failure(error): throw UsageError("invalid value for '\(spelling)': \(error)", hint: exemptHint)
        }
    }
    if let (spelling, value) = typed.value(.thenEvery) {
        let text = value ?? ""
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else {
            throw UsageError("invalid value '\(text)' for '\(spelling)' (an integer of at least 2)")
        }
        guard let m = Int64(text) else { throw UsageError("invalid value '\(text)' for '\(spelling)' (it is too large)") }
        guard m >= 2 else { throw UsageError("invalid value '\(text)' for '\(spelling)' (an integer of at least 2)") }
        if case .rate = config.policy {
            throw UsageError("'\(spelling)' does not apply to --rate (it never drops a line)")
        }
        if config.batch != nil {
            throw UsageError("'\(spelling)' and '--batch' cannot be used together (a batch discards nothing)")
        }
        config.thenEvery = m
    }
    if let (spelling, value) = typed.value(.countField) {
        if config.count { throw UsageError("'\(spelling)' and '--count' cannot be used together (one count per line)") }
        if config.exec != nil {
            throw UsageError("'\(spelling)' does not apply to --exec (the command gets PACE_COUNT)")
        }
        let name = Array((value ?? "").utf8)
        guard case .success(.name) = TimeField.parse(value ?? ""), !name.isEmpty else {
            throw UsageError("invalid NAME '\(value ?? "")' for '\(spelling)'", hint: countFieldHint)
        }
        config.countField = name
    }
}
