// --metrics FILE while pace runs, end to end: a live run's file is there from
// the start and follows the run, rewritten a second apart at least however
// the run stalls; a replay waiting for input keeps it up to date; a FIFO gets
// each snapshot, and is never waited on.

import Foundation
import Glibc
import Testing

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// The times a file was written whole (replaced: a new inode, or a new
/// mtime, not empty), as the kernel stamped them, seen by a thread that
/// looks all the time.
private final class RewriteStamps: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var seen: [timespec] = []
    private var watching = true
    private var thread: Thread?

    init(_ path: String) { self.path = path }

    var stamps: [timespec] { lock.withLock { seen } }

    func start() {
        let thread = Thread { [self] in
            var last: (ino_t, Int, Int)?
            while lock.withLock({ watching }) {
                var info = stat()
                // The empty file made at the start is no rewrite.
                guard stat(path, &info) == 0, info.st_size > 0 else { continue }
                let now = (info.st_ino, info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
                if last.map({ $0 != now }) ?? true {
                    last = now
                    lock.withLock { seen.append(info.st_mtim) }
                }
            }
        }
        self.thread = thread
        thread.start()
    }

    func stop() { lock.withLock { watching = false } }
}

extension MetricsTests {
    @Test("live: the file is there from the start and follows the run while it goes on, then holds the end")
    func liveFollows() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        let pace = try PipedPace(["--debounce", "1h", "--metrics", path])
        func value(_ name: String) -> String? {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) }
        }
        // Before any line: a whole file of zeros.
        #expect(waitUntil { value("pace_lines_read_total") == "0" })
        #expect(value("pace_start_time_seconds") != nil)
        pace.write("a\n")
        // One line read, pending under the debounce: read, not yet decided.
        #expect(waitUntil { value("pace_lines_read_total") == "1" })
        #expect(value("pace_lines_pending") == "1" && value("pace_lines_emitted_total") == "0")
        #expect(value("pace_keys_active") == "1")
        pace.write("b\n")
        // The next rewrite comes a second after the last at most, with both.
        #expect(waitUntil { value("pace_lines_read_total") == "2" })
        #expect(value("pace_lines_pending") == "1" && value("pace_lines_discarded_total") == "1")
        let (output, errors, status) = pace.finish()
        #expect(output == bytes("b\n") && errors == "" && status == 0)
        #expect(value("pace_lines_emitted_total") == "1" && value("pace_lines_pending") == "0")
        // Only the file itself is left: no temporary file behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: String(decoding: dir.path, as: UTF8.self)) == ["m.prom"])
    }

    @Test("live: a second at least between two rewrites, though stdout stalled the run after a read")
    func liveRewritesASecondApart() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        var options = PipedPace.Options()
        options.stdinPipeSize = 1 << 20
        // A key a line: each passes.
        let pace = try PipedPace(["--throttle", "1h", "--key-field", "2", "--metrics", path], options)
        // Every rewrite's time, as the kernel stamped the new file.
        let watcher = RewriteStamps(path)
        watcher.start()
        func seconds(_ t: timespec) -> Double { Double(t.tv_sec) + Double(t.tv_nsec) / 1e9 }
        func realNow() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_REALTIME, &t)
            return seconds(t)
        }
        func lastStamp() -> Double? { watcher.stamps.last.map(seconds) }
        #expect(waitUntil { lastStamp() != nil })
        // A read more than a second after the first write; its lines fill
        // stdout, which stalls the run for a while after that read.
        #expect(waitUntil { realNow() - (lastStamp() ?? realNow()) > 1.05 })
        let burst = (0..<2_000).map { "line \($0) " + String(repeating: "x", count: 90) + "\n" }.joined()
        pace.write(burst)
        #expect(pace.waitUntilBlockedWriting() != nil)
        let stalled = realNow()
        #expect(waitUntil { realNow() - stalled > 0.6 })
        // The run goes on; then lines now and then, each a change to show.
        var received = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        func drain() {
            var entry = pollfd(fd: pace.output, events: Int16(POLLIN), revents: 0)
            while poll(&entry, 1, 0) > 0 {
                let n = read(pace.output, &chunk, chunk.count)
                if n <= 0 { return }
                received += chunk[..<n].count { $0 == 0x0A }
            }
        }
        #expect(waitUntil { drain(); return received == 2_000 })
        for k in 0..<6 {
            pace.write("more m\(k)\n")
            #expect(waitUntil { drain(); return received == 2_001 + k })
            let written = watcher.stamps.count
            _ = waitUntil(timeout: 0.4) { watcher.stamps.count > written }
        }
        let end = pace.finish()
        #expect(end.status == 0)
        watcher.stop()
        // The last write, at exit, may come at any time.
        let times = watcher.stamps.map(seconds).dropLast()
        // The kernel's file times are coarse (a tick): 10 ms of slack.
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(times.count >= 3)
        #expect(gaps.allSatisfy { $0 >= 0.99 }, "rewrites \(gaps) s apart")
    }

    @Test("replay waiting on a slow pipe: the file follows what was read, without more input")
    func replayFollowsWhileWaiting() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        let pace = try PipedPace(["--throttle", "1h", "--replay", "--time-format", "unix", "--metrics", path])
        func value(_ name: String) -> String? {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) }
        }
        #expect(waitUntil { value("pace_lines_read_total") == "0" })
        // Within a second of the first write: the rewrite is due while the
        // replay waits for its next line, which does not come.
        pace.write("1 a\n2 b\n")
        #expect(waitUntil { value("pace_lines_read_total") == "2" })
        #expect(value("pace_lines_emitted_total") == "1" && value("pace_lines_discarded_total") == "1")
        let (output, errors, status) = pace.finish()
        #expect(output == bytes("1 a\n") && errors == "" && status == 0)
    }

    @Test("a FIFO as --metrics FILE is never waited on: without a reader, or full, the run goes on; a reader that has it open gets each snapshot, the last at exit")
    func fifo() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = String(decoding: dir.file(bytes("m.fifo")), as: UTF8.self)
        #expect(mkfifo(path, 0o600) == 0)
        let alone = try PipedPace(["--throttle", "1s", "--metrics", path])
        alone.write("a\nb\n")
        let (output, errors, status) = alone.finish(timeout: 10)
        #expect(output == bytes("a\n") && errors == "" && status == 0)

        let reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(reader >= 0)
        defer { close(reader) }
        let watched = try PipedPace(["--throttle", "1s", "--metrics", path])
        watched.write("a\nb\n")
        let end = watched.finish(timeout: 10)
        #expect(end.output == bytes("a\n") && end.errors == "" && end.status == 0)
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let n = read(reader, &chunk, chunk.count), n > 0 { text += chunk[..<n] }
        let snapshots = String(decoding: text, as: UTF8.self)
        // The first snapshot, at the start, and the last, at exit.
        #expect(snapshots.hasPrefix("# HELP pace_lines_read_total "))
        #expect(snapshots.contains("\npace_lines_read_total 0\n") && snapshots.contains("\npace_lines_read_total 2\n"))
        var info = stat()
        #expect(stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)

        // A reader that has the FIFO open but does not read, and it is full:
        // each snapshot is skipped, the run goes on.
        let filler = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(filler >= 0)
        defer { close(filler) }
        _ = fcntl(filler, 1031 /* F_SETPIPE_SZ */, 4096)
        let fill = [UInt8](repeating: 0x23, count: 65536)
        while write(filler, fill, fill.count) > 0 {}
        #expect(errno == EAGAIN)
        let stalled = try PipedPace(["--throttle", "1s", "--metrics", path])
        stalled.write("a\nb\n")
        let last = stalled.finish(timeout: 10)
        #expect(last.output == bytes("a\n") && last.errors == "" && last.status == 0)
    }
}
