// `--exec`'s lines that never run (SPEC Commands: `--on-busy drop`, a line
// `restart` replaced, a command that could not start, pace stopping): each
// goes to `--dropped`, and `--trace` says why.

extension CommandRunner {
    /// The lines of a command that never runs go to `--dropped`: a batch's
    /// each, in order, all of them even after a failed write (the file
    /// counts what it did not get); the first error is thrown after.
    func discard(_ entry: Stored) throws(OutputError) {
        var failure: OutputError?
        entry.before.withUnsafeBytes { before in
            var start = 0
            for end in before.indices where before[end] == 0x0A {
                do throws(OutputError) {
                    try dropped.emit(Emission(line: UnsafeRawBufferPointer(rebasing: before[start..<end]), time: latestTime,
                                              number: 0))
                } catch {
                    if failure == nil { failure = error }
                }
                start = end + 1
            }
        }
        entry.line.withUnsafeBytes { bytes in
            do throws(OutputError) { try dropped.emit(Emission(line: bytes, time: latestTime, number: 0)) } catch {
                if failure == nil { failure = error }
            }
        }
        if let failure { throw failure }
    }

    /// `--trace`'s words for a line whose command never runs.
    func notRunText(_ why: CommandDiscard, _ occasion: Occasion) -> String {
        switch why {
        case .busy: return "not run: its key's command is busy (--on-busy drop)"
        case .replaced:
            if case let .submitted(later) = occasion { return "not run: replaced by line \(later)" }
            return "not run: replaced"
        case .shutdown: return "not run: pace is stopping"
        case .couldNotStart: return "not run: its command could not be started"
        }
    }
}
