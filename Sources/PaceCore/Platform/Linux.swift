// Every call that differs between operating systems, in one place: the
// signal handlers and masks (LinuxSignals.swift), the wait (ppoll), readiness of a descriptor,
// the clocks and timer slack (the live clock built on them:
// LinuxLiveClock.swift), a pipe's capacity, and the thread that writes
// replay's stdout into a pipe (LinuxOutputThread.swift). Linux (glibc) is what pace is built and tested
// on; another system would get a sibling of this file, not branches through
// the code.
//
// How signals and waits fit together (the design that closes the race
// between checking a flag and blocking):
//
// - The terminating signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT and the others
//   `Signals.terminating` lists) and SIGUSR1 stay blocked for the whole
//   run, in both modes. Their handlers only record what came (`Signals`).
// - Before the run (arguments, opening files) they are not blocked, and a
//   terminating one ends pace at once from its handler, with its status
//   (128 + N): nothing is pending yet, and an open(2) of a FIFO that waits
//   for its writer must not outlast a Ctrl-C (see `Signals.install`).
// - pace never blocks in read(2) or write(2) on a descriptor that can stall
//   (a pipe, a socket, a terminal). It waits only in ppoll(2), which swaps in
//   a mask without those signals atomically for the wait: a signal that
//   arrived before the wait is delivered inside it (EINTR), never lost behind
//   it. Writes go to a private non-blocking open file description of the
//   output (`OutputPort`; a socket is sent to with MSG_DONTWAIT), so EAGAIN,
//   not the kernel's sleep, tells pace to wait; reads are preceded by a
//   zero-timeout poll. The flags of a shared descriptor are never changed.
// - A process pace starts inherits the blocked mask: whoever spawns one must
//   set the child's mask (posix_spawnattr_setsigmask). `--exec`'s commands
//   get an empty one (ProcessSpawner), so that the SIGTERM pace sends them
//   is never held back, whatever mask pace itself was started with.
// - Where pace checks for signals without waiting (between read batches),
//   `Signals.deliverPending()` lets pending ones in by unblocking them for a
//   moment: one sigpending(2) when none is pending.

import Glibc

// MARK: - The wait

/// ppoll(2), found at run time: Swift's Glibc module leaves it out (poll.h
/// declares it only under _GNU_SOURCE), and glibc has exported it since 2.4.
/// Calling it through a `@convention(c)` pointer keeps the C calling
/// convention, which a `@_silgen_name` declaration would not guarantee.
private typealias PPoll = @convention(c) (
    UnsafeMutablePointer<pollfd>?, nfds_t, UnsafePointer<timespec>?, UnsafePointer<sigset_t>?
) -> Int32

private let ppollFunction: PPoll = {
    guard let symbol = dlsym(nil, "ppoll") else { preconditionFailure("pace: libc has no ppoll") }
    return unsafeBitCast(symbol, to: PPoll.self)
}()

/// ppoll(2) on `fds` for at most `timeout` nanoseconds (nil: no limit), with
/// the handled signals deliverable for the wait only (see `Signals`).
/// Returns ppoll's result: the number of ready descriptors, 0 on timeout,
/// -1 with errno set (EINTR: a signal's handler ran).
func platformPoll(_ fds: UnsafeMutableBufferPointer<pollfd>, timeout: Nanoseconds?) -> Int32 {
    var limit = timespec()
    if let timeout {
        let remaining = max(0, timeout.count)
        limit.tv_sec = Int(remaining / 1_000_000_000)
        limit.tv_nsec = Int(remaining % 1_000_000_000)
    }
    return withUnsafePointer(to: &limit) { limitPointer in
        Signals.withWaitMask { mask in
            ppollFunction(fds.baseAddress, nfds_t(fds.count), timeout == nil ? nil : limitPointer, mask)
        }
    }
}

/// Why a wait for one descriptor ended.
enum Readiness {
    /// The descriptor is ready (or in a state the next call will report).
    case ready
    /// A signal's handler ran.
    case interrupted
    /// The time given ran out first.
    case timedOut
}

/// Waits until `fd` is ready for `events` (POLLIN or POLLOUT), or a handled
/// signal arrives. A signal that came before the call interrupts it.
func awaitReady(_ fd: Int32, events: Int16, timeout: Nanoseconds? = nil) -> Readiness {
    var entry = pollfd(fd: fd, events: events, revents: 0)
    let result = withUnsafeMutablePointer(to: &entry) { platformPoll(UnsafeMutableBufferPointer(start: $0, count: 1), timeout: timeout) }
    if result < 0 {
        // EINTR is a signal; anything else (ENOMEM) is reported as ready, so
        // that the read or write that follows reports a real error and the
        // caller never spins on a failing ppoll.
        return errno == EINTR ? .interrupted : .ready
    }
    // ppoll delivers a pending signal only when it has nothing else to report.
    if Signals.deliverPending() { return .interrupted }
    return result == 0 && timeout != nil ? .timedOut : .ready
}

/// Whether `fd` has something to read now (data, end of input or an error),
/// without waiting and without delivering signals.
func isReadableNow(_ fd: Int32) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) != 0
}

/// Waits until `fd` takes bytes, in ppoll where signals arrive; false when
/// a second terminating signal ends pace first (the one question a write
/// asks of signals, answered here, beside the handlers that record them).
/// What the run does meanwhile (`WriteWait`) is asked before the first wait
/// and at each wake, and says how long the next wait may last.
func awaitWritableUnlessEnded(_ fd: Int32) -> Bool {
    var timeout = WriteWait.look(waitingOn: fd)
    while true {
        if Signals.endNow { return false }
        if awaitReady(fd, events: Int16(POLLOUT), timeout: timeout) == .ready { return true }
        timeout = WriteWait.look(waitingOn: fd)
    }
}

/// What a write that waits for its reader does meanwhile: SIGUSR1's summary
/// and `--exec`'s signals (Run/WriteWaitSummary.swift). Set by a run on the
/// process's own signals only, on the one thread that writes.
package enum WriteWait {
    nonisolated(unsafe) private static var answer: ((Int32) -> Nanoseconds?)?

    /// Sets (or, nil, clears) what a waiting write does; the answer returns
    /// how long until it wants to be asked again (nil: at the next signal).
    package static func meanwhile(_ answer: ((Int32) -> Nanoseconds?)?) { self.answer = answer }

    /// A write waits (or waits on) for `fd` to take bytes. Only a full `fd`
    /// is waited for by the answer (the output thread's hand-over waits a
    /// moment for a write that goes on: the run answers after it). The
    /// answer's own write (SIGUSR1's summary) may wait too, and is asked
    /// again then: the answer keeps itself from writing twice.
    static func look(waitingOn fd: Int32) -> Nanoseconds? {
        guard let answer, !isWritableNow(fd) else { return nil }
        return answer(fd)
    }
}

/// Whether `fd` would take a write now (or report an error), without
/// waiting and without delivering signals.
func isWritableNow(_ fd: Int32) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    return poll(&entry, 1, 0) != 0
}

// MARK: - Descriptors

/// Opens the input file `path` for reading (retrying EINTR). A FIFO is
/// opened without waiting for a writer (O_NONBLOCK, cleared at once): on
/// Linux a FIFO that has had no writer yet polls as neither readable nor
/// hung up, so the run's first wait for input, where signals are handled,
/// waits for the writer as open(2) would have, and a signal then ends the
/// run as anywhere else (its summary, `--metrics`, `--state`'s save).
package func openInputFile(_ path: [UInt8]) -> Int32 {
    let cPath = path.map { CChar(bitPattern: $0) } + [0]
    var info = stat()
    let fifo = stat(cPath, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    while true {
        let fd = open(cPath, O_RDONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0))
        if fd < 0 && errno == EINTR { continue }
        if fd >= 0 && fifo {
            let flags = fcntl(fd, F_GETFL)
            if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        }
        return fd
    }
}

/// Whether I/O on `fd` can wait for another process: anything but a regular
/// file or a block device (a pipe, a FIFO, a socket, a terminal).
func canStall(_ fd: Int32) -> Bool {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return true }
    let type = info.st_mode & S_IFMT
    return type != S_IFREG && type != S_IFBLK
}

/// How pace writes to a descriptor without ever sleeping in write(2) with
/// the handled signals blocked.
struct OutputPort {
    /// What to write to: the descriptor, or pace's own non-blocking twin of it.
    let fd: Int32
    /// The twin, closed by `close()`.
    let ownsDescriptor: Bool
    /// A blocking socket: written with send(2) and MSG_DONTWAIT, which makes
    /// that one call non-blocking without touching the shared flags.
    let isSocket: Bool
    /// Wait for POLLOUT before every write, and write at most `PIPE_BUF`
    /// bytes: for a blocking descriptor that could not be twinned.
    let waitsFirst: Bool

    init(fd: Int32, ownsDescriptor: Bool = false, isSocket: Bool = false, waitsFirst: Bool = false) {
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
        self.isSocket = isSocket
        self.waitsFirst = waitsFirst
    }

    /// A port for `fd`. A regular file or block device is written directly;
    /// a descriptor already non-blocking (inherited so: EAGAIN means wait)
    /// too. A blocking socket gets MSG_DONTWAIT on each send. Otherwise, with
    /// `twin`, pace opens the same pipe, FIFO or terminal again through
    /// /proc/self/fd, non-blocking: a file description of its own, so the
    /// flags of the shared one (which other processes use) stay untouched.
    /// Without a twin (no /proc), writes wait for POLLOUT first and stay
    /// small enough (PIPE_BUF) to fit once it is reported.
    init(_ fd: Int32, twin: Bool) {
        var info = stat()
        let known = fstat(fd, &info) == 0
        let type = info.st_mode & S_IFMT
        let flags = fcntl(fd, F_GETFL)
        // A descriptor not open for writing (a closed stdout that pace
        // filled with /dev/null opened read-only) is written as it is, so
        // that the write fails as it would have (EBADF): a twin opened for
        // writing would turn that error into silence.
        let writable = flags >= 0 && flags & O_ACCMODE != O_RDONLY
        if !writable || known && (type == S_IFREG || type == S_IFBLK) || flags & O_NONBLOCK != 0 {
            self.init(fd: fd)
        } else if known && type == S_IFSOCK {
            self.init(fd: fd, isSocket: true)
        } else if twin, let twinFD = Self.openTwin(of: fd) {
            self.init(fd: twinFD, ownsDescriptor: true)
        } else {
            self.init(fd: fd, waitsFirst: true)
        }
    }

    private static func openTwin(of fd: Int32) -> Int32? {
        var original = stat()
        guard fstat(fd, &original) == 0 else { return nil }
        let twin = open("/proc/self/fd/\(fd)", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard twin >= 0 else { return nil }
        var opened = stat()
        if fstat(twin, &opened) == 0 && opened.st_dev == original.st_dev && opened.st_ino == original.st_ino {
            return twin
        }
        Glibc.close(twin)
        return nil
    }

    /// One write(2) (send(2) for a socket) of at most `PIPE_BUF` bytes when
    /// the port waits first; returns what write returns.
    @inline(__always)
    func write(_ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        if isSocket { return send(fd, bytes, count, Int32(MSG_DONTWAIT)) }
        return Glibc.write(fd, bytes, waitsFirst ? min(count, Int(PIPE_BUF)) : count)
    }

    func close() {
        if ownsDescriptor { Glibc.close(fd) }
    }
}

// MARK: - Pipes

/// fcntl's commands for a pipe's capacity (Linux 2.6.35): Swift's Glibc
/// module leaves them out, as fcntl.h declares them only under _GNU_SOURCE.
/// F_LINUX_SPECIFIC_BASE (1024) + 7 and + 8.
private let setPipeSize: Int32 = 1031
private let getPipeSize: Int32 = 1032

/// Whether descriptors `a` and `b` lead to the same file, pipe or FIFO
/// (their device and inode), as `2>&1` makes stderr stdout's pipe.
func sameFile(_ a: Int32, _ b: Int32) -> Bool {
    var first = stat(), second = stat()
    guard fstat(a, &first) == 0, fstat(b, &second) == 0 else { return false }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
}

/// The capacity in bytes of the pipe or FIFO `fd` is an end of; nil for
/// any other descriptor (F_GETPIPE_SZ fails with EBADF there).
func pipeCapacity(_ fd: Int32) -> Int? {
    let size = fcntl(fd, getPipeSize)
    return size > 0 ? Int(size) : nil
}

/// Asks the kernel to make the pipe `fd` is an end of hold `bytes`; returns
/// its capacity after the call, or nil when the kernel refused (EPERM past
/// /proc/sys/fs/pipe-max-size or the user's pipe-user-pages limits, EBUSY
/// for a size below what the pipe holds). The capacity belongs to the pipe,
/// so its reader sees it too.
func setPipeCapacity(_ fd: Int32, _ bytes: Int) -> Int? {
    let size = fcntl(fd, setPipeSize, Int32(clamping: bytes))
    return size > 0 ? Int(size) : nil
}

// MARK: - Clocks and timers

/// The clock live mode acts on: monotonic and counting time the machine
/// spends suspended, so a window that ran out during a suspension is over
/// when it wakes (what Swift's ContinuousClock reads).
package let liveClockID = CLOCK_BOOTTIME

/// Nanoseconds on `clock` (CLOCK_REALTIME: since the Unix epoch).
func clockNanoseconds(_ clock: clockid_t) -> Instant {
    var now = timespec()
    clock_gettime(clock, &now)
    return Instant(nanoseconds: Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec))
}

/// Linux lets the timer of an ordinary thread expire up to 50 µs late (its
/// timer slack) so that wake-ups can be batched. pace's timers are its output,
/// so it asks for 1 ns instead: measured by Scripts/bench-live, this takes
/// about 50 µs off every delayed line. Best effort: an older kernel without
/// the file keeps the default.
func requestExactTimers() {
    let fd = open("/proc/self/timerslack_ns", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = write(fd, "1", 1)
    close(fd)
}
