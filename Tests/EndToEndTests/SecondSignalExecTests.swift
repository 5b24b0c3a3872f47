// A second SIGINT or SIGTERM with `--exec` while the first one's lines not
// run wait to go to a `--dropped` FIFO nobody reads: every such line is
// counted, once, in "N lines not run" and in "N lines not written to FILE"
// (or is in the FIFO): a batch's every line, the line pace was handing to
// the runner when the write gave up, and in replay the lines still pending.
// Synchronised on files the commands write, the FIFO filling and pace
// asleep.

import Foundation
import Glibc
import Testing

/// The first SIGTERM, its discards stalled on the FIFO `reader` reads, pace
/// asleep in that write, then the second; pace's end, which must be 143.
private func twoSignals(_ pace: PipedPace, stalling reader: Int32) -> (output: [UInt8], errors: String, status: Int32?) {
    #expect(pace.send(SIGTERM))
    #expect(pace.waitUntilBlockedWriting(holding: 60_000, to: reader) != nil)
    #expect(pace.waitUntilAsleep())
    #expect(pace.send(SIGTERM))
    let end = pace.finish(timeout: 5, closingInput: false)
    #expect(end.status == 143)
    return end
}

@Suite("A second signal with --exec and a stalled --dropped, end to end", .serialized)
struct SecondSignalExecTests {
    @Test("live, --batch: a second signal while --dropped's FIFO is full counts every line of a batch not run")
    func secondSignalCountsEveryBatchLine() throws {
        let scratch = FifoScratch("pace-exec-second-batch")
        let dir = scratch.path
        let reader = scratch.fifoReader("d")
        let command = "trap '' TERM; echo > \(dir)/up-$PACE_KEY; exec sleep 300"
        let pace = try PipedPace(["--debounce", "1h", "--batch", "3", "--key-field", "1", "--kill-after", "30s",
                                  "--exec", command, "--dropped", dir + "/d"])
        // k1's full batch runs; k2's waits for it (one job); k1's next line
        // is pending.
        pace.write("k1 a\nk1 b\nk1 c\nk2 a\nk2 b\nk2 c\n")
        #expect(waitUntil { scratch.exists("up-k1") })
        #expect(fill(dir + "/d") > 0)
        pace.write("k1 d\n")
        #expect(pace.waitUntilInputDrained())
        // The first signal's discards wait for the full FIFO.
        let end = twoSignals(pace, stalling: reader)
        #expect(end.errors == "pace: interrupted: 4 lines not run\n"
                + "pace: interrupted: 4 lines not written to \(dir)/d\n")
    }

    @Test("replay: a second signal while the lines the first left pending go to a full --dropped FIFO counts each once")
    func replayPendingLines() throws {
        let scratch = FifoScratch("pace-exec-second-replay")
        let dir = scratch.path
        let reader = scratch.fifoReader("d")
        // 2000 keys, each pending under a 10 s debounce when k0's fires at
        // 10 s; the first signal stops its command and leaves 1999 not run,
        // 160 KB for a FIFO of 64 KiB.
        let lines = (0..<2_000).map { i in
            let text = "\(i * 4)ms k\(i) "
            return text + String(repeating: "x", count: 79 - text.utf8.count) + "\n"
        }
        let file = scratch.input(lines.joined())
        let pace = try PipedPace(["--replay", "--time-format", "offset", "--debounce", "10s", "--key-field", "2",
                                  "--exec", "echo > \(dir)/up; exec sleep 300", "--dropped", dir + "/d"],
                                 .init(stdinFile: file))
        #expect(waitUntil { scratch.exists("up") })
        let end = twoSignals(pace, stalling: reader)
        let inFifo = wholeLines(waitingIn: reader)
        #expect(inFifo > 0 && inFifo < 1_999)
        #expect(end.errors == "pace: interrupted: 1999 lines not run\n"
                + "pace: interrupted: \(1_999 - inFifo) lines not written to \(dir)/d\n")
    }

    @Test("live, --resolve-after: a second signal while a resolved copy is being handed over counts input lines only")
    func resolvedCopyInHand() throws {
        let scratch = FifoScratch("pace-exec-second-resolved")
        let dir = scratch.path
        let reader = scratch.fifoReader("d")
        let pace = try PipedPace(["--throttle", "10s", "--key-field", "1", "--resolve-after", "5s",
                                  "--exec", "echo > \(dir)/up; exec sleep 300", "--dropped", dir + "/d"],
                                 .init(stdinPipeSize: 1 << 20))
        // k0's command runs; 2499 lines wait for it, 200 KB once discarded.
        pace.write((0..<2_500).map { "k\($0) " + String(repeating: "x", count: 80) + "\n" }.joined())
        #expect(waitUntil { scratch.exists("up") })
        #expect(pace.waitUntilInputDrained())
        #expect(pace.waitUntilAsleep())
        // The first signal: the waiting lines go to the FIFO, which fills;
        // the episodes' resolved copies come after them.
        let end = twoSignals(pace, stalling: reader)
        let inFifo = wholeLines(waitingIn: reader)
        #expect(end.errors == "pace: interrupted: 2499 lines not run\n"
                + "pace: interrupted: \(2_499 - inFifo) lines not written to \(dir)/d\n")
    }

    @Test("live: a second signal counts as not run the lines read from the pipe and not handled yet")
    func unhandledLinesNotRun() throws {
        let scratch = FifoScratch("pace-exec-second-unhandled")
        let dir = scratch.path
        let reader = scratch.fifoReader("d")
        let pace = try PipedPace(["--throttle", "10s", "--key-field", "1",
                                  "--exec", "echo > \(dir)/up; exec sleep 300", "--dropped", dir + "/d"],
                                 .init(stdinPipeSize: 1 << 20))
        // k0's command runs, then 24,999 lines come in one write; the signal
        // comes while pace still hands them over (or once it has): the FIFO
        // fills with the waiting ones.
        pace.write("k0\n")
        #expect(waitUntil { scratch.exists("up") })
        pace.write((1..<25_000).map { "k\($0) " + String(repeating: "x", count: 30) + "\n" }.joined())
        #expect(pace.waitUntilInputDrained())
        let end = twoSignals(pace, stalling: reader)
        let inFifo = wholeLines(waitingIn: reader)
        #expect(end.errors == "pace: interrupted: 24999 lines not run\n"
                + "pace: interrupted: \(24_999 - inFifo) lines not written to \(dir)/d\n")
    }
}
