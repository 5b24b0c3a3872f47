// What a valid command line asks for, after every cross-flag rule of SPEC has
// been checked. The executable turns it into file descriptors and a run.

/// `--on-bad-time`.
package enum BadTimeAction: String, Sendable, CaseIterable {
    case error, skip, pass
}

/// The policy the command line chose, with its values: the one place a
/// policy is named (a new policy is one case here, one in the flag table and
/// its reducer's file).
package enum PolicyChoice: Equatable, Sendable {
    /// `--debounce D`, with `--max-wait M` (M >= D) or not.
    case debounce(Nanoseconds, maxWait: Nanoseconds?)
    /// `--leading D`.
    case leading(Nanoseconds)
    /// `--leading D --trailing`: a burst's last event too, at its end.
    case leadingTrailing(Nanoseconds)
    /// `--throttle D` (`--throttle-first`).
    case throttle(Nanoseconds)
    /// `--throttle-last D`.
    case throttleLast(Nanoseconds)
    /// `--limit N/D`, with its burst (`--burst B`, default N).
    case limit(CellRate)
    /// `--rate N/D`, with its burst (`--burst B`, default 1).
    case rate(CellRate)
}

package struct Configuration: Equatable, Sendable {
    package var policy: PolicyChoice
    /// `--batch N` (with `--debounce` or `--throttle-last`), or nil.
    package var batch: Int32?
    /// `--key-field`, or nil for one shared state.
    package var keyField: FieldSelector?
    /// `--delimiter`: fields are split at each of this byte instead of at
    /// runs of blanks.
    package var delimiter: UInt8?
    package var replay: Bool
    package var timeFormat: TimeFormat
    /// `--year`, or nil for the current UTC year at start.
    package var year: Int?
    package var timeField: TimeField
    package var onBadTime: BadTimeAction
    package var emitTime: Bool
    /// `--record FILE` (live only), as the bytes of its argument: a file
    /// name need not be UTF-8, and goes to open(2) as it was given.
    package var recordPath: [UInt8]?
    /// `--count`: each output line's count, as a prefix.
    package var count: Bool
    /// `--dropped FILE`, as the bytes of its argument.
    package var droppedPath: [UInt8]?
    package var stats: Bool
    /// `--trace`: each input line's fate on stderr.
    package var trace: Bool
    /// `--marbles` (replay only): the run as marble diagrams on stderr.
    package var marbles: Bool
    /// `--progress`: a status line on stderr, when it is a terminal.
    package var progress: Bool
    /// `--metrics FILE`, as the bytes of its argument.
    package var metricsPath: [UInt8]?
    /// The input FILE, as the bytes of its argument, or nil for stdin (`-`
    /// is also stdin).
    package var inputPath: [UInt8]?
    /// `--exec CMD` and its modifiers, or nil to write lines to stdout.
    package var exec: CommandOptions?
    /// `--resolve-after Q`: episodes, and a mark on every output line.
    package var resolveAfter: Nanoseconds?
    /// `--state FILE` (live only), or nil.
    package var state: StateOptions?
    /// `--exempt ITEM=VALUES`: lines outside the policy.
    package var exempt: Exemption?
    /// `--then-every M`: every Mth discard of a key in a row is emitted.
    package var thenEvery: Int64?
    /// `--count-field NAME`: the count inside the line, as NAME's bytes.
    package var countField: [UInt8]?

    package init(policy: PolicyChoice) {
        self.policy = policy
        batch = nil
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
        progress = false
        metricsPath = nil
        inputPath = nil
        exec = nil
        resolveAfter = nil
        state = nil
        exempt = nil
        thenEvery = nil
        countField = nil
    }
}

/// `--state FILE`: the file's name and the flags its state is saved under.
package struct StateOptions: Equatable, Sendable {
    /// FILE, as the bytes of its argument.
    package var path: [UInt8]
    /// `--key-field`'s argument as given, which the file records.
    package var keyFieldText: [UInt8]?
}

extension Configuration {
    /// How stdout shows a count: `--count-field`'s member, `--count`'s
    /// prefix, or none (counted for `--then-every` alone).
    package var countStyle: CountStyle {
        if let countField { return .field(countField) }
        return count ? .prefix : .hidden
    }

    /// Whether lines are counted: `--count` or `--count-field`.
    package var counts: Bool { count || countField != nil }

    /// `--limit`'s bucket (`--trace` says why a line is dropped with it).
    package var limitRate: CellRate? {
        if case let .limit(rate) = policy { return rate }
        return nil
    }
}

/// What the command line asks pace to do.
package enum Command: Equatable, Sendable {
    case run(Configuration)
    case help
    case version
}

/// A usage error: `pace: <message>`, then the hint, on stderr; exit 2.
/// The message is bytes, since it may quote a file name that is not UTF-8.
package struct UsageError: Error, Equatable, Sendable {
    package var messageBytes: [UInt8]
    package var hint: String

    package init(_ message: String, hint: String = UsageError.defaultHint) {
        self.init(bytes: Array(message.utf8), hint: hint)
    }

    package init(bytes: [UInt8], hint: String = UsageError.defaultHint) {
        messageBytes = bytes
        self.hint = hint
    }

    package static let defaultHint = "Usage: \(usageLine)\nSee 'pace --help' for more information."

    /// The message as text (invalid UTF-8 shown as U+FFFD), for tests.
    package var message: String { String(decoding: messageBytes, as: UTF8.self) }

    /// The whole stderr text, as written.
    package var bytes: [UInt8] { Array("pace: ".utf8) + messageBytes + Array("\n\(hint)\n".utf8) }

    /// The same, as text.
    package var text: String { String(decoding: bytes, as: UTF8.self) }
}

package let usageLine = "pace <policy> [<options>] [<file>]"
package let paceVersion = "0.1.0"
