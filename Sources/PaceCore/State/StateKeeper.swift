// `--state FILE`: the file's keeper for one run. Before the run it takes
// the lock beside FILE (`FILE.lock`, held until pace exits) and reads FILE,
// refusing one that is not a whole pace state or was written under other
// flags (usage errors, FILE untouched). During the run the driver asks it,
// before each wait, whether a save is due: at most once per interval (a
// minute) and only when an event came since the last one. That save copies
// the scheduler's keys on the loop (StateSnapshot) and writes them on a
// thread, so the loop goes on and timers fire on time. At exit the driver
// hands it the last snapshot, written at once, after the thread's.

package final class StateKeeper {
    /// FILE with the symbolic links at its end followed: what a save
    /// replaces, with the lock beside it.
    package let path: [UInt8]
    /// FILE's name as given, as an output error names it.
    package let target: String
    package let flags: StateFlags
    /// What FILE held at start (empty when there was no FILE).
    package private(set) var loaded: StateSnapshot
    /// The least time between two saves while the run goes on.
    let interval: Nanoseconds
    private let lockFD: Int32
    private var lastSave: Instant?
    private var savedEvents: Int64 = 0
    private var inFlight: BackgroundWork?
    /// `PACE_STATE_TIMING` (benchmarks only): each load and exit save says
    /// on stderr how long it took, in wall and CPU time.
    package var reportsTiming = false
    /// The time read and decode took at open, reported with the load.
    private var openTime: (wall: Nanoseconds, cpu: Nanoseconds) = (0, 0)

    /// SPEC: at most once a minute.
    package static let defaultInterval = Nanoseconds(60_000_000_000)

    private init(given: [UInt8], path: [UInt8], flags: StateFlags, loaded: StateSnapshot, interval: Nanoseconds,
                 lockFD: Int32) {
        self.path = path
        target = String(decoding: given, as: UTF8.self)
        self.flags = flags
        self.loaded = loaded
        self.interval = interval
        self.lockFD = lockFD
    }

    /// Where FILE (`given`) is: the symbolic links at its end followed, so
    /// a link's target is the state (read, locked beside, replaced).
    package static func file(_ given: [UInt8]) -> [UInt8] { StateFiles.followingLinks(given) }

    /// Locks and reads FILE (`given`), for a run under `flags`; a usage
    /// error says why it cannot be used.
    /// `keys`: the run's key extractor, which says which keys it makes.
    package static func open(_ given: [UInt8], flags: StateFlags, keys: KeyExtractor? = nil,
                             interval: Nanoseconds = defaultInterval,
                             reportsTiming: Bool = false) -> Result<StateKeeper, UsageError> {
        let began = (StateFiles.monotonicNow(), StateFiles.threadCPUTime())
        let quoted = Array("'--state' file '".utf8) + given + Array("'".utf8)
        // A link's target is the state: two paces given a link and its
        // target share one lock, and a save keeps the link.
        let path = file(given)
        func refuse(_ why: String, hint: String) -> Result<StateKeeper, UsageError> {
            .failure(UsageError(bytes: quoted + Array(why.utf8), hint: hint))
        }
        func unwritable(_ code: Int32) -> Result<StateKeeper, UsageError> {
            // A link's target's directory is the one written in.
            let directory = path == given ? "its directory"
                : "its target's directory '\(String(decoding: StateFiles.directory(of: path), as: UTF8.self))'"
            return refuse(": pace cannot write in \(directory) (\(StateFiles.describe(code)))",
                   hint: "--state FILE is saved as a new file in FILE's directory, then renamed over FILE.\nSee 'pace --help' for more information.")
        }
        if let code = StateFiles.directoryProblem(path) { return unwritable(code) }
        // Before its lock is made beside it (`/tmp` would lock `/tmp.lock`,
        // `/dev/null` make `/dev/null.lock`).
        switch StateFiles.fileProblem(at: path) {
        case let .directory(code)?:
            return refuse(": \(StateFiles.describe(code))", hint: "--state takes a file's name (one that does not exist yet is made).\nSee 'pace --help' for more information.")
        case .notRegular?:
            return refuse(StateFileProblem.notRegular.reason, hint: StateFileProblem.notRegular.hint)
        case let .unreachable(code)?:
            return refuse(": \(StateFiles.describe(code))", hint: unreadableStateHint)
        case nil:
            break
        }
        let lockFD: Int32
        switch StateFiles.lock(path + Array(".lock".utf8)) {
        case let .success(fd): lockFD = fd
        case let .failure(error) where error.code == StateFiles.lockHeld:
            return refuse(" is in use by another pace (it holds '\(String(decoding: path, as: UTF8.self)).lock')",
                          hint: "Each running pace needs a --state file of its own.\nSee 'pace --help' for more information.")
        case let .failure(error) where !StateFiles.isTheLock(error.code):
            return unwritable(error.code)
        case let .failure(error):
            // Something at the lock's own name is the trouble (a directory,
            // a file pace may not open), not the directory.
            return refuse(": pace cannot open its lock '\(String(decoding: path, as: UTF8.self)).lock' "
                          + "(\(StateFiles.describe(error.code)))",
                          hint: "A running pace holds a lock on FILE.lock beside FILE.\nSee 'pace --help' for more information.")
        }
        func fail(_ result: Result<StateKeeper, UsageError>) -> Result<StateKeeper, UsageError> {
            StateFiles.unlock(lockFD)
            return result
        }
        let bytes: [UInt8]?
        switch StateFiles.read(path) {
        case let .success(read): bytes = read
        case let .failure(error):
            // Not the file's flags, nor its contents: the file itself.
            return fail(refuse(": \(StateFiles.describe(error.code))", hint: unreadableStateHint))
        }
        var loaded = StateSnapshot()
        if let bytes {
            switch StateFormat.decode(bytes, flags: flags, isKey: { keys?.makes($0) ?? true }) {
            case let .success(snapshot): loaded = snapshot
            case let .failure(problem): return fail(refuse(problem.reason, hint: problem.hint))
            }
        }
        let keeper = StateKeeper(given: given, path: path, flags: flags, loaded: loaded, interval: interval, lockFD: lockFD)
        keeper.reportsTiming = reportsTiming
        keeper.openTime = (StateFiles.monotonicNow().saturatingDistance(from: began.0),
                           StateFiles.threadCPUTime().saturatingDistance(from: began.1))
        return .success(keeper)
    }

    deinit { StateFiles.unlock(lockFD) }

    /// Loads FILE's keys into `scheduler`, at the run's start `now`.
    package func load<P: Policy, Keys: KeyStore<P.State> & ~Copyable, Sink: LineSink & ~Copyable,
                      Observer: SchedulerObserver>(
        into scheduler: inout Scheduler<P, Keys, Sink, Observer>, at now: Instant
    ) where P.Payload == EventNumber {
        timed("loaded", keys: loaded.count, plus: openTime) { scheduler.load(loaded, at: now) }
        lastSave = now
        loaded = StateSnapshot()
    }

    /// Runs `body`; with `reportsTiming`, says how long it took (and
    /// `plus`, work done before for it).
    package func timed<R>(_ what: String, keys: Int, plus: (wall: Nanoseconds, cpu: Nanoseconds) = (0, 0),
                          _ body: () -> R) -> R {
        guard reportsTiming else { return body() }
        let began = (StateFiles.monotonicNow(), StateFiles.threadCPUTime())
        let result = body()
        let wall = StateFiles.monotonicNow().saturatingDistance(from: began.0) + plus.wall
        let cpu = StateFiles.threadCPUTime().saturatingDistance(from: began.1) + plus.cpu
        StateFiles.report("pace: state: \(what) \(keys) keys: \(wall.count / 1_000) us wall, \(cpu.count / 1_000) us CPU\n")
        return result
    }

    // MARK: - While the run goes on

    /// When the loop must wake for the next save: only once something
    /// changed since the last one.
    package func nextSave(eventsSeen: Int64) -> Instant? {
        guard eventsSeen != savedEvents, let lastSave else { return nil }
        return lastSave.saturatingAdd(interval)
    }

    /// Before a wait at `now`: learns how the save in flight went, and
    /// starts the next one when it is due. A failed save ends the run as
    /// any output error does.
    package func tick<P: Policy, Keys: KeyStore<P.State> & ~Copyable, Sink: LineSink & ~Copyable,
                      Observer: SchedulerObserver>(
        _ scheduler: borrowing Scheduler<P, Keys, Sink, Observer>, now: Instant
    ) throws(OutputError) where P.Payload == EventNumber {
        if let work = inFlight {
            guard let result = work.poll() else { return }
            inFlight = nil
            if let code = result { throw .failed(target: target, errno: code) }
        }
        guard let due = nextSave(eventsSeen: scheduler.eventsSeen), due <= now else { return }
        savedEvents = scheduler.eventsSeen
        lastSave = now
        var snapshot = scheduler.snapshot(at: now, heldLinesOwed: true)
        scheduler.addOwedByCommands(to: &snapshot, includingWaiting: true)
        let (path, flags) = (self.path, self.flags)
        let (work, result) = BackgroundWork.start {
            StateFiles.replace(path, with: StateFormat.encode(snapshot, flags: flags))
        }
        inFlight = work
        if let code = result { throw .failed(target: target, errno: code) }
    }

    // MARK: - At exit

    /// Saves `snapshot`, the run's last, once the save in flight is done;
    /// the errno of a failure (FILE then keeps the state saved before).
    package func save(_ snapshot: StateSnapshot) -> Int32? {
        if let work = inFlight {
            inFlight = nil
            _ = work.wait()
        }
        return timed("saved", keys: snapshot.count) {
            StateFiles.replace(path, with: StateFormat.encode(snapshot, flags: flags))
        }
    }
}
