// `--stats`' figures of `--exec`: commands run, failed and restarted, and the
// lines never run, with which of them the policy emitted.

/// `--stats`' command counters.
package struct CommandStats: Equatable, Sendable {
    /// Commands started.
    package var run: Int64 = 0
    /// Commands that exited non-zero or died of a signal pace did not send.
    package var failed: Int64 = 0
    /// Running commands sent SIGTERM by `--on-busy restart`.
    package var restarted: Int64 = 0
    /// Lines whose command never ran.
    package var notRun: Int64 = 0
    /// Of those, `--resolve-after`'s resolved lines: copies, which go to no
    /// file and were never counted as emitted.
    package var copiesNotRun: Int64 = 0
    /// Of those, lines outside the policy (exempt, passed through): input
    /// lines `--dropped` gets, which the policy never emitted.
    package var outsideNotRun: Int64 = 0

    package init(run: Int64 = 0, failed: Int64 = 0, restarted: Int64 = 0, notRun: Int64 = 0, copiesNotRun: Int64 = 0,
                 outsideNotRun: Int64 = 0) {
        self.run = run
        self.failed = failed
        self.restarted = restarted
        self.notRun = notRun
        self.copiesNotRun = copiesNotRun
        self.outsideNotRun = outsideNotRun
    }

    /// The input lines whose command never ran: what `--dropped` got of
    /// them, and what dropped counts.
    package var linesNotRun: Int64 { notRun - copiesNotRun }
    /// Of those, the lines the policy emitted: what `--stats`' emitted,
    /// which counts the policy's emissions, leaves out.
    package var emittedNotRun: Int64 { linesNotRun - outsideNotRun }
}
