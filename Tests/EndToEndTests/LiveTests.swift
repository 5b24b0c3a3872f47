// Live mode as a black box: the built `pace` binary run through pipes, with
// real time passing. Margins are generous (a timer's line is expected within
// a second of its due time, not within a millisecond): these tests check
// behaviour, Scripts/bench-live measures lateness.

import Foundation
import Testing
import Glibc

private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

private func sleep(seconds: Double) {
    usleep(UInt32(seconds * 1_000_000))
}

/// A running pace with its three standard streams on pipes.
private final class PaceProcess {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private var received: [UInt8] = []

    init(_ arguments: [String]) throws {
        // A write to a pace that has exited must fail, not kill the tests.
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = Pace.binary
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            _ = Glibc.write(input.fileHandleForWriting.fileDescriptor, bytes.baseAddress, bytes.count)
        }
    }

    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Waits up to `timeout` seconds for a whole line on stdout; nil if none
    /// came (or stdout ended).
    func readLine(timeout: Double) -> String? {
        let deadline = monotonicSeconds() + timeout
        let fd = output.fileHandleForReading.fileDescriptor
        while true {
            if let newline = received.firstIndex(of: 0x0A) {
                let line = String(decoding: received[..<newline], as: UTF8.self)
                received.removeSubrange(...newline)
                return line
            }
            let left = deadline - monotonicSeconds()
            if left <= 0 { return nil }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, Int32((left * 1000).rounded(.up))) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return nil }
            received += chunk[..<n]
        }
    }

    /// Closes stdin if still open, drains stdout and stderr, then waits for
    /// the exit: (rest of stdout, stderr, exit status).
    func finish() -> (output: String, errors: String, status: Int32) {
        closeInput()
        let rest = received + [UInt8](output.fileHandleForReading.readDataToEndOfFile())
        received = []
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (String(decoding: rest, as: UTF8.self), errorText, process.terminationStatus)
    }
}

/// A fresh path in the temporary directory.
private func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "pace-live-\(getpid())-\(name)"
}

/// Runs pace on `arguments` with an empty stdin, to the end: (stdout, stderr, status).
private func runToEnd(_ arguments: [String]) throws -> (output: String, errors: String, status: Int32) {
    try PaceProcess(arguments).finish()
}

@Suite("Live mode, end to end", .serialized)
struct LiveTests {
    @Test("a debounced line arrives once the silence has passed, before input ends")
    func debouncedLineArrivesAfterSilence() throws {
        let pace = try PaceProcess(["--debounce", "200ms"])
        pace.write("a\n")
        let sent = monotonicSeconds()
        let line = pace.readLine(timeout: 1.5)
        let waited = monotonicSeconds() - sent
        #expect(line == "a")
        #expect(waited >= 0.2, "emitted before 200 ms of silence")
        pace.write("b\n")
        pace.write("c\n")
        #expect(pace.readLine(timeout: 1.5) == "c")
        let end = pace.finish()
        #expect(end.output == "")
        #expect(end.errors == "")
        #expect(end.status == 0)
    }

    @Test("SIGTERM emits the pending line at once and exits 143")
    func sigtermReleasesPending() throws {
        let pace = try PipedPace(["--debounce", "10s"])
        pace.write("pending\n")
        // pace has read the line before it is told to stop.
        #expect(pace.waitUntilInputDrained())
        let stop = monotonicSeconds()
        kill(pace.pid, SIGTERM)
        #expect(pace.readLine(timeout: 1.5) == "pending")
        #expect(monotonicSeconds() - stop < 1.5)
        let end = pace.finish(closingInput: false)
        #expect(end.output == [])
        #expect(end.errors == "")
        #expect(end.status == 143)
    }

    // Input ends right after the signal: pace may find both at its next
    // wait, and the signal must not be lost behind the ready input.
    @Test("SIGINT exits 130 even when input ends at the same moment")
    func sigintWhileIdle() throws {
        let pace = try PaceProcess(["--throttle", "1s"])
        pace.write("first\n")
        #expect(pace.readLine(timeout: 1.5) == "first")
        pace.process.interrupt()
        let end = pace.finish()
        #expect(end.output == "")
        #expect(end.status == 130)
    }

    @Test("a recorded live run replays to the same output",
          arguments: [["--throttle-last", "100ms"], ["--debounce", "80ms", "--key-field", "1"],
                      ["--limit", "3/100ms", "--burst", "2", "--key-field", "1"],
                      ["--rate", "30/s", "--burst", "2", "--key-field", "1"],
                      ["--throttle", "100ms", "--key-field", "1", "--resolve-after", "150ms", "--count"],
                      ["--debounce", "50ms", "--key-field", "1", "--resolve-after", "120ms"],
                      ["--throttle-last", "100ms", "--batch", "3"], ["--debounce", "80ms", "--batch", "2", "--key-field", "1"]])
    func recordThenReplay(_ policy: [String]) throws {
        let record = temporaryPath("record-\(policy[0].dropFirst(2))")
        defer { unlink(record) }
        let live = try PaceProcess(policy + ["--emit-time", "--record", record])
        // Bursts of lines 0 to 60 ms apart over about 0.7 s, on two keys.
        let gaps: [Double] = [0, 0.03, 0.03, 0.03, 0.03, 0.06, 0, 0.12, 0.02, 0.05, 0.05, 0.09, 0.01, 0.2]
        for (i, gap) in gaps.enumerated() {
            sleep(seconds: gap)
            live.write("k\(i % 3 == 0 ? "x" : "y") line \(i)\n")
        }
        // Everything is due before input ends, so even the times agree.
        sleep(seconds: 0.3)
        let liveEnd = live.finish()
        #expect(liveEnd.status == 0)
        #expect(liveEnd.errors == "")

        let recorded = try String(contentsOfFile: record, encoding: .utf8)
        #expect(recorded.split(separator: "\n").count == gaps.count)
        let replay = try runToEnd(policy + ["--emit-time", "--replay", "--time-format", "record", record])
        #expect(replay.status == 0)
        #expect(replay.errors == "")
        #expect(replay.output == liveEnd.output)
        #expect(!liveEnd.output.isEmpty)
    }

    // --rate keeps its pace after live input ends, so a run that ends with
    // lines still waiting replays to the same output, times included. I is
    // 100/3 ms, not a whole number of microseconds: dues are rounded up from
    // the instants live mode recorded, as replay rounds them.
    @Test("a live --rate run ending with a backlog replays to the same output",
          arguments: [["--rate", "30/s"], ["--rate", "30/s", "--burst", "3"]])
    func rateBacklogRecordThenReplay(_ policy: [String]) throws {
        let record = temporaryPath("record-rate-backlog-\(policy.count)")
        defer { unlink(record) }
        let live = try PaceProcess(policy + ["--emit-time", "--record", record])
        live.write("a\nb\nc\nd\ne\n")
        // Once a is out the rest waits; two more lines come behind them.
        let first = try #require(live.readLine(timeout: 5))
        #expect(first.hasSuffix("\ta"))
        live.write("f\ng\n")
        let liveEnd = live.finish()
        #expect(liveEnd.status == 0)
        #expect(liveEnd.errors == "")
        let liveOutput = first + "\n" + liveEnd.output
        #expect(liveOutput.split(separator: "\n").map { $0.split(separator: "\t").last! } == ["a", "b", "c", "d", "e", "f", "g"])

        let recorded = try String(contentsOfFile: record, encoding: .utf8)
        #expect(recorded.split(separator: "\n").count == 7)
        let replay = try runToEnd(policy + ["--emit-time", "--replay", "--time-format", "record", record])
        #expect(replay.status == 0)
        #expect(replay.errors == "")
        #expect(replay.output == liveOutput)
    }

    @Test("a record file that cannot be written is an error naming it")
    func recordWriteError() throws {
        let pace = try PaceProcess(["--debounce", "10ms", "--record", "/dev/full"])
        pace.write("a\n")
        let end = pace.finish()
        #expect(end.errors == "pace: /dev/full: No space left on device\n")
        #expect(end.status == 1)
    }
}

extension LiveTests {
    @Test("--dropped, live: each dropped line is in the file as soon as it is dropped; --count on the next")
    func droppedIsFlushedAtOnce() throws {
        let path = temporaryPath("dropped")
        defer { unlink(path) }
        let pace = try PaceProcess(["--throttle", "1s", "--count", "--dropped", path])
        pace.write("a\n")
        #expect(pace.readLine(timeout: 1.5) == "1\ta")
        pace.write("b\n")
        // pace is still running, its window open: the line must be there
        // already (the file's contents are the readiness signal).
        let deadline = monotonicSeconds() + 1.5
        var contents = ""
        while monotonicSeconds() < deadline {
            contents = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if contents == "b\n" { break }
            usleep(10_000)
        }
        #expect(contents == "b\n")
        #expect(pace.process.isRunning)
        // After the window, the next line counts the dropped one.
        let next = monotonicSeconds() + 1.1
        while monotonicSeconds() < next { usleep(20_000) }
        pace.write("c\n")
        #expect(pace.readLine(timeout: 1.5) == "2\tc")
        let end = pace.finish()
        #expect(end.status == 0)
        #expect(end.errors == "")
    }
}
