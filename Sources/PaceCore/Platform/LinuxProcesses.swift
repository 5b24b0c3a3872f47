// The operating-system calls `--exec` makes: process creation and exit
// notification, signals to children, their stdin pipes. Linux.swift's
// sibling (that file holds signals, the wait and the clocks, which these use:
// the runner waits in its `platformPoll`); nothing outside Commands/ calls
// these.
//
// How pace learns that a command exited, without polling: each child gets a
// pidfd (pidfd_open(2), Linux 5.3), which becomes readable when the child
// exits, and every pidfd sits in one epoll set, with the write ends of the
// children's stdin pipes that still have bytes to take. The epoll descriptor
// itself is readable whenever any of them is ready, so live mode's one wait
// watches a single descriptor whatever the number of children, and no signal
// handler (SIGCHLD) is involved: nothing interrupts pace's other system
// calls, and no signal mask has to be kept right.
//
// Swift's Glibc module leaves out what glibc declares only under _GNU_SOURCE
// or in Linux-specific headers (epoll, pidfd_open, pipe2), so those are found
// at run time with dlsym and called through `@convention(c)` pointers, as
// Linux.swift does for ppoll.

import Glibc

enum ProcessPlatform {
    // MARK: - Functions found at run time

    private static func function<T>(_ name: String, as type: T.Type) -> T? {
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    private typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    private typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    /// syscall(2) with two arguments, for a glibc older than pidfd_open's
    /// wrapper (2.36). A variadic function called with integer arguments only
    /// takes them in the same registers on Linux's ABIs.
    private typealias Syscall2 = @convention(c) (Int, Int, Int) -> Int
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

    private static let epollCreate1 = function("epoll_create1", as: EpollCreate1.self)!
    private static let epollCtl = function("epoll_ctl", as: EpollCtl.self)!
    private static let epollWait = function("epoll_wait", as: EpollWait.self)!
    private static let pidfdOpenFunction = function("pidfd_open", as: PidfdOpen.self)
    private static let syscall2 = function("syscall", as: Syscall2.self)!
    private static let pipe2Function = function("pipe2", as: Pipe2.self)!

    /// <sys/epoll.h>'s values, the same on every Linux architecture.
    private static let epollCloexec: Int32 = 0o2000000
    private static let epollCtlAdd: Int32 = 1
    private static let epollCtlDel: Int32 = 2
    static let epollIn: UInt32 = 0x001
    static let epollOut: UInt32 = 0x004
    static let epollErr: UInt32 = 0x008
    static let epollHup: UInt32 = 0x010
    /// pidfd_open's number, shared by all architectures since Linux 5.3.
    private static let pidfdOpenSyscall = 434

    // MARK: - epoll

    /// `struct epoll_event`: packed (12 bytes) on x86-64, naturally aligned
    /// (16) elsewhere.
    #if arch(x86_64)
    static let epollEventSize = 12
    private static let epollDataOffset = 4
    #else
    static let epollEventSize = 16
    private static let epollDataOffset = 8
    #endif

    static func epollCreate() -> Int32 { epollCreate1(epollCloexec) }

    static func epollAdd(_ epoll: Int32, fd: Int32, events: UInt32, tag: UInt64) -> Int32 {
        withUnsafeTemporaryAllocation(byteCount: epollEventSize, alignment: 8) { raw in
            raw.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: tag, toByteOffset: epollDataOffset, as: UInt64.self)
            return epollCtl(epoll, epollCtlAdd, fd, raw.baseAddress)
        }
    }

    static func epollRemove(_ epoll: Int32, fd: Int32) {
        withUnsafeTemporaryAllocation(byteCount: epollEventSize, alignment: 8) { raw in
            _ = epollCtl(epoll, epollCtlDel, fd, raw.baseAddress)
        }
    }

    /// The ready descriptors' (events, tag), without blocking.
    static func epollReady(_ epoll: Int32, into ready: inout [(events: UInt32, tag: UInt64)]) {
        let capacity = 32
        withUnsafeTemporaryAllocation(byteCount: epollEventSize * capacity, alignment: 8) { raw in
            while true {
                let n = epollWait(epoll, raw.baseAddress, Int32(capacity), 0)
                if n < 0 && errno == EINTR { continue }
                for i in 0..<max(0, Int(n)) {
                    let base = i * epollEventSize
                    ready.append((raw.load(fromByteOffset: base, as: UInt32.self),
                                  raw.loadUnaligned(fromByteOffset: base + epollDataOffset, as: UInt64.self)))
                }
                return
            }
        }
    }

    // MARK: - Processes

    /// A descriptor that becomes readable when `pid` exits, or -errno.
    static func pidfdOpen(_ pid: pid_t) -> Int32 {
        let fd: Int32
        if let pidfdOpenFunction {
            fd = pidfdOpenFunction(pid, 0)
        } else {
            fd = Int32(truncatingIfNeeded: syscall2(pidfdOpenSyscall, Int(pid), 0))
        }
        return fd >= 0 ? fd : -errno
    }

    /// waitpid(pid, WNOHANG): the status if `pid` has exited, else nil.
    static func reap(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while true {
            let n = waitpid(pid, &status, WNOHANG)
            if n == pid { return status }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// waitpid(pid) blocking: for a child whose pidfd could not be opened,
    /// so it must not be left a zombie.
    static func reapBlocking(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Sends `signal` to every process of the group `group` (a command's
    /// shell's pid: each command leads a group of its own).
    static func signalGroup(_ group: pid_t, _ signal: Int32) { _ = kill(-group, signal) }

    /// Whether no live process is left in the group `group`.
    ///
    /// kill(-group, 0) fails with ESRCH once the group has no process at
    /// all: the fast answer, and the usual one. But a process that died
    /// after its parent is a zombie until init reaps it, and counts for
    /// kill; under an init that never reaps (some containers run one), the
    /// zombies of a SIGTERMed `make`'s compilers would keep its group alive
    /// until its SIGKILL. So when kill finds the group, /proc says whether
    /// any of its processes still runs: the group is empty when every one
    /// found there is a zombie. A group kill finds and /proc does not show
    /// (a /proc mounted with hidepid) is taken as not empty.
    static func groupIsEmpty(_ group: pid_t) -> Bool {
        if kill(-group, 0) == -1 && errno == ESRCH { return true }
        guard let proc = opendir("/proc") else { return false }
        defer { closedir(proc) }
        var sawMember = false
        while let entry = readdir(proc) {
            let pid = withUnsafeBytes(of: entry.pointee.d_name) { name -> pid_t? in
                var value: pid_t = 0
                for byte in name {
                    if byte == 0 { break }
                    guard byte >= 0x30 && byte <= 0x39 else { return nil }
                    value = value &* 10 &+ pid_t(byte - 0x30)
                }
                return value
            }
            guard let pid, pid > 0, let (state, processGroup) = stateAndGroup(of: pid), processGroup == group else {
                continue
            }
            // Z: a zombie; X: dead, being reaped.
            if state != UInt8(ascii: "Z") && state != UInt8(ascii: "X") { return false }
            sawMember = true
        }
        return sawMember
    }

    /// Fields 3 (state) and 5 (process group) of /proc/PID/stat. The
    /// command name (field 2) is in parentheses and may hold any byte, so
    /// the fields are counted from the last `)`.
    private static func stateAndGroup(of pid: pid_t) -> (state: UInt8, group: pid_t)? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { buffer in
            let n = read(fd, buffer.baseAddress, buffer.count)
            guard n > 0, let close = buffer[..<n].lastIndex(of: UInt8(ascii: ")")) else { return nil }
            // ") S ppid pgrp ..."
            let fields = buffer[(close + 1)..<n].split(separator: UInt8(ascii: " "))
            guard fields.count >= 3, let state = fields[0].first else { return nil }
            var group: pid_t = 0
            for byte in fields[2] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                group = group &* 10 &+ pid_t(byte - 0x30)
            }
            return (state, group)
        }
    }

    /// A command's fate from its wait status.
    static func exitStatus(_ status: Int32) -> CommandExit {
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        let low = status & 0x7f
        if low == 0 { return .exited((status >> 8) & 0xff) }
        return .signalled(low)
    }

    /// SIGCHLD ignored (a parent may start pace so) would make the kernel
    /// reap children itself and hide their statuses: pace needs the default.
    static func restoreChildSignal() { Glibc.signal(SIGCHLD, SIG_DFL) }

    // MARK: - Pipes

    /// A pipe whose ends are close-on-exec (so no other child inherits them),
    /// the write end non-blocking: (read, write), or -errno in both.
    static func stdinPipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        if pipe2Function(&fds, O_CLOEXEC) != 0 { return (-errno, -errno) }
        let flags = fcntl(fds[1], F_GETFL)
        _ = fcntl(fds[1], F_SETFL, flags | O_NONBLOCK)
        return (fds[0], fds[1])
    }

    /// What one write(2) of `bytes` to a non-blocking pipe did.
    enum WriteResult {
        case wrote(Int)
        /// The pipe is full: wait until it is writable.
        case full
        /// The reader is gone (EPIPE) or the write failed: stop writing.
        case closed
    }

    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> WriteResult {
        while true {
            let n = Glibc.write(fd, bytes.baseAddress, bytes.count)
            if n >= 0 { return .wrote(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN: return .full
            default: return .closed  // EPIPE: SIGPIPE is ignored by pace (see CommandRunner)
            }
        }
    }

    // MARK: - The clock and the wait

    /// The clock kill deadlines are on: live mode's (CLOCK_BOOTTIME), so
    /// its wait can watch them with its own timers.
    static func monotonicNow() -> Instant { clockNanoseconds(liveClockID) }

    /// Waits until `fd` is readable, the monotonic clock reaches `deadline`
    /// (never if nil), or a handled signal arrives (see `Signals`: one that
    /// came before the call interrupts it).
    static func waitReadable(_ fd: Int32, until deadline: Instant?) {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let timeout = deadline.map { max(.zero, $0.saturatingDistance(from: monotonicNow())) }
        _ = withUnsafeMutablePointer(to: &entry) {
            platformPoll(UnsafeMutableBufferPointer(start: $0, count: 1), timeout: timeout)
        }
    }
}

/// How a command ended.
package enum CommandExit: Equatable, Sendable {
    case exited(Int32)
    case signalled(Int32)
}
