// `--exec`'s commands while a write of pace's waits for a reader that has
// stopped reading (a paused `2>&1 | less` on stderr, a `--dropped` FIFO
// nobody reads). SPEC: a signal is acted on promptly even then. The write's
// wait (Platform's `WriteWait`) asks the runner, through the driver
// (Run/WriteWaitSummary.swift), before it sleeps and each time it wakes:
// a terminating signal shuts the commands down there (SIGTERM to each
// running group), and a SIGKILL that `--kill-after` makes due is sent on
// time (shutdown's and `restart`'s alike). Only signals are sent from inside
// the wait: what else the queue asks (a line to `--dropped`, a command to
// start, a message, the trace) may write, so it waits in `deferred` until
// the write is done, and `nextDeadline` says "now" until it is carried out.

// libc: the signal numbers sent.
import Glibc

extension CommandEffect {
    /// A signal sent, which writes nothing.
    var isSignal: Bool {
        switch self {
        case .terminate, .kill, .armKillTimer, .armGroupCheck, .finished: return true
        case .start, .checkGroup, .discard: return false
        }
    }
}

extension CommandRunner {
    /// A write waits for its reader: `terminating` (a first SIGINT or
    /// SIGTERM came) shuts down now; SIGKILLs due are sent. Returns how
    /// long the wait may last before the next SIGKILL is due.
    func actWhileWriteWaits(terminating: Bool) -> Nanoseconds? {
        writeWaiting = true
        defer { writeWaiting = false }
        // Nothing that throws runs now: the writes are deferred.
        if terminating && !shutDown { try? shutdown() }
        // What the queue asked before the write began and the runner had not
        // sent yet (its effects wait behind the write, a trace line before a
        // signal): sent now.
        for line in children.keys { traceSignals(sendSignalsAskedFor(line), of: line) }
        try? fireDueTimers()
        return queue.nextDeadline.map { max(.zero, $0.saturatingDistance(from: clock())) }
    }

    /// The queue's timers that are due (`--kill-after`'s SIGKILLs, looks at
    /// a group), after the driver's wait and inside a write's. Before them,
    /// the commands SIGTERM has ended (their shells exited, not reaped yet)
    /// are reaped, so that one gone is sent nothing more and not traced
    /// "still running". Safe while a write waits: a signalled command's end
    /// is never reported, its trace waits, and what the queue then asks is
    /// deferred.
    func fireDueTimers() throws(OutputError) {
        guard let due = queue.nextDeadline, due <= clock() else { return }
        for line in children.keys.sorted() where children[line].map({ $0.signalled && !$0.killed }) ?? false {
            try reapIfExited(line)
        }
        try perform(queue.reduce(.timerFired(now: clock())), on: .killTimer)
    }

    /// The signals the queue asked for line `line`'s command that it has
    /// not been sent (their effects waited behind a write, or came before
    /// it started): sent now. Returns which were.
    func sendSignalsAskedFor(_ line: EventNumber) -> (terminated: Bool, killed: Bool) {
        guard let child = children[line] else { return (false, false) }
        let asked = queue.signalsSent(to: line)
        let caughtUp = (terminated: asked.terminated && !child.signalled, killed: asked.killed && !child.killed)
        if caughtUp.terminated { send(SIGTERM, to: line) }
        if caughtUp.killed { send(SIGKILL, to: line) }
        return caughtUp
    }

    /// `--trace`'s lines for the signals `sendSignalsAskedFor` sent.
    func traceSignals(_ sent: (terminated: Bool, killed: Bool), of line: EventNumber) {
        guard traceWriter != nil else { return }
        if sent.terminated { trace(line, shutDown ? "command sent SIGTERM: pace is stopping" : "command sent SIGTERM: restarted") }
        if sent.killed { trace(line, "command sent SIGKILL: still running after --kill-after") }
    }

    /// What was deferred while a write waited: the trace of the signals it
    /// sent, then the queue's other effects, in the order they came.
    func performDeferred() throws(OutputError) {
        guard !writeWaiting, !deferred.isEmpty || !deferredTrace.isEmpty else { return }
        let lines = deferredTrace
        deferredTrace = []
        for (line, what) in lines { trace(line, what) }
        let effects = deferred
        deferred = []
        try performEach(effects)
    }
}
