// `--state`'s calls to the system: the lock beside the file, reading it
// whole, replacing it atomically, and the thread a periodic save runs on.
//
// The replacement is the classic one: the new state goes into `FILE.tmp` in
// FILE's directory, is fsynced, and is renamed over FILE; then the directory
// is fsynced, so the rename itself survives a crash. A reader (or a pace
// started after a kill -9) sees the old state or the new one, never a mix.
// `FILE.tmp` needs no unique name: the lock keeps every other pace away.
// It is always a new file: a link or FIFO at that name is never followed.

import Glibc
import Synchronization

enum StateFiles {
    /// A file name as the C string open(2) takes.
    static func cPath(_ path: [UInt8]) -> [CChar] { path.map { CChar(bitPattern: $0) } + [0] }

    /// The directory part of `path` (`.` for a bare name).
    static func directory(of path: [UInt8]) -> [UInt8] {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return [UInt8(ascii: ".")] }
        return slash == 0 ? [UInt8(ascii: "/")] : Array(path[..<slash])
    }

    /// `path` with the symbolic links at its end followed (40 at most, as
    /// the kernel does): a save replaces the file a link names and keeps
    /// the link, and every such name of one file has one lock. A dangling
    /// link's target is where the file will be.
    static func followingLinks(_ path: [UInt8]) -> [UInt8] {
        var current = path
        var target = [CChar](repeating: 0, count: Int(PATH_MAX))
        for _ in 0..<40 {
            // Not a link (EINVAL), or nothing there: this is the file.
            let count = readlink(cPath(current), &target, target.count)
            guard count > 0 else { return current }
            let bytes = target[..<count].map { UInt8(bitPattern: $0) }
            current = bytes.first == UInt8(ascii: "/") ? bytes : directory(of: current) + [UInt8(ascii: "/")] + bytes
        }
        return current
    }

    /// Whether pace may create files in `path`'s directory; the errno if not
    /// (ENOTDIR for a file there, which access(2) would call unwritable).
    static func directoryProblem(_ path: [UInt8]) -> Int32? {
        let directory = cPath(directory(of: path))
        var info = stat()
        if stat(directory, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR { return ENOTDIR }
        return access(directory, W_OK | X_OK) == 0 ? nil : errno
    }

    /// What is at `path`, when it cannot be a state file: a directory (no
    /// state can be kept there), something that is not a regular file (a
    /// FIFO, a device: never read), or nothing pace can reach (a loop of
    /// links). Nil for a regular file or none.
    static func fileProblem(at path: [UInt8]) -> StateFileKind? {
        var info = stat()
        guard stat(cPath(path), &info) == 0 else { return errno == ENOENT ? nil : .unreachable(errno) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return .directory(EISDIR)
        default: return .notRegular
        }
    }

    /// Opens (creating it) and locks `lockPath`; the descriptor stays open,
    /// and the lock held, for the whole run. EWOULDBLOCK: another holds it.
    static func lock(_ lockPath: [UInt8]) -> Result<Int32, Errno> {
        let fd = open(cPath(lockPath), O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        if fd < 0 { return .failure(Errno(errno)) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            close(fd)
            return .failure(Errno(code))
        }
        return .success(fd)
    }

    /// Whether lock's failure `code` is the lock's own name's (a directory
    /// there, a file pace may not open), the directory being writable.
    static func isTheLock(_ code: Int32) -> Bool { code == EISDIR || code == EACCES }

    /// lock's failure when another process holds the lock.
    static var lockHeld: Int32 { EWOULDBLOCK }

    /// Closes the lock's descriptor, which releases the lock.
    static func unlock(_ fd: Int32) { close(fd) }

    /// CPU time this thread has used, for `PACE_STATE_TIMING`.
    static func threadCPUTime() -> Instant { clockNanoseconds(CLOCK_THREAD_CPUTIME_ID) }

    /// The monotonic clock, for `PACE_STATE_TIMING`.
    static func monotonicNow() -> Instant { clockNanoseconds(CLOCK_MONOTONIC) }

    /// Writes `text` to stderr whole, for `PACE_STATE_TIMING`.
    static func report(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var at = 0
            while at < bytes.count {
                let n = write(2, bytes.baseAddress! + at, bytes.count - at)
                if n <= 0 { return }
                at += n
            }
        }
    }

    /// An errno in words.
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The whole file, or nil when there is none. Anything but a regular
    /// file reads as empty, so it is not a pace state: it is not read (a
    /// FIFO would wait for a writer, /dev/zero never end), and O_NONBLOCK
    /// keeps the open of a FIFO from waiting.
    static func read(_ path: [UInt8]) -> Result<[UInt8]?, Errno> {
        let fd = open(cPath(path), O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 { return errno == ENOENT ? .success(nil) : .failure(Errno(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(Errno(errno)) }
        if (info.st_mode & S_IFMT) == S_IFDIR { return .failure(Errno(EISDIR)) }
        if (info.st_mode & S_IFMT) != S_IFREG { return .success([]) }
        var bytes = [UInt8](repeating: 0, count: max(Int(info.st_size), 0) + 1)
        var used = 0
        while true {
            if used == bytes.count { bytes.append(contentsOf: [UInt8](repeating: 0, count: bytes.count)) }
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + used, $0.count - used) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(Errno(errno))
            }
            if n == 0 { break }
            used += n
        }
        bytes.removeLast(bytes.count - used)
        return .success(bytes)
    }

    /// The identity of the regular file at `path`, if there is one.
    static func identity(_ path: [UInt8]) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(cPath(path), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Puts `bytes` in place of `path`'s content atomically; the errno of
    /// the first failure, when FILE keeps what it held.
    static func replace(_ path: [UInt8], with bytes: [UInt8]) -> Int32? {
        let temporary = cPath(path + Array(".tmp".utf8))
        // A new file (SPEC): whatever is at FILE.tmp, a file a crash left or
        // a link or FIFO someone put there, is removed, and the open neither
        // follows nor reuses anything that appears in between.
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        if fd < 0 { return errno }
        func fail(_ code: Int32) -> Int32 {
            close(fd)
            unlink(temporary)
            return code
        }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                return fail(errno)
            }
            written += n
        }
        if fsync(fd) != 0 { return fail(errno) }
        if close(fd) != 0 {
            let code = errno
            unlink(temporary)
            return code
        }
        if rename(temporary, cPath(path)) != 0 {
            let code = errno
            unlink(temporary)
            return code
        }
        let directory = open(cPath(directory(of: path)), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
        return nil
    }
}

/// An errno, as a failure's value.
struct Errno: Error, Equatable {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}

// MARK: - The save thread

/// One periodic save, on a thread of its own: the loop hands it the work
/// and asks later, without waiting, whether it is done.
final class BackgroundWork: @unchecked Sendable {
    private let work: () -> Int32?
    /// The work's result, read once the thread has been joined.
    private var result: Int32?
    /// Set by the thread once `result` is written.
    private let done = Atomic<Bool>(false)
    private var thread = pthread_t()

    /// Starts `work` at once (it returns an errno, or nil); nil when no
    /// thread could be made, and `work` has then run here, done.
    static func start(_ work: @escaping () -> Int32?) -> (BackgroundWork?, Int32?) {
        let job = BackgroundWork(work)
        let context = Unmanaged.passRetained(job).toOpaque()
        let started = pthread_create(&job.thread, nil, { context in
            let job = Unmanaged<BackgroundWork>.fromOpaque(context!).takeRetainedValue()
            job.result = job.work()
            job.done.store(true, ordering: .releasing)
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<BackgroundWork>.fromOpaque(context).release()
            return (nil, work())
        }
        return (job, nil)
    }

    private init(_ work: @escaping () -> Int32?) { self.work = work }

    /// The result when the work is done (the thread joined), else nil.
    func poll() -> Int32?? {
        guard done.load(ordering: .acquiring) else { return nil }
        pthread_join(thread, nil)
        return .some(result)
    }

    /// Waits for the work to be done; its result.
    func wait() -> Int32? {
        pthread_join(thread, nil)
        return result
    }
}
