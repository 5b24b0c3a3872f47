// `--trace`'s one writer: every line's fate, from the scheduler's observer
// and from `--exec`'s runner (a command started, signalled, ended, a line
// not run), goes through it, so the two fall in their order. It buffers up
// to 64 KB in replay; with `--exec`, each line is written at once, since the
// commands' own output falls between them.

/// Writes `pace: trace: line N: <fate>` lines to one descriptor.
package final class TraceWriter {
    private var text: [UInt8] = []
    private let fd: Int32
    private let flushesEachLine: Bool
    /// Called before each write (`--progress` erases its status line).
    var beforeWriting: (() -> Void)?

    package init(fd: Int32, flushesEachLine: Bool) {
        self.fd = fd
        self.flushesEachLine = flushesEachLine
    }

    /// One line's fate.
    package func say(_ line: EventNumber, _ fate: String) {
        text.append(contentsOf: "pace: trace: \(lineName(line)): \(fate)\n".utf8)
        if flushesEachLine || text.count >= 64 * 1024 { flush() }
    }

    /// Writes out what is buffered (errors are ignored: stderr is where
    /// they would be told).
    package func flush() {
        guard !text.isEmpty else { return }
        beforeWriting?()
        text.withUnsafeBytes { try? writeAll(fd: fd, $0, target: "stderr") }
        text.removeAll(keepingCapacity: true)
    }
}
