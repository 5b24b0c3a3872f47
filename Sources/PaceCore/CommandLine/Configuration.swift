// What a valid command line asks for, after every cross-flag rule of SPEC has
// been checked. The executable turns it into file descriptors and a run.

/// `--on-bad-time`.
public enum BadTimeAction: String, Sendable, CaseIterable {
    case error, skip, pass
}

public struct Configuration: Equatable, Sendable {
    public var policy: PolicyKind
    /// The policy's window D, in nanoseconds (> 0); for `--limit N/D` and
    /// `--rate N/D`, the period D.
    public var window: Nanoseconds
    /// N of `--limit N/D` and `--rate N/D` (1...10^9, <= D's nanoseconds).
    public var rateCount: Int64?
    /// `--burst B` (`--limit`, `--rate` only), or nil for the default (N for
    /// `--limit`, 1 for `--rate`).
    public var burst: Int64?
    /// `--max-wait` (debounce only, >= window).
    public var maxWait: Nanoseconds?
    /// `--key-field`, or nil for one shared state.
    public var keyField: FieldSelector?
    /// `--delimiter`: fields are split at each of this byte instead of at
    /// runs of blanks.
    public var delimiter: UInt8?
    public var replay: Bool
    public var timeFormat: TimeFormat
    /// `--year`, or nil for the current UTC year at start.
    public var year: Int?
    public var timeField: TimeField
    public var onBadTime: BadTimeAction
    public var emitTime: Bool
    /// `--record FILE` (live only), as the bytes of its argument: a file
    /// name need not be UTF-8, and goes to open(2) as it was given.
    public var recordPath: [UInt8]?
    /// `--count`: each output line's count, as a prefix.
    public var count: Bool
    /// `--dropped FILE`, as the bytes of its argument.
    public var droppedPath: [UInt8]?
    public var stats: Bool
    /// `--trace`: each input line's fate on stderr.
    public var trace: Bool
    /// `--marbles` (replay only): the run as marble diagrams on stderr.
    public var marbles: Bool
    /// The input FILE, as the bytes of its argument, or nil for stdin (`-`
    /// is also stdin).
    public var inputPath: [UInt8]?
    /// `--exec CMD` and its modifiers, or nil to write lines to stdout.
    public var exec: CommandOptions?

    public init(policy: PolicyKind, window: Nanoseconds) {
        self.policy = policy
        self.window = window
        maxWait = nil
        rateCount = nil
        burst = nil
        keyField = nil
        delimiter = nil
        replay = false
        timeFormat = .auto
        year = nil
        timeField = .number(1)
        onBadTime = .error
        emitTime = false
        recordPath = nil
        count = false
        droppedPath = nil
        stats = false
        trace = false
        marbles = false
        inputPath = nil
        exec = nil
    }
}

extension Configuration {
    /// `--limit` and `--rate`'s bucket: N per D, burst B (or its default).
    public var cellRate: CellRate? {
        guard let count = rateCount else { return nil }
        let defaultBurst: Int64 = policy == .rate ? 1 : count
        return CellRate(count: count, per: window, burst: burst ?? defaultBurst)
    }
}

/// What the command line asks pace to do.
public enum Command: Equatable, Sendable {
    case run(Configuration)
    case help
    case version
}

/// A usage error: `pace: <message>`, then the hint, on stderr; exit 2.
/// The message is bytes, since it may quote a file name that is not UTF-8.
public struct UsageError: Error, Equatable, Sendable {
    public var messageBytes: [UInt8]
    public var hint: String

    public init(_ message: String, hint: String = UsageError.defaultHint) {
        self.init(bytes: Array(message.utf8), hint: hint)
    }

    public init(bytes: [UInt8], hint: String = UsageError.defaultHint) {
        messageBytes = bytes
        self.hint = hint
    }

    public static let defaultHint = "Usage: \(usageLine)\nSee 'pace --help' for more information."

    /// The message as text (invalid UTF-8 shown as U+FFFD), for tests.
    public var message: String { String(decoding: messageBytes, as: UTF8.self) }

    /// The whole stderr text, as written.
    public var bytes: [UInt8] { Array("pace: ".utf8) + messageBytes + Array("\n\(hint)\n".utf8) }

    /// The same, as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

public let usageLine = "pace <policy> [<options>] [<file>]"
public let paceVersion = "0.1.0"
