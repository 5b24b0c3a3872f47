// `--progress`' status line, as text: what a person watching the terminal
// reads. Only numbers and fixed words, all ASCII, so a byte is a column and
// cutting it to the terminal's width is cutting bytes (no key or line is
// shown: nothing from the input can reach the terminal through it).

/// What the status line shows at one moment.
package struct ProgressFigures: Equatable, Sendable {
    package var figures: WatchFigures
    /// Lines read over the last second.
    package var linesPerSecond: Int64
    /// Replay of a regular file: bytes read and the file's size.
    package var position: (offset: Int64, size: Int64)?
    /// Replay of a regular file: the estimated real time left.
    package var timeLeft: Nanoseconds?

    package init(figures: WatchFigures, linesPerSecond: Int64, position: (offset: Int64, size: Int64)? = nil,
                 timeLeft: Nanoseconds? = nil) {
        self.figures = figures
        self.linesPerSecond = linesPerSecond
        self.position = position
        self.timeLeft = timeLeft
    }

    package static func == (a: ProgressFigures, b: ProgressFigures) -> Bool {
        a.figures == b.figures && a.linesPerSecond == b.linesPerSecond && a.position?.offset == b.position?.offset
            && a.position?.size == b.position?.size && a.timeLeft == b.timeLeft
    }
}

/// The status line's text, cut to `width - 1` columns (writing the last
/// column would wrap some terminals onto a new line).
/// `in 120, emitted 80, discarded 38, keys 2, 40 lines/s, time 12.500000, 43% read, 0:12 left`
package func progressText(_ progress: ProgressFigures, width: Int) -> [UInt8] {
    let f = progress.figures
    var text = "in \(f.linesRead), emitted \(f.emitted), discarded \(f.discarded), keys \(f.keysActive), "
        + "\(progress.linesPerSecond) lines/s"
    if let time = f.virtualTime { text += ", time " + secondsString(time) }
    if let position = progress.position, position.size > 0 {
        let percent = min(100, position.offset * 100 / position.size)
        text += ", \(percent)% read"
        if let left = progress.timeLeft { text += ", " + clockText(left) + " left" }
    }
    return Array(text.utf8.prefix(max(0, width - 1)))
}

/// A duration as a clock shows it, rounded up to the second: `0:07`,
/// `12:30`, `1:02:03`.
package func clockText(_ duration: Nanoseconds) -> String {
    let seconds = (max(0, duration.count) + 999_999_999) / 1_000_000_000
    func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
    if seconds >= 3600 { return "\(seconds / 3600):" + two(seconds / 60 % 60) + ":" + two(seconds % 60) }
    return "\(seconds / 60):" + two(seconds % 60)
}
