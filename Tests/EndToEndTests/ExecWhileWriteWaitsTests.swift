// `--exec`'s commands while a write of pace's waits for a reader that has
// stopped reading (SPEC: a signal is acted on promptly even then): a
// `--dropped` FIFO nobody reads, filled with the lines a throttle discards.
// The first SIGTERM reaches the running command, and `--kill-after`'s
// SIGKILL (shutdown's, or `restart`'s with no signal to pace at all) goes on
// time, while pace still waits to write. Synchronised on files the commands
// write, the FIFO filling and pace asleep; a command's state is read from
// /proc (a shell pace has not reaped yet is a zombie once killed).

import Foundation
import Glibc
import Testing

/// Whether `pid` is a zombie: dead, its parent (pace) not having reaped it.
private func isZombie(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
}

/// `count` lines of 60 bytes: more than a FIFO holds, once discarded.
private func flood(_ count: Int) -> String {
    (0..<count).map { "flood \($0) " + String(repeating: "x", count: 59 - "flood \($0) ".utf8.count) + "\n" }.joined()
}

@Suite("--exec while a write waits for its reader, end to end", .serialized)
struct ExecWhileWriteWaitsTests {
    /// A command that writes its pid (whole: moved into place) once its trap
    /// is set and its `sleep` started (a SIGTERM to its group then reaches
    /// both), then says in `got` that SIGTERM came and exits 0.
    private func reportsTerm(_ dir: String) -> String {
        "trap 'echo > \(dir)/got.tmp; mv \(dir)/got.tmp \(dir)/got; exit 0' TERM; sleep 300 & "
            + "echo $$ > \(dir)/pid.tmp; mv \(dir)/pid.tmp \(dir)/pid; wait"
    }

    /// A command that writes its pid and ignores SIGTERM.
    private func ignoresTerm(_ dir: String) -> String {
        "echo $$ > \(dir)/pid.tmp; mv \(dir)/pid.tmp \(dir)/pid; trap '' TERM; exec sleep 300"
    }

    /// pace with `arguments` (stdin a 1 MiB pipe): `first` is written, its
    /// command starts (its pid file), then `rest`, and pace waits to write
    /// to the full pipe or FIFO `reader` reads (stderr's when nil), asleep.
    private func stalledPace(_ arguments: [String], _ scratch: FifoScratch, then rest: String,
                             stalledOn reader: Int32? = nil) throws -> PipedPace {
        var options = PipedPace.Options()
        options.stdinPipeSize = 1 << 20
        let pace = try PipedPace(arguments, options)
        pace.write("first\n")
        #expect(waitUntil { scratch.pid("pid") != nil })
        pace.write(rest)
        #expect(pace.waitUntilBlockedWriting(holding: 60_000, to: reader ?? pace.errors) != nil)
        #expect(pace.waitUntilAsleep())
        return pace
    }

    @Test("live: the first SIGTERM reaches the running command while --dropped's FIFO is full")
    func firstSignalReachesCommand() throws {
        let scratch = FifoScratch("pace-exec-wait-term")
        let reader = scratch.fifoReader("d")
        // Every line after the first is the throttle's to discard, into the FIFO.
        let pace = try stalledPace(["--throttle", "1h", "--exec", reportsTerm(scratch.path), "--dropped", scratch.path + "/d"],
                                   scratch, then: flood(1_500), stalledOn: reader)
        #expect(pace.send(SIGTERM))
        #expect(waitUntil { scratch.exists("got") })
        // pace still waits to write: nothing was read from the FIFO.
        #expect(pace.process.isRunning && PipedPace.bytesWaiting(in: reader) >= 60_000)
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        // The command ended as asked: no failure is reported.
        #expect(!end.errors.contains("command"))
    }

    @Test("live: after the first SIGTERM the write goes on once read: --dropped gets its lines in order, exit 143")
    func writeGoesOnAfterFirstSignal() throws {
        let scratch = FifoScratch("pace-exec-wait-read")
        let reader = scratch.fifoReader("d")
        let lines = flood(1_500)
        let pace = try stalledPace(["--throttle", "1h", "--exec", reportsTerm(scratch.path), "--dropped", scratch.path + "/d"],
                                   scratch, then: lines, stalledOn: reader)
        #expect(pace.send(SIGTERM))
        #expect(waitUntil { scratch.exists("got") })
        // Now the FIFO is read to its end (pace's exit closes it).
        let got = readToEnd(reader)
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        #expect(end.errors == "")
        // The lines discarded before the signal ended input, in order.
        #expect(got.count >= 60_000 && Array(lines.utf8).starts(with: got) && got.last == 0x0A)
    }

    @Test("live: the first SIGTERM reaches the running command while stderr is full (--trace)")
    func firstSignalWhileStderrWaits() throws {
        let scratch = FifoScratch("pace-exec-wait-stderr")
        // Each discarded line is traced: stderr, which nobody reads, fills.
        let pace = try stalledPace(["--throttle", "1h", "--trace", "--exec", reportsTerm(scratch.path)], scratch,
                                   then: flood(1_500))
        #expect(pace.send(SIGTERM))
        #expect(waitUntil { scratch.exists("got") })
        #expect(pace.process.isRunning && PipedPace.bytesWaiting(in: pace.errors) >= 60_000)
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
    }

    @Test("live: the lines waiting at the first SIGTERM reach --dropped, in order, once the stalled stderr is read")
    func waitingLinesAfterTheWrite() throws {
        let scratch = FifoScratch("pace-exec-wait-queue")
        let dir = scratch.path
        // Every line passes the limit; the first runs, the others wait for
        // it; the trace of each fills stderr, which nobody reads.
        let lines = flood(1_500)
        let pace = try stalledPace(["--limit", "1000000/1s", "--trace", "--exec", reportsTerm(dir), "--dropped", dir + "/d"],
                                   scratch, then: lines)
        #expect(pace.send(SIGTERM))
        #expect(waitUntil { scratch.exists("got") })
        // Nothing went to --dropped while stderr was full.
        #expect(FileManager.default.contents(atPath: dir + "/d") == Data())
        // stderr read to its end, as pace goes on.
        let errors = readToEnd(pace.errors)
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        // The waiting lines, then those read after them, never run: the
        // flood's first lines, in order, each once.
        let dropped = (try? String(contentsOfFile: dir + "/d", encoding: .utf8)) ?? ""
        let expected = lines.split(separator: "\n").prefix(dropped.split(separator: "\n").count)
        #expect(dropped.split(separator: "\n").count > 100)
        #expect(dropped == expected.map { $0 + "\n" }.joined())
        let trace = String(decoding: errors, as: UTF8.self).split(separator: "\n")
        #expect(trace.filter { $0 == "pace: trace: line 1: command sent SIGTERM: pace is stopping" }.count == 1)
        #expect(trace.filter { $0.hasSuffix(": not run: pace is stopping") }.count == dropped.split(separator: "\n").count)
    }

    @Test("live, --emit-time: the lines a SIGTERM that came while stderr was full leaves unrun reach --dropped stamped when pace saw it")
    func waitingLinesStampedAtTheSignal() throws {
        let scratch = FifoScratch("pace-exec-wait-stamp")
        let dir = scratch.path
        let pace = try stalledPace(["--limit", "1000000/1s", "--trace", "--emit-time", "--exec", reportsTerm(dir),
                                    "--dropped", dir + "/d"], scratch, then: flood(1_500))
        // Every line was read before this instant; pace sees the signal after it.
        let signalled = Date().timeIntervalSince1970
        #expect(pace.send(SIGTERM))
        #expect(waitUntil { scratch.exists("got") })
        // The command had its SIGTERM, sent once pace saw the signal, before this.
        let stopped = Date().timeIntervalSince1970
        _ = readToEnd(pace.errors)
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        // The first line waiting then, with its discard time.
        let dropped = ((try? String(contentsOfFile: dir + "/d", encoding: .utf8)) ?? "").split(separator: "\n")
        let fields = dropped.first?.split(separator: "\t", maxSplits: 1)
        #expect(fields?.last?.hasPrefix("flood 0 ") == true)
        let stamp = fields.flatMap { Double($0[0]) } ?? 0
        #expect(stamp >= signalled && stamp <= stopped, "stamped \(stamp), signalled at \(signalled), stopped by \(stopped)")
        // The lines read before the signal and handed over after the write,
        // not run either, are discarded at it too: no stamp goes back.
        let stamps = dropped.map { Double($0.prefix { $0 != "\t" }) ?? 0 }
        #expect(dropped.count > 100 && stamps.allSatisfy { $0 >= signalled })
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test("live: a SIGTERM while pace is idle and stderr already full reaches every command at once (--trace)")
    func signalWhileIdleWithStderrFull() throws {
        let scratch = FifoScratch("pace-exec-idle-full")
        let dir = scratch.path
        // stderr is a FIFO the test reads and can fill.
        let reader = scratch.fifoReader("err")
        let command = "trap 'echo > \(dir)/got-$PACE_KEY; exit 0' TERM; sleep 300 & echo > \(dir)/up-$PACE_KEY; wait"
        let pace = try PipedPace(["--throttle", "1s", "--key-field", "1", "--jobs", "3", "--trace", "--kill-after", "30s",
                                  "--exec", command],
                                 .init(launcher: ["/bin/sh", "-c", "exec \"$0\" \"$@\" 2>\(dir)/err"]))
        pace.write("a\nb\nc\n")
        #expect(waitUntil { ["a", "b", "c"].allSatisfy { scratch.exists("up-" + $0) } })
        // What pace traced so far is read; then the FIFO is filled.
        var chunk = [UInt8](repeating: 0, count: 65536)
        var errors: [UInt8] = []
        #expect(waitUntil {
            let n = read(reader, &chunk, chunk.count)
            if n > 0 { errors += chunk[..<n] }
            return errors.count { $0 == 0x0A } == 6
        })
        #expect(fill(dir + "/err") > 0)
        #expect(pace.send(SIGTERM))
        #expect(waitUntil { ["a", "b", "c"].allSatisfy { scratch.exists("got-" + $0) } })
        // stderr is then read to its end.
        errors += readToEnd(reader)
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        let trace = String(decoding: errors.filter { $0 != 0x58 }, as: UTF8.self).split(separator: "\n")
        for line in 1...3 {
            #expect(trace.filter { $0 == "pace: trace: line \(line): command sent SIGTERM: pace is stopping" }.count == 1)
        }
        #expect(!trace.contains { $0.contains("SIGKILL") })
    }

    @Test("live: a second signal while --dropped's FIFO is full counts every waiting line not run, and every line the file did not get")
    func secondSignalCountsEveryLineNotRun() throws {
        let scratch = FifoScratch("pace-exec-second-count")
        let dir = scratch.path
        let reader = scratch.fifoReader("d")
        let command = "trap '' TERM; echo > \(dir)/up-$PACE_KEY; exec sleep 300"
        let pace = try PipedPace(["--throttle", "10s", "--key-field", "1", "--kill-after", "30s", "--exec", command,
                                  "--dropped", dir + "/d"])
        // k1's command runs; k2's and k3's lines wait for it (one job).
        pace.write("k1 a\nk2 a\nk3 a\n")
        #expect(waitUntil { scratch.exists("up-k1") })
        #expect(fill(dir + "/d") > 0)
        // The throttle's discard waits for the full FIFO.
        pace.write("k1 again\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.waitUntilAsleep())
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        // The file got none of them: the discard given up, and the two
        // lines not run after it.
        #expect(end.errors == "pace: interrupted: 2 lines not run\n"
                + "pace: interrupted: 3 lines not written to \(dir)/d\n")
        #expect(PipedPace.bytesWaiting(in: reader) > 0)
    }

    @Test("live: --kill-after's SIGKILL follows the first SIGTERM on time while --dropped's FIFO is full")
    func killAfterWhileWriteWaits() throws {
        let scratch = FifoScratch("pace-exec-wait-kill")
        let reader = scratch.fifoReader("d")
        let pace = try stalledPace(["--throttle", "1h", "--exec", ignoresTerm(scratch.path), "--kill-after", "100ms",
                                    "--dropped", scratch.path + "/d"], scratch, then: flood(1_500), stalledOn: reader)
        let commandPid = try #require(scratch.pid("pid"))
        #expect(pace.send(SIGTERM))
        // Killed, and not reaped: pace still waits to write.
        #expect(waitUntil { isZombie(commandPid) })
        #expect(pace.process.isRunning && PipedPace.bytesWaiting(in: reader) >= 60_000)
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        if end.status == nil && !isZombie(commandPid) { kill(-commandPid, SIGKILL) }
    }

    @Test("live: a command SIGTERM ended is reaped when --kill-after comes, while --dropped's FIFO is full: not sent SIGKILL, not traced still running")
    func endedCommandNotKilledWhileWriteWaits() throws {
        let scratch = FifoScratch("pace-exec-wait-ended")
        let dir = scratch.path
        let reader = scratch.fifoReader("d")
        // The command is `sleep` itself: SIGTERM ends it and empties its group.
        // The trace goes to a file, which never stalls.
        var options = PipedPace.Options()
        options.stdinPipeSize = 1 << 20
        options.launcher = ["/bin/sh", "-c", "exec \"$0\" \"$@\" 2>\(dir)/err"]
        let pace = try PipedPace(["--throttle", "1h", "--trace", "--kill-after", "100ms", "--dropped", dir + "/d",
                                  "--exec", "echo $$ > \(dir)/pid.tmp; mv \(dir)/pid.tmp \(dir)/pid; exec sleep 300"],
                                 options)
        pace.write("first\n")
        #expect(waitUntil { scratch.pid("pid") != nil })
        let commandPid = try #require(scratch.pid("pid"))
        pace.write(flood(1_500))
        #expect(pace.waitUntilBlockedWriting(holding: 60_000, to: reader) != nil)
        #expect(pace.waitUntilAsleep())
        #expect(pace.send(SIGTERM))
        // Dead of the SIGTERM, then reaped at --kill-after's time, while
        // pace still waits to write.
        #expect(waitUntil { isGone(commandPid) })
        #expect(pace.process.isRunning && PipedPace.bytesWaiting(in: reader) >= 60_000)
        _ = readToEnd(reader)
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        let trace = ((try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(trace.contains("pace: trace: line 1: command sent SIGTERM: pace is stopping"))
        #expect(trace.contains("pace: trace: line 1: command killed by signal 15"))
        #expect(!trace.contains { $0.contains("SIGKILL") })
    }

    @Test("live: restart's SIGKILL goes on time while --dropped's FIFO is full, with no signal to pace")
    func restartKillWhileWriteWaits() throws {
        let scratch = FifoScratch("pace-exec-wait-restart")
        let reader = scratch.fifoReader("d")
        // `second` restarts the first command (which ignores the SIGTERM)
        // and waits; the lines after it, read with it or after, each
        // replace the waiting one or are the throttle's: all go to the FIFO.
        let pace = try stalledPace(["--throttle", "1ns", "--exec", ignoresTerm(scratch.path), "--on-busy", "restart",
                                    "--kill-after", "300ms", "--dropped", scratch.path + "/d"],
                                   scratch, then: "second\n" + flood(1_500), stalledOn: reader)
        let commandPid = try #require(scratch.pid("pid"))
        #expect(waitUntil { isZombie(commandPid) })
        #expect(pace.process.isRunning && PipedPace.bytesWaiting(in: reader) >= 60_000)
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        if end.status == nil && !isZombie(commandPid) { kill(-commandPid, SIGKILL) }
    }
}
