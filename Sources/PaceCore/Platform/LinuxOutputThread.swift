// Replay's stdout into a pipe, written by a thread of its own (issue 25).
// Copying the lines that pass into the pipe's pages is the kernel's work in
// the thread that calls write(2): on the replay's thread it came on top of
// reading and deciding, one after the other, while `cat` at the other end
// copied them out. Here the replay fills a buffer and hands it over; the
// output thread writes it while the replay fills the next. The bytes, their
// order and the errors are those of the direct writes (FileSink.swift);
// only the thread that waits for the pipe changes. Only for a pipe of
// stdout's own (Replay.swift): a buffer left half written while the reader
// is slow must not get a message or a dropped line written into its middle.
//
// How it waits, within the signal design of Linux.swift:
// - The output thread blocks every signal, so the handlers always run on the
//   replay's thread. It waits for work on a condition variable and for the
//   pipe in poll(2), beside a pipe of its own that the replay writes to
//   stop it at once.
// - The replay waits for a free buffer, or for the last bytes to be written,
//   in ppoll on a notification pipe the output thread writes a byte to
//   when it frees a buffer while the replay waits: where SIGINT and SIGTERM
//   arrive, as in a direct write's wait. A first signal lets the writes go
//   on; a second one stops the thread and counts the lines not written.
// - An error (EPIPE, EIO, ENOSPC) stops the writing: the buffers still to
//   write are given back unwritten, as a direct write would never have
//   reached them, and the replay throws the error at its next hand-over.

import Glibc

/// The buffers of a FileSink whose writes go through a thread of their own.
/// Made only where that thread could be started (`start` returns nil
/// otherwise, and the sink writes directly).
final class OutputThread: @unchecked Sendable {
    // Set once; read by both threads.
    private let port: OutputPort
    private let target: String
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let work = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// The output thread writes a byte to `freed.write` when it gives a
    /// buffer back while the replay waits (`noticeWanted`); the replay
    /// waits for it on `freed.read`.
    private let freed: (read: Int32, write: Int32)
    /// The replay writes a byte to `stop.write` to stop a write at once.
    private let stop: (read: Int32, write: Int32)
    private var thread = pthread_t()
    /// Every buffer, for `deinit`.
    private let buffers: [UnsafeMutableRawPointer]

    // Under `lock`.
    /// Filled buffers with their byte counts, oldest first; the first is the
    /// one being written while `writing` is true.
    private var full = FIFO<(buffer: UnsafeMutableRawPointer, count: Int)>()
    private var spare: [UnsafeMutableRawPointer]
    private var writing = false
    /// How much of the first full buffer is written (read after the thread
    /// has stopped).
    private var written = 0
    private var failure: OutputError?
    private var stopping = false
    private var running = true
    /// The replay waits for a notice: the output thread sends one when it
    /// next gives a buffer back (and only then: a write per buffer cost
    /// the pipe's other end a wake-up it did not need).
    private var noticeWanted = false

    /// Starts an output thread for `port` with `count` buffers of
    /// `capacity` bytes; nil when the system refuses a pipe or a thread.
    static func start(port: OutputPort, target: String, capacity: Int, count: Int = 4) -> OutputThread? {
        guard let freed = nonBlockingPipe() else { return nil }
        guard let stop = nonBlockingPipe() else {
            close(freed.read); close(freed.write)
            return nil
        }
        let relay = OutputThread(port: port, target: target, capacity: capacity, count: count, freed: freed, stop: stop)
        guard relay.launch() else { return nil }
        return relay
    }

    private init(port: OutputPort, target: String, capacity: Int, count: Int,
                 freed: (read: Int32, write: Int32), stop: (read: Int32, write: Int32)) {
        self.port = port
        self.target = target
        self.freed = freed
        self.stop = stop
        buffers = (0..<count).map { _ in UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16) }
        spare = buffers
        pthread_mutex_init(lock, nil)
        pthread_cond_init(work, nil)
    }

    private func launch() -> Bool {
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Every signal stays with the replay's thread: the new thread starts
        // with all of them blocked (it inherits the mask of the moment).
        var all = sigset_t(), before = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &before)
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<OutputThread>.fromOpaque(context!).takeUnretainedValue().writeBuffers()
            return nil
        }, context)
        pthread_sigmask(SIG_SETMASK, &before, nil)
        if started != 0 { running = false }
        return started == 0
    }

    deinit {
        if running { halt() }
        for buffer in buffers { buffer.deallocate() }
        for fd in [freed.read, freed.write, stop.read, stop.write] { close(fd) }
        pthread_cond_destroy(work)
        pthread_mutex_destroy(lock)
        lock.deallocate()
        work.deallocate()
    }

    /// An empty buffer for the sink to fill first.
    func firstBuffer() -> UnsafeMutableRawPointer {
        locked { spare.removeLast() }
    }

    /// Queues `count` bytes of `buffer` to be written and returns an empty
    /// buffer, waiting for one if all are full. Throws a write's error, or
    /// `.interrupted` (a second SIGINT or SIGTERM while waiting: the thread
    /// stopped, with the lines it had not written).
    func pass(_ buffer: UnsafeMutableRawPointer, count: Int) throws(OutputError) -> UnsafeMutableRawPointer {
        lock.lock()
        if failure == nil {
            full.append((buffer, count))
            pthread_cond_signal(work)
        }
        while spare.isEmpty && failure == nil {
            lock.unlock()
            try awaitNotice { !self.spare.isEmpty || self.failure != nil }
            lock.lock()
        }
        if let failure {
            lock.unlock()
            throw failure
        }
        let next = spare.removeLast()
        lock.unlock()
        return next
    }

    /// Waits until every queued byte is written; throws as `pass` does.
    func drain() throws(OutputError) {
        guard running else { return }
        lock.lock()
        while !full.isEmpty && failure == nil {
            lock.unlock()
            try awaitNotice { self.full.isEmpty || self.failure != nil }
            lock.lock()
        }
        let failed = failure
        lock.unlock()
        if let failed { throw failed }
    }

    /// The sink's end: what was given is written (an error is its owner's to
    /// have reported), then the thread stops.
    func finish() {
        try? drain()
        if running { halt() }
    }

    /// Waits (in ppoll, where signals arrive) for the output thread's next
    /// notice, unless `done` holds already; a second terminating signal
    /// stops the thread and throws. The notices are taken before `done` is
    /// asked, so one sent after the question wakes the wait.
    private func awaitNotice(_ done: () -> Bool) throws(OutputError) {
        var byte: UInt8 = 0
        while read(freed.read, &byte, 1) > 0 {}
        if !Signals.endNow {
            // Asked and announced in one hold of the lock: a buffer freed
            // after it sees the wish and sends its notice.
            if locked({ if done() { return true }; noticeWanted = true; return false }) { return }
            if awaitReady(freed.read, events: Int16(POLLIN)) == .interrupted {
                _ = WriteWait.look(waitingOn: port.fd)
            }
        }
        if Signals.endNow {
            let unwritten = halt()
            // Nothing is written after this; a later hand-over says so.
            locked { failure = .interrupted(linesNotWritten: 0) }
            throw .interrupted(linesNotWritten: unwritten)
        }
    }

    /// Stops the thread at once and waits for it; returns the lines it had
    /// not written (a line partly written counts as not written).
    @discardableResult
    private func halt() -> Int64 {
        locked { stopping = true; pthread_cond_signal(work) }
        var byte: UInt8 = 1
        _ = write(stop.write, &byte, 1)
        pthread_join(thread, nil)
        running = false
        return locked {
            var lines: Int64 = 0
            full.withWaiting { waiting in
                for (k, item) in waiting.enumerated() {
                    let from = k == 0 && writing ? written : 0
                    lines += newlines(in: UnsafeRawBufferPointer(start: item.buffer, count: item.count), from: from)
                }
            }
            return lines
        }
    }

    // MARK: The output thread

    private func writeBuffers() {
        lock.lock()
        while true {
            while full.isEmpty && !stopping { pthread_cond_wait(work, lock) }
            if stopping { break }
            let (buffer, count) = full.first!
            writing = true
            written = 0
            lock.unlock()
            // writeAll's loop, waiting in poll(2) beside the stop pipe.
            let (done, error) = writeOut(port, UnsafeRawBufferPointer(start: buffer, count: count), target: target,
                                         wait: awaitWritableOrStop)
            lock.lock()
            written = done
            if error == nil && done < count { break }  // stopped
            writing = false
            _ = full.removeFirst()
            spare.append(buffer)
            if let error {
                failure = error
                // What a direct write would never have reached.
                while !full.isEmpty { spare.append(full.removeFirst().buffer) }
            }
            if noticeWanted {
                noticeWanted = false
                var byte: UInt8 = 1
                _ = write(freed.write, &byte, 1)
            }
        }
        lock.unlock()
    }

    /// Waits for the port to take bytes; false when the replay stops the
    /// thread first.
    private func awaitWritableOrStop() -> Bool {
        var entries = [pollfd(fd: port.fd, events: Int16(POLLOUT), revents: 0),
                       pollfd(fd: stop.read, events: Int16(POLLIN), revents: 0)]
        while true {
            let result = poll(&entries, 2, -1)
            if result < 0 && errno == EINTR { continue }
            if entries[1].revents != 0 { return false }
            return true
        }
    }

    @inline(__always)
    private func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

private extension UnsafeMutablePointer where Pointee == pthread_mutex_t {
    func lock() { pthread_mutex_lock(self) }
    func unlock() { pthread_mutex_unlock(self) }
}

/// A pipe with both ends non-blocking and closed on exec.
private func nonBlockingPipe() -> (read: Int32, write: Int32)? {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return nil }
    for fd in ends {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    return (ends[0], ends[1])
}
