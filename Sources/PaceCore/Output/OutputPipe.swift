// What replay does to a pipe it is given as stdout: asks the kernel to let
// it hold 1 MiB instead of Linux's default 64 KiB. Replay writes far faster
// than a reader such as `cat` takes the bytes in, so with the default pipe
// the two took turns every 64 KiB: each write filled the pipe, pace waited
// in ppoll, the reader woke, emptied it and slept. The larger pipe lets each
// side do more per wake-up (measured in docs/PERFORMANCE.md, "Through a
// pipe"). Best effort: a refusal (EPERM past /proc/sys/fs/pipe-max-size or
// the user's pipe-user-pages limits) leaves the pipe as it was, silently, and
// pace never shrinks a pipe that is already larger. Live mode and `--exec`
// leave their stdout alone: live writes each line as it is emitted, so the
// size of the pipe never holds a line back, and `--exec`'s stdout is its
// commands'.

/// The size replay asks for its stdout's pipe, and the asking.
package enum OutputPipe {
    /// 1 MiB: /proc/sys/fs/pipe-max-size's default, so an ordinary user
    /// gets it on a default system.
    package static let wantedCapacity = 1 << 20

    /// The capacity to ask of a pipe that holds `current` bytes: `wanted`,
    /// or nil when the pipe holds as much already (never shrink).
    package static func capacityToAsk(current: Int, wanted: Int = wantedCapacity) -> Int? {
        current < wanted ? wanted : nil
    }

    /// Enlarges the pipe `fd` is an end of to `wanted` bytes, if it is one
    /// and holds fewer (0: leave it as it is). Returns the pipe's capacity
    /// afterwards (nil: not a pipe); a refusal is not an error.
    @discardableResult
    package static func enlarge(_ fd: Int32, to wanted: Int = wantedCapacity) -> Int? {
        guard let current = pipeCapacity(fd) else { return nil }
        guard wanted > 0, let asked = capacityToAsk(current: current, wanted: wanted) else { return current }
        return setPipeCapacity(fd, asked) ?? current
    }
}
