// pace's executable: arguments, file descriptors, signals, exit codes.
// Everything else lives in PaceCore, where it can be tested without a process.

import Glibc
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
    case let .run(parsed):
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

    // SIGINT, SIGTERM and SIGUSR1 are blocked from here on, except while
    // pace waits (see PaceCore/Platform/Linux.swift).
    Signals.install()
    var input = LineReader(fd: inputFD)
    let report: RunReport
    if configuration.replay {
        report = runReplay(configuration, defaultYear: currentUTCYear(), input: &input, outputFD: 1,
                           traceFD: 2, columns: terminalColumns(), pendingSignal: Signals.pendingTermination)
    } else {
        var clock = SystemLiveClock(inputFD: inputFD, outputFD: 1)
        report = runLive(configuration, clock: &clock, input: &input, outputFD: 1, recordFD: recordFD,
                         pendingSignal: Signals.pendingTermination)
    }

    let status: Int32
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
    if let unwritten = report.linesNotWritten {
        writeStderr("pace: interrupted: \(unwritten) line\(unwritten == 1 ? "" : "s") not written\n")
    }
    // A signal wins over every other ending (SPEC: 130 or 143, then 1), also
    // one that came during the last writes, or after the reader had gone.
    let signal = Signals.pendingTermination()
    let exitStatus = signal == 0 ? status : signal == SIGINT ? ExitCode.interrupted : ExitCode.terminated
    if let marbles = report.marbles { writeStderr(marbles) }
    if configuration.stats { writeStderr(report.statsText) }
    return exitStatus
}

/// `--marbles`' width: `COLUMNS` if it is a sensible number, else 80.
func terminalColumns() -> Int {
    guard let text = getenv("COLUMNS"), let columns = Int(String(cString: text)), (20...10_000).contains(columns) else {
        return 80
    }
    return columns
}


exit(run())
