// PLACEHOLDER (the live-mode issue replaces this file): live mode, the same
// Scheduler driven by the monotonic clock.

/// Runs `configuration` (live mode) over `input`.
public func runLive(_ configuration: Configuration, input: inout LineReader, inputFD: Int32, outputFD: Int32,
                    recordFD: Int32?, pendingSignal: () -> Int32) -> RunReport {
    var report = RunReport()
    report.end = .inputFailed(38) // ENOSYS
    return report
}
