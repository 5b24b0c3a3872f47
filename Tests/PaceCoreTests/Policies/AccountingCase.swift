// The cases AccountingInvariantTests checks, and their runs: a random stream
// (RandomizedPolicyTests') with times on a 10 us grid and bad-time and empty
// lines mixed in, as pace's arguments; replayed through the whole replay path
// with `--dropped` and `--trace` into scratch files, and what it wrote read
// back.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PaceCore
import PaceTesting

/// A temporary file, open for reading and writing.
struct ScratchFile {
    let path: String
    let fd: Int32

    init(_ prefix: String = "pace-accounting") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        fd = mkstemp(&template)
        precondition(fd >= 0, "mkstemp failed")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
        lseek(fd, 0, SEEK_SET)
    }

    func contents() -> [UInt8] {
        let size = Int(lseek(fd, 0, SEEK_END))
        lseek(fd, 0, SEEK_SET)
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { _ = read(fd, $0.baseAddress, size) }
        return bytes
    }

    func remove() {
        close(fd)
        unlink(path)
    }
}

/// One input line of an accounting case.
enum InputLine {
    case event(index: Int, key: String, line: String)
    case badTime(String)
    case empty

    var text: String {
        switch self {
        case let .event(_, _, line): return line
        case let .badTime(line): return line
        case .empty: return ""
        }
    }
}

struct AccountingCase: CustomStringConvertible {
    var random: RandomCase
    var onBadTime: BadTimeAction
    var lines: [InputLine]

    /// Times on a 10 us grid, all positive.
    static let offset: Int64 = 10_000_000

    init(_ random: RandomCase, onBadTime: BadTimeAction) {
        self.random = random
        self.onBadTime = onBadTime
        var rng = SplitMix64(seed: random.seed &* 31 &+ UInt64(BadTimeAction.allCases.firstIndex(of: onBadTime)!))
        lines = []
        for (i, event) in random.events.enumerated() {
            switch rng.below(20) {
            case 0, 1: lines.append(.badTime("bad b\(i)"))
            case 2: lines.append(.empty)
            default: break
            }
            let micros = event.time.nanoseconds + Self.offset
            let fraction = String(micros % 1_000_000)
            let stamp = "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
            lines.append(.event(index: i, key: "k" + event.key, line: "\(stamp) k\(event.key) \(event.line)"))
        }
    }

    var arguments: [String] {
        var args: [String]
        switch random.policy {
        case let .debounce(d, m): args = ["--debounce", "\(d)us"] + (m.map { ["--max-wait", "\($0)us"] } ?? [])
        case let .leading(d): args = ["--leading", "\(d)us"]
        case let .leadingTrailing(d): args = ["--leading", "\(d)us", "--trailing"]
        case let .throttleFirst(d): args = ["--throttle", "\(d)us"]
        case let .throttleLast(d): args = ["--throttle-last", "\(d)us"]
        case let .limit(n, d, b): args = ["--limit", "\(n)/\(d)us", "--burst", "\(b)"]
        case let .rate(n, d, b): args = ["--rate", "\(n)/\(d)us", "--burst", "\(b)"]
        }
        if let n = random.batch { args += ["--batch", "\(n)"] }
        args += ["--replay", "--time-format", "unix", "--count", "--emit-time", "--stats", "--trace",
                 "--on-bad-time", onBadTime.rawValue]
        if random.keyed { args += ["--key-field", "2"] }
        return args
    }

    /// The lines that reach pace's policy or its bypasses: all, or under
    /// `--on-bad-time error` those before the first bad one.
    var used: ArraySlice<InputLine> {
        guard onBadTime == .error, let bad = lines.firstIndex(where: { if case .badTime = $0 { true } else { false } })
        else { return lines[...] }
        return lines[..<bad]
    }

    var description: String {
        let events = random.events.count > 50 ? "variant \(random.variant), keyed \(random.keyed), seed \(random.seed)"
                                              : random.description
        return "\(events), --on-bad-time \(onBadTime); input: \(lines.map(\.text))".prefix(4000) + ""
    }
}

/// What a run wrote.
struct AccountedRun {
    var emissions: [Emitted]
    /// `--dropped`'s lines: discard time (us) and line.
    var dropped: [(time: Instant, line: String)]
    /// Each line number's fate as `--trace` words it.
    var trace: [Int: String]
    var report: RunReport
}

func accountedRun(_ c: AccountingCase) -> AccountedRun {
    let input = ScratchFile(), droppedFile = ScratchFile(), traceFile = ScratchFile()
    defer { input.remove(); droppedFile.remove(); traceFile.remove() }
    input.write(Array(c.lines.map { $0.text + "\n" }.joined().utf8))
    guard case let .success(.run(configuration)) = parseArguments(c.arguments + ["--dropped", droppedFile.path])
    else { preconditionFailure("bad arguments \(c.arguments)") }
    var reader = LineReader(fd: input.fd, capacity: 64)
    var sink = RecordingSink()
    let report = runReplay(configuration, defaultYear: 2026, input: &reader, sink: &sink, droppedFD: droppedFile.fd,
                           traceFD: traceFile.fd, signals: .none)
    var dropped: [(Instant, String)] = []
    for record in droppedFile.contents().split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
        let tab = record.firstIndex(of: 0x09)!
        let stamp = String(decoding: record[..<tab], as: UTF8.self).split(separator: ".")
        dropped.append((Instant(nanoseconds: Int64(stamp[0])! * 1_000_000 + Int64(stamp[1])!),
                        String(decoding: record[(tab + 1)...], as: UTF8.self)))
    }
    var trace: [Int: String] = [:]
    for line in String(decoding: traceFile.contents(), as: UTF8.self).split(separator: "\n") {
        // pace: trace: line N: fate
        let rest = line.dropFirst("pace: trace: line ".count)
        let colon = rest.firstIndex(of: ":")!
        let number = Int(rest[..<colon])!
        precondition(trace[number] == nil, "two trace lines for line \(number)")
        trace[number] = String(rest[rest.index(colon, offsetBy: 2)...])
    }
    return AccountedRun(emissions: sink.emissions, dropped: dropped, trace: trace, report: report)
}
