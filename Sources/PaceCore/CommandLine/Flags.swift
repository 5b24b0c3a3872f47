// The one table of flags. Parsing, validation messages and `--help` all read
// it, so a flag cannot exist in one and be missing from another.

enum FlagID: Hashable, Sendable {
    case debounce, leading, throttle, throttleLast, limit, rate
    case maxWait, trailing, batch, burst, keyField, delimiter, replay, timeFormat, year, timeField, onBadTime
    case emitTime, count, dropped, record, stats, trace, marbles, help, version
    case state
    case exec, onBusy, jobs, killAfter
    case resolveAfter
    case progress, metrics
    case exempt, thenEvery, countField
}

struct Flag: Sendable {
    enum Section: Sendable { case policy, option, info }

    let id: FlagID
    /// Spellings, the canonical one first (`--throttle`, `--throttle-first`).
    let names: [String]
    /// The value's placeholder (`<duration>`), or nil for a switch.
    let value: String?
    let section: Section
    let help: String
    /// Shown as `(default: ...)` in help.
    let defaultText: String?
    /// Only meaningful with `--replay`.
    let replayOnly: Bool

    init(_ id: FlagID, _ names: [String], value: String? = nil, _ section: Section, _ help: String,
         default defaultText: String? = nil, replayOnly: Bool = false) {
        self.id = id
        self.names = names
        self.value = value
        self.section = section
        self.help = help
        self.defaultText = defaultText
        self.replayOnly = replayOnly
    }

    var name: String { names[0] }
    /// `--debounce <duration>`, as shown in help and errors.
    var synopsis: String { value.map { "\(name) <\($0)>" } ?? name }
}

let flagTable: [Flag] = [
    Flag(.debounce, ["--debounce"], value: "duration", .policy,
         "Trailing debounce: emit the last line of a burst once <duration> of silence has passed."),
    Flag(.leading, ["--leading"], value: "duration", .policy,
         "Leading-edge debounce: emit the first line of a burst at once, then stay silent until <duration> of silence has passed."),
    Flag(.throttle, ["--throttle", "--throttle-first"], value: "duration", .policy,
         "Throttle, first: emit a line at once, then drop everything for <duration> after that emission."),
    Flag(.throttleLast, ["--throttle-last"], value: "duration", .policy,
         "Throttle, latest: emit a line at once; keep only the latest line of each <duration> window and emit it when the window ends."),
    Flag(.limit, ["--limit"], value: "n/duration", .policy,
         "Count limit: at most <n> lines per <duration> pass, in bursts of up to --burst; the rest are dropped (10/s, 600/h, 5/250ms)."),
    Flag(.rate, ["--rate"], value: "n/duration", .policy,
         "Pacing: lines are delayed, never dropped, so that at most <n> per <duration> go out, in bursts of up to --burst (default 1: one every <duration>/<n>)."),
    Flag(.maxWait, ["--max-wait"], value: "duration", .option,
         "With --debounce: no line stays pending longer than <duration> after the first line pending since the last emission (>= the debounce window)."),
    Flag(.trailing, ["--trailing"], .option,
         "With --leading: also emit the last line of a burst, if it is not its first, when the burst ends (one window after that line)."),
    Flag(.batch, ["--batch"], value: "n", .option,
         "With --debounce or --throttle-last: keep up to <n> pending lines together instead of the latest alone, and emit them all at once, in input order, as one batch (at once when <n> are pending; with --exec, one command)."),
    Flag(.burst, ["--burst"], value: "count", .option,
         "With --limit or --rate: the bucket's size, a positive whole number of lines that may go out at once.",
         default: "the <n> of --limit, 1 for --rate"),
    Flag(.resolveAfter, ["--resolve-after"], value: "duration", .option,
         "Episodes: a 'resolved' line (the key's last line again) once a key has had no line for <duration> and nothing pending; every output line is marked first, repeat, resolved or exempt (a TAB column after the prefixes; PACE_EVENT with --exec)."),
    Flag(.keyField, ["--key-field"], value: "fields", .option,
         "Independent state per key: the key is the values of <fields>, a comma-separated list of N (field N, 1-based), N-M, N- and NAMEs (a JSON member such as kubernetes.pod, or a logfmt key): 3, 2,4, 5-, host. An item followed by ~ is masked: each run of letters, digits, _ and . holding a digit becomes # (5-~, msg~: one key per message template). Lines lacking them share the empty key."),
    Flag(.exempt, ["--exempt"], value: "item=values", .option,
         "Lines whose field <item> (a number or a NAME) has one of <values> (comma-separated, ASCII case ignored) pass outside the policy, at once, counting 1: level=error,fatal."),
    Flag(.thenEvery, ["--then-every"], value: "m", .option,
         "Of the lines a key's policy would drop, let every <m>th in a row through (an integer >= 2), counting <m>; not with --rate or --batch."),
    Flag(.delimiter, ["--delimiter"], value: "byte", .option,
         "Split fields at each <byte> (as cut -d; '\\t' is TAB) instead of at runs of spaces and tabs."),
    Flag(.replay, ["--replay"], .option,
         "Replay mode: time comes from each line's timestamp, on a virtual clock (deterministic output)."),
    Flag(.timeFormat, ["--time-format"], value: "format", .option,
         "auto, unix, unix-ms, unix-us, unix-ns, iso8601, syslog, clf, offset, record, or a strptime-style pattern with % directives.",
         default: "auto", replayOnly: true),
    Flag(.year, ["--year"], value: "year", .option,
         "The year of timestamps that carry none (syslog, patterns without %Y %y %s).",
         default: "the current UTC year", replayOnly: true),
    Flag(.timeField, ["--time-field"], value: "field", .option,
         "The timestamp starts at field <field> (a number, 1-based; with --delimiter, it is that field's whole value), or is the whole value of the JSON member or logfmt key <field>; an opening '[' is skipped.",
         default: "1", replayOnly: true),
    Flag(.onBadTime, ["--on-bad-time"], value: "action", .option,
         "A line whose timestamp does not parse: error (stop, exit 1), skip (drop it), or pass (write it through at once).",
         default: "error", replayOnly: true),
    Flag(.emitTime, ["--emit-time"], .option,
         "Prefix each output line with its emission time in seconds (6 decimals) and a TAB."),
    Flag(.count, ["--count"], .option,
         "Prefix each output line with a count and a TAB (after --emit-time's prefix): the line itself plus the lines of its key dropped since that key's previous output line."),
    Flag(.countField, ["--count-field"], value: "name", .option,
         "The count of --count inside the line instead: ,\"<name>\":N before a JSON object's closing brace, else ' <name>=N' (a space, then the pair) appended; not with --count or --exec."),
    Flag(.dropped, ["--dropped"], value: "file", .option,
         "Write every input line that does not reach stdout to <file> (created or truncated), as it is dropped; with --emit-time, after the time it was dropped and a TAB."),
    Flag(.record, ["--record"], value: "file", .option,
         "Live mode: also write every input line to <file> with its arrival time, for a later --replay --time-format record."),
    Flag(.state, ["--state"], value: "file", .option,
         "Live mode: keep each key's windows, buckets, owed counts and open episodes in <file> across runs: loaded at start if it exists, saved at exit and at most once a minute while something changed (see STATE in the manual)."),
    Flag(.stats, ["--stats"], .option,
         "At exit, print a summary on stderr: lines in, emitted, dropped, keys, clamped and bad timestamps, empty lines (with --count, dropped lines left uncounted); with --key-field, also in, emitted and dropped for the top 10 keys. Bounded memory: past 1,000,000 keys the key count is an estimate, past 100,000 the table comes from a summary (both say so)."),
    Flag(.trace, ["--trace"], .option,
         "Print each input line's fate on stderr as it becomes certain: emitted (when), replaced by which line, dropped inside which window, skipped."),
    Flag(.progress, ["--progress"], .option,
         "While pace runs, a status line on stderr when it is a terminal: lines in, emitted, discarded, active keys, lines per second; in replay also the time reached and, for a file, how much is read and the time left."),
    Flag(.metrics, ["--metrics"], value: "file", .option,
         "Keep the run's counters in <file> in the Prometheus text format (for node_exporter's textfile collector), rewritten at most once a second and at exit."),
    Flag(.marbles, ["--marbles"], .option,
         "After the replay, draw input and output per key as marble diagrams on stderr, scaled to the terminal width (COLUMNS, else 80; first 10000 events).",
         replayOnly: true),
    Flag(.exec, ["--exec"], value: "command", .option,
         "Instead of writing each emitted line, run /bin/sh -c <command> with the line on stdin and PACE_LINE, PACE_KEY, PACE_TIME and PACE_COUNT in its environment; at most one command per key at a time. A failed command makes pace exit 123."),
    Flag(.onBusy, ["--on-busy"], value: "action", .option,
         "With --exec: what a line does while its key's command runs or waits: queue (run after it), drop (discard the line), or restart (SIGTERM the running command; the newest line runs next).",
         default: "queue"),
    Flag(.jobs, ["--jobs"], value: "n", .option,
         "With --exec: at most <n> commands at once, 1 to 100000 (live; replay runs one at a time).",
         default: "1"),
    Flag(.killAfter, ["--kill-after"], value: "duration", .option,
         "With --exec: a command sent SIGTERM (by restart, or a signal to pace) that still runs after <duration> gets SIGKILL.",
         default: "5s"),
    Flag(.help, ["-h", "--help"], .info, "Show this help and exit."),
    Flag(.version, ["--version"], .info, "Show the version and exit."),
]
