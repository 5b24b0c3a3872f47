// pace's executable: arguments, file descriptors, signals, exit codes.
// Everything else lives in PaceCore, where it can be tested without a process.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PaceCore

/// Exit codes, as SPEC fixes them.
enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let interrupted: Int32 = 130  // 128 + SIGINT
    static let terminated: Int32 = 143   // 128 + SIGTERM
}

/// Writes a message, help or version text whole. Failures are ignored:
/// there is nowhere left to report them.
func write(_ text: String, to fd: Int32) {
    var text = text
    text.withUTF8 { try? writeAll(fd: fd, UnsafeRawBufferPointer($0), target: fd == 1 ? "stdout" : "stderr") }
}

func writeStderr(_ text: String) { write(text, to: 2) }

func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

// MARK: - Signals

/// The SIGINT or SIGTERM received (0 for none). Written only by the handler.
nonisolated(unsafe) var receivedSignal: sig_atomic_t = 0

/// SIGINT and SIGTERM end input (pending lines are still emitted). Installed
/// without SA_RESTART so that a blocking read returns EINTR and the loops see
/// the signal at once. A signal ignored when pace starts stays ignored, as
/// Unix tools do (a shell starts background jobs with SIGINT ignored, so that
/// Ctrl-C reaches only the foreground job). SIGPIPE is ignored: a closed
/// stdout shows up as EPIPE, which ends pace quietly.
func installSignalHandlers() {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signal in receivedSignal = signal }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    // A parent may hand pace a mask that blocks them (Foundation's Process
    // does); handled signals must be deliverable.
    var handled = sigset_t()
    sigemptyset(&handled)
    for number in [SIGINT, SIGTERM] {
        sigaddset(&handled, number)
        var previous = sigaction()
        sigaction(number, nil, &previous)
        let ignored = unsafeBitCast(SIG_IGN, to: Int.self)
        if unsafeBitCast(previous.__sigaction_handler.sa_handler, to: Int.self) == ignored { continue }
        sigaction(number, &action, nil)
    }
    sigprocmask(SIG_UNBLOCK, &handled, nil)
    signal(SIGPIPE, SIG_IGN)
}

// MARK: - Main

func currentUTCYear() -> Int {
    civilYear(unixSeconds: Int64(time(nil)))
}

/// Opens the input; a FILE that cannot be read is a usage error (SPEC).
func openInput(_ path: String?) -> Result<Int32, UsageError> {
    guard let path else { return .success(0) }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { return .failure(UsageError("\(path): \(errorText(errno))")) }
    var info = stat()
    if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
        close(fd)
        return .failure(UsageError("\(path): \(errorText(EISDIR))"))
    }
    return .success(fd)
}

func run() -> Int32 {
    let command: Command
    switch parseArguments(Array(CommandLine.arguments.dropFirst())) {
    case let .success(parsed): command = parsed
    case let .failure(error):
        writeStderr(error.text)
        return ExitCode.usage
    }
    let configuration: Configuration
    switch command {
    case .help:
        write(helpText(), to: 1)
        return ExitCode.success
    case .version:
        write("pace \(paceVersion)\n", to: 1)
        return ExitCode.success
    case var .run(parsed):
        if let exec = parsed.exec {
            parsed.exec!.command = rawExecCommand(rawArguments(), parsed: exec.command)
        }
        configuration = parsed
    }

    let inputFD: Int32
    switch openInput(configuration.inputPath) {
    case let .success(fd): inputFD = fd
    case let .failure(error):
        writeStderr(error.text)
        return ExitCode.usage
    }
    var recordFD: Int32?
    if let path = configuration.recordPath {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        if fd < 0 {
            writeStderr(UsageError("\(path): \(errorText(errno))").text)
            return ExitCode.usage
        }
        recordFD = fd
    }

    // The live loop does not drive the command runner yet (see README's
    // Commands): refuse rather than write to stdout what should have run.
    if configuration.exec != nil && !configuration.replay {
        writeStderr("pace: --exec is not available in live mode yet (it works with --replay)\n")
        return ExitCode.failure
    }

    installSignalHandlers()
    var input = LineReader(fd: inputFD)
    let report: RunReport
    if configuration.replay {
        report = runReplay(configuration, defaultYear: currentUTCYear(), input: &input, outputFD: 1,
                           traceFD: 2, columns: terminalColumns(), pendingSignal: { receivedSignal })
    } else {
        // The live clock keeps SIGINT and SIGTERM blocked except while it
        // waits, so that a signal cannot slip in between the loop's check of
        // `receivedSignal` and the wait.
        var clock = SystemLiveClock(inputFD: inputFD, outputFD: 1, deferredSignals: [SIGINT, SIGTERM])
        report = runLive(configuration, clock: &clock, input: &input, outputFD: 1, recordFD: recordFD,
                         pendingSignal: { receivedSignal })
    }

    var status: Int32
    switch report.end {
    case .endOfInput, .brokenPipe:
        status = ExitCode.success
    case let .badTime(line, why):
        writeStderr("pace: line \(line): \(why)\n")
        status = ExitCode.failure
    case let .signal(number):
        status = number == SIGINT ? ExitCode.interrupted : ExitCode.terminated
    case let .inputFailed(code):
        writeStderr("pace: \(configuration.inputPath ?? "stdin"): \(errorText(code))\n")
        status = ExitCode.failure
    case let .outputFailed(target, code):
        writeStderr("pace: \(target): \(errorText(code))\n")
        status = ExitCode.failure
    }
    // SPEC's precedence: a signal's 130 or 143, then 1 (any error, a command
    // that could not start included), then 123 (a command failed).
    if status == ExitCode.success { status = report.commandStatus }
    if let marbles = report.marbles { writeStderr(marbles) }
    if configuration.stats { writeStderr(report.statsText) }
    return status
}

/// argv as bytes, without the program name.
func rawArguments() -> [[UInt8]] {
    (1..<Int(CommandLine.argc)).map { i in
        Array(UnsafeRawBufferPointer(start: CommandLine.unsafeArgv[i]!, count: strlen(CommandLine.unsafeArgv[i]!)))
    }
}

/// `--marbles`' width: `COLUMNS` if it is a sensible number, else 80.
func terminalColumns() -> Int {
    guard let text = getenv("COLUMNS"), let columns = Int(String(cString: text)), (20...10_000).contains(columns) else {
        return 80
    }
    return columns
}


exit(run())
