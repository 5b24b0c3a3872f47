// A LiveClock for unit tests: time moves only when the live loop waits, to
// the next scripted step or to the deadline the loop asked for, whichever
// comes first. Input steps write their bytes into a pipe the loop's real
// LineReader reads, so the test exercises the same read path as pace, without
// sleeping and without threads.

import Glibc
import Testing
import PaceCore
import PaceTesting

extension ScriptedClock {
    /// What happens at a scripted instant.
    enum Step {
        /// These bytes arrive on the input.
        case input(String)
        /// The input's writer closes its end.
        case endOfInput
        /// A signal arrives (SIGINT, SIGTERM).
        case signal(Int32)
        /// stdout's reader goes away.
        case outputClosed
        /// `--exec`'s runner has something to do.
        case commandsReady
    }

    /// The signal the loop's `pendingSignal` reports; set by the clock.
    final class SignalFlag {
        var number: Int32 = 0
    }
}

struct ScriptedClock: LiveClock {
    /// The wall clock when the run starts (ns since the Unix epoch).
    let wallAtStart: Instant
    /// Monotonic time now. Starts at an arbitrary origin unrelated to the wall clock.
    private(set) var monotonic: Instant
    private let origin: Instant
    /// Steps at monotonic offsets from the start, in order.
    private var steps: [(at: Nanoseconds, step: Step)]
    /// How late a timer wake-up comes after its deadline (scheduling latency).
    private let lateness: Nanoseconds
    private let inputWriter: Int32
    let signal: SignalFlag
    /// Every deadline the loop waited for (nil: no deadline), as offsets
    /// from the start: shows the loop never wakes without a reason.
    private(set) var waits: [Nanoseconds?] = []
    /// What each wait that watched `--exec`'s runner was given: its
    /// descriptor, and its kill deadline as an offset from the start.
    private(set) var commandWaits: [(fd: Int32, deadline: Nanoseconds?)] = []

    init(wallAtStart: Instant, monotonicAtStart: Instant = 7_000_000_123, steps: [(at: Nanoseconds, step: Step)],
         lateness: Nanoseconds = 0, inputWriter: Int32) {
        self.wallAtStart = wallAtStart
        self.monotonic = monotonicAtStart
        self.origin = monotonicAtStart
        self.steps = steps
        self.lateness = lateness
        self.inputWriter = inputWriter
        self.signal = SignalFlag()
    }

    func wallClockNow() -> Instant { wallAtStart }

    func monotonicNow() -> Instant { monotonic }

    mutating func wait(until deadline: Instant?) -> LiveWake {
        waits.append(deadline.map { $0 - origin })
        if let deadline {
            #expect(deadline > monotonic - 1_000, "the loop waits for a deadline already passed: it would spin")
        }
        guard let next = steps.first else {
            if let deadline {
                monotonic = max(monotonic, deadline + lateness)
                return .deadline
            }
            Issue.record("the loop waits with no deadline after the script ended: it would block forever")
            signal.number = SIGKILL
            return .interrupted
        }
        let stepTime = origin + next.at
        if let deadline, deadline + lateness < stepTime {
            monotonic = max(monotonic, deadline + lateness)
            return .deadline
        }
        steps.removeFirst()
        monotonic = max(monotonic, stepTime)
        switch next.step {
        case let .input(text):
            var text = text
            text.withUTF8 { bytes in
                #expect(write(inputWriter, bytes.baseAddress, bytes.count) == bytes.count)
            }
            return .inputReady
        case .endOfInput:
            close(inputWriter)
            return .inputReady
        case let .signal(number):
            signal.number = number
            return .interrupted
        case .outputClosed:
            return .outputClosed
        case .commandsReady:
            return .commandsReady
        }
    }

    /// The runner's deadline is recorded, not waited for: the scripted
    /// steps say when it has something to do.
    mutating func wait(until deadline: Instant?, commandFD: Int32, commandDeadline: Instant?) -> LiveWake {
        commandWaits.append((commandFD, commandDeadline.map { $0 - origin }))
        return wait(until: deadline)
    }
}

extension ScriptedClock {
    /// A pipe's two ends: the scripted input, and output read back in tests.
    struct Pipe {
        let reader: Int32
        let writer: Int32

        init() {
            var fds: [Int32] = [0, 0]
            precondition(pipe(&fds) == 0, "pipe: \(errno)")
            reader = fds[0]
            writer = fds[1]
        }

        /// Everything written so far (the writer must be closed).
        func readAll() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(reader, &chunk, chunk.count)
                if n <= 0 { break }
                bytes += chunk[..<n]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// The result of a scripted live run.
struct LiveRun {
    var report: RunReport
    var emissions: [Emitted]
    var waits: [Nanoseconds?]
    /// What `--record` wrote, when asked for.
    var record: String?
}

extension LiveRun {
    /// Runs live mode with `arguments` (parsed as pace would) over `steps`.
    static func scripted(_ arguments: [String], _ steps: [(at: Nanoseconds, step: ScriptedClock.Step)],
                         lateness: Nanoseconds = 0, wallAtStart: Instant, recordFD: Int32? = nil,
                         recording: Bool = false, traceFD: Int32 = 2) -> LiveRun {
        guard case let .success(.run(configuration)) = parseArguments(arguments) else {
            preconditionFailure("bad arguments \(arguments)")
        }
        let input = ScriptedClock.Pipe()
        let record = recording ? ScriptedClock.Pipe() : nil
        var clock = ScriptedClock(wallAtStart: wallAtStart, steps: steps, lateness: lateness, inputWriter: input.writer)
        var reader = LineReader(fd: input.reader)
        var sink = RecordingSink()
        let signal = clock.signal
        let report = runLive(configuration, clock: &clock, input: &reader, output: &sink,
                             recordFD: record?.writer ?? recordFD, traceFD: traceFD, signals: RunSignals(termination: { signal.number }))
        var recorded: String?
        if let record {
            close(record.writer)
            recorded = record.readAll()
            close(record.reader)
        }
        close(input.reader)
        // The writer is closed by an .endOfInput step; close it otherwise.
        if !steps.contains(where: { if case .endOfInput = $0.step { return true } else { return false } }) {
            close(input.writer)
        }
        return LiveRun(report: report, emissions: sink.emissions, waits: clock.waits, record: recorded)
    }
}
