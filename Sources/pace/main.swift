// pace's executable: arguments, file descriptors, signals, exit codes.
// Everything else lives in PaceCore, where it can be tested without a process.

import Glibc
import PaceCore

/// Exit codes, as SPEC fixes them.
enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2

    /// A terminating signal's: 128 + its number (SIGINT 130, SIGTERM 143,
    /// SIGHUP 129, SIGQUIT 131), as a shell reports a process it killed.
    static func signalled(_ number: Int32) -> Int32 { 128 + number }
}

/// Writes a message, help or version text whole. Failures are ignored:
/// there is nowhere left to report them.
func write(_ text: String, to fd: Int32) {
    var text = text
    text.withUTF8 { try? writeAll(fd: fd, UnsafeRawBufferPointer($0), target: fd == 1 ? "stdout" : "stderr") }
}

func writeStderr(_ text: String) { write(text, to: 2) }

/// Writes help or version text to stdout; a write error is an error here
/// too (SPEC): `pace: stdout: <error>`, exit 1. A reader that went away
/// (`pace --help | head -1`) is the quiet end it always is.
func writeStdout(_ text: String) -> Int32 {
    let failure: OutputError? = Array(text.utf8).withUnsafeBytes { bytes in
        do throws(OutputError) {
            try writeAll(fd: 1, bytes, target: "stdout")
            return nil
        } catch {
            return error
        }
    }
    switch failure {
    case nil, .brokenPipe?:
        return ExitCode.success
    case let .failed(target, code)?:
        writeStderr("pace: \(target): \(errorText(code))\n")
        return ExitCode.failure
    case .interrupted?:
        return ExitCode.signalled(Signals.pendingTermination())
    }
}

/// Writes bytes to stderr whole (a message that quotes a file name).
func writeStderr(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { try? writeAll(fd: 2, $0, target: "stderr") }
}

func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

// MARK: - Main

func currentUTCYear() -> Int {
    civilYear(of: Instant(nanoseconds: Int64(time(nil)) * 1_000_000_000))
}

// MARK: - Standard descriptors

/// Makes sure fds 0, 1 and 2 are open, as careful Unix tools do: a program
/// started with one of them closed would otherwise get it back from its next
/// open(2), and the `--record` file would become stdout or stderr. A closed
/// one gets /dev/null in the mode it cannot be used in (write-only for
/// stdin, read-only for the others), so that using it still fails as a
/// closed descriptor does: `pace: stdout: Bad file descriptor` (as
/// `seq 3 >&-` says), while messages to a closed stderr go nowhere.
func occupyStandardDescriptors() {
    for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) < 0 && errno == EBADF {
        let null = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_NOCTTY)
        if null >= 0 && null != fd {
            dup2(null, fd)
            close(null)
        }
    }
}

func run() -> Int32 {
    // First of all (see PaceCore/Platform/Linux.swift): from here until the
    // run begins, a terminating signal ends pace at once with 128 + N.
    Signals.install()
    occupyStandardDescriptors()
    guard let arguments = argumentBytes() else {
        writeStderr("pace: cannot read the command line (is /proc mounted?)\n")
        return ExitCode.failure
    }
    let command: Command
    switch parseArguments(bytes: arguments) {
    case let .success(parsed): command = parsed
    case let .failure(error):
        writeStderr(error.bytes)
        return ExitCode.usage
    }
    let configuration: Configuration
    switch command {
    case .help:
        return writeStdout(helpText())
    case .version:
        return writeStdout(versionText())
    case let .run(parsed):
        configuration = parsed
    }

    let inputFD: Int32
    switch openInput(configuration.inputPath) {
    case let .success(fd): inputFD = fd
    case let .failure(error):
        writeStderr(error.bytes)
        return ExitCode.usage
    }
    if let error = inputIsStdout(inputFD, path: configuration.inputPath) {
        writeStderr(error.bytes)
        return ExitCode.usage
    }
    var outputs: [OutputFile] = []
    if let path = configuration.recordPath { outputs.append(OutputFile(flag: "--record", path: path)) }
    if let path = configuration.droppedPath { outputs.append(OutputFile(flag: "--dropped", path: path)) }
    // The --metrics file is checked as the others are, then replaced whole
    // at each write (a new file renamed over it): its descriptor is not kept.
    if let path = configuration.metricsPath { outputs.append(OutputFile(flag: "--metrics", path: path, reopened: true)) }
    // --state: checked, locked and read before any output file is created
    // or truncated, so a refused FILE leaves every file as it was.
    var stateKeeper: StateKeeper?
    if let state = configuration.state {
        if let error = checkStateFile(state.path, input: inputFD, outputs: outputs) {
            writeStderr(error.bytes)
            return ExitCode.usage
        }
        switch StateKeeper.open(state.path, flags: StateFlags(configuration, keyFieldText: state.keyFieldText),
                                keys: KeyExtractor(configuration.keyField, delimiter: configuration.delimiter),
                                interval: stateSaveInterval(), reportsTiming: getenv("PACE_STATE_TIMING") != nil) {
        case let .success(keeper): stateKeeper = keeper
        case let .failure(error):
            writeStderr(error.bytes)
            return ExitCode.usage
        }
    }
    let outputFDs: [Int32]
    switch openOutputs(outputs, input: inputFD) {
    case let .success(fds): outputFDs = fds
    case let .failure(error):
        writeStderr(error.bytes)
        return ExitCode.usage
    }
    let recordFD = configuration.recordPath == nil ? nil : outputFDs.first
    let droppedFD = configuration.droppedPath == nil ? nil : outputFDs[configuration.recordPath == nil ? 0 : 1]
    if configuration.metricsPath != nil, let metricsFD = outputFDs.last, metricsFD >= 0 { close(metricsFD) }

    // `--exec`: Ctrl-Z stops the commands with pace.
    if configuration.exec != nil { Signals.stopCommandsWithPace() }
    // The handled signals are blocked from here on, except while pace waits.
    Signals.beginRun()
    var input = LineReader(fd: inputFD)
    let report: RunReport
    if configuration.replay {
        report = runReplay(configuration, defaultYear: currentUTCYear(), input: &input, outputFD: 1,
                           droppedFD: droppedFD, traceFD: 2, columns: terminalColumns(),
                           pipeCapacity: outputPipeCapacity(), signals: .process)
    } else {
        // With --exec pace writes nothing to stdout (its commands do): a
        // reader of stdout going away does not end it.
        var clock = SystemLiveClock(inputFD: inputFD, outputFD: configuration.exec == nil ? 1 : -1)
        report = runLive(configuration, clock: &clock, input: &input, outputFD: 1, recordFD: recordFD,
                         droppedFD: droppedFD, state: stateKeeper, signals: .process)
    }

    var status: Int32
    switch report.end {
    case .endOfInput, .brokenPipe:
        status = ExitCode.success
    case let .badTime(line, why):
        writeStderr("pace: line \(line): \(why)\n")
        status = ExitCode.failure
    case let .signal(number):
        status = ExitCode.signalled(number)
    case let .inputFailed(code):
        writeStderr(Array("pace: ".utf8) + (configuration.inputPath ?? Array("stdin".utf8))
                    + Array(": \(errorText(code))\n".utf8))
        status = ExitCode.failure
    case let .outputFailed(target, code):
        sayFailed(target, code, configuration)
        status = ExitCode.failure
    }
    // After a second signal, whose status the run keeps.
    if case let .outputFailed(target, code)? = report.alsoFailed { sayFailed(target, code, configuration) }
    // SPEC's precedence: a signal's 130 or 143, then 1 (any error, a command
    // that could not start included), then 123 (a command failed).
    if status == ExitCode.success { status = report.commandStatus }
    if let unwritten = report.linesNotWritten {
        // With --exec, lines are run, not written: those a second signal
        // left unrun (SPEC: how many lines it did not write or run).
        let what = configuration.exec == nil ? "written" : "run"
        writeStderr("pace: interrupted: \(unwritten) line\(unwritten == 1 ? "" : "s") not \(what)\n")
    }
    for file in report.filesNotWritten {
        let lines = file.lines
        writeStderr(Array("pace: interrupted: \(lines) line\(lines == 1 ? "" : "s") not written to ".utf8)
                    + targetName(file.name, configuration) + [0x0A])
    }
    // A signal wins over every other ending (SPEC: 130 or 143, then 1), also
    // one that came during the last writes, or after the reader had gone.
    let signal = Signals.pendingTermination()
    let exitStatus = signal == 0 ? status : ExitCode.signalled(signal)
    if let marbles = report.marbles { writeStderr(marbles) }
    if configuration.stats { writeStderr(report.statsText) }
    return exitStatus
}

/// `pace: FILE: <error>` for an output that failed.
func sayFailed(_ target: String, _ code: Int32, _ configuration: Configuration) {
    writeStderr(Array("pace: ".utf8) + targetName(target, configuration) + Array(": \(errorText(code))\n".utf8))
}

/// The file an output error names: the runtime names its targets as text,
/// so the record and dropped files' own bytes are put back here.
func targetName(_ target: String, _ configuration: Configuration) -> [UInt8] {
    if let path = configuration.recordPath, target == String(decoding: path, as: UTF8.self) { return path }
    if let path = configuration.droppedPath, target == String(decoding: path, as: UTF8.self) { return path }
    if let path = configuration.state?.path, target == String(decoding: path, as: UTF8.self) { return path }
    if let path = configuration.metricsPath, target == String(decoding: path, as: UTF8.self) { return path }
    return Array(target.utf8)
}

/// How often `--state` saves while the run goes on: once a minute (SPEC),
/// or, for tests only, `PACE_STATE_INTERVAL` (a duration such as `100ms`).
func stateSaveInterval() -> Nanoseconds {
    guard let text = getenv("PACE_STATE_INTERVAL"), case let .success(ns) = parseDuration(String(cString: text)),
          ns > 0 else {
        return StateKeeper.defaultInterval
    }
    return Nanoseconds(ns)
}

/// The capacity replay asks of a pipe as stdout: 1 MiB, or, for tests and
/// benchmarks, `PACE_PIPE_SIZE` (bytes; 0 leaves the pipe as it is).
func outputPipeCapacity() -> Int {
    guard let text = getenv("PACE_PIPE_SIZE"), let bytes = Int(String(cString: text)), bytes >= 0 else {
        return OutputPipe.wantedCapacity
    }
    return bytes
}

/// `--marbles`' width: `COLUMNS` if it is a sensible number, else 80.
func terminalColumns() -> Int {
    guard let text = getenv("COLUMNS"), let columns = Int(String(cString: text)), (20...10_000).contains(columns) else {
        return 80
    }
    return columns
}


exit(run())
