// `--progress`' status line on stderr: drawn in place (`\r`, the text, then
// erase to the end of the line), at most 10 times a second, only when its
// text changes, and erased before anything else is written to the terminal
// (the trace, SIGUSR1's summary, messages at exit, and stdout's lines when
// stdout is the same terminal), to be drawn again at the watch's next look.

/// The status line's state between looks.
final class ProgressLine {
    private let fd: Int32
    /// stdout is the terminal stderr is: its lines erase the status first.
    let sharesStdout: Bool
    private let inputFD: Int32
    private let startedAt: Instant
    private var width: Int
    /// What the terminal shows now (empty: nothing drawn).
    private var shown: [UInt8] = []
    /// When the line was last drawn.
    private var drawnAt: Instant?
    /// `(time, lines read)` samples, oldest first, one per 100 ms at most,
    /// for the lines per second over the last second.
    private var samples: [(at: Instant, lines: Int64)] = []

    static let interval = Nanoseconds(100_000_000)
    static let second = Nanoseconds(1_000_000_000)
    private static let erase: [UInt8] = Array("\r\u{1b}[K".utf8)

    /// Nil unless `fd` is a terminal (`--progress` then does nothing).
    init?(fd: Int32, stdoutFD: Int32, inputFD: Int32, startedAt: Instant) {
        guard isTerminal(fd) else { return nil }
        self.fd = fd
        sharesStdout = sameTerminal(fd, stdoutFD)
        self.inputFD = inputFD
        self.startedAt = startedAt
        width = terminalWidth(fd) ?? 80
        TerminalResize.watch()
    }

    /// The figures at `now`: draws them if their text is not what the
    /// terminal shows (new figures, or the line erased) and 100 ms have
    /// passed since the last draw. Returns when it wants to look again:
    /// while the text is not yet shown, or while the lines per second are
    /// still falling to their figure (a second after the last line at
    /// most); nil once what it shows is what there is.
    func look(_ figures: WatchFigures, at now: Instant) -> Instant? {
        if TerminalResize.take() { width = terminalWidth(fd) ?? width }
        record(figures.linesRead, at: now)
        let rate = linesPerSecond(now: now, lines: figures.linesRead)
        var progress = ProgressFigures(figures: figures, linesPerSecond: rate)
        if figures.virtualTime != nil, let position = inputPosition(inputFD) {
            progress.position = position
            let elapsed = now.saturatingDistance(from: startedAt)
            if position.offset > 0 && elapsed.count > 0 {
                let left = Double(elapsed.count) * Double(position.size - position.offset) / Double(position.offset)
                progress.timeLeft = Nanoseconds(Int64(min(left, 1e17)))
            }
        }
        let text = progressText(progress, width: width)
        if text == shown { return settling(rate, now) }
        // At most 10 draws a second, a line erased by stdout's lines
        // included: it comes back at the next tenth.
        if let drawnAt, now < drawnAt.saturatingAdd(Self.interval) { return drawnAt.saturatingAdd(Self.interval) }
        draw(text)
        drawnAt = now
        return settling(rate, now)
    }

    /// While lines came in the last second, the rate shown still changes:
    /// look again in 100 ms.
    private func settling(_ rate: Int64, _ now: Instant) -> Instant? {
        rate == 0 ? nil : now.saturatingAdd(Self.interval)
    }

    /// Erases the line, if shown (before other text reaches the terminal).
    func erase() {
        guard !shown.isEmpty else { return }
        write(Self.erase)
        shown = []
    }

    private func draw(_ text: [UInt8]) {
        write(Self.erase + text)
        shown = text
    }

    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { try? writeAll(fd: fd, $0, target: "stderr") }
    }

    private func record(_ lines: Int64, at now: Instant) {
        if let last = samples.last, now < last.at.saturatingAdd(Self.interval) { return }
        samples.append((now, lines))
        // Keep the newest sample that is a second old or more, and those after.
        while samples.count > 1 && samples[1].at <= now - Self.second { samples.removeFirst() }
    }

    private func linesPerSecond(now: Instant, lines: Int64) -> Int64 {
        guard let oldest = samples.first else { return 0 }
        let span = now.saturatingDistance(from: oldest.at)
        // Over the last second: the lines since the sample a second ago
        // (or since the first sample, within the first second).
        guard span.count > 0 else { return 0 }
        if span < Self.second { return lines - oldest.lines }
        return (lines - oldest.lines) * Self.second.count / span.count
    }
}
