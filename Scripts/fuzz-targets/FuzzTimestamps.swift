// libFuzzer target: every timestamp format over every line of the input
// (lines in sequence, so year inference sees a history) never traps, and a
// parsed line's content offset stays inside the line.

private let formats: [TimeFormat] = {
    var list: [TimeFormat] = [.auto, .unix, .unixMs, .unixUs, .unixNs, .iso8601, .syslog, .clf, .offset, .record]
    for source in ["%Y-%m-%d %H:%M:%S,%f", "[%a %b %d %H:%M:%S %Y]", "%y%m%d %H%M%S", "%b %e %H:%M:%S",
                   "%Y%m%d-%H:%M:%S:%L", "%s", "[%m.%d %H:%M:%S]", "%d/%b/%Y:%H:%M:%S %z", "%H:%M:%S%%"] {
        if case let .success(pattern) = TimePattern.compile(source) { list.append(.pattern(pattern)) }
    }
    return list
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimestamps(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    for (i, format) in formats.enumerated() {
        var reader = TimestampReader(format: format, timeField: 1 + i % 3, defaultYear: 2026)
        for line in lines {
            let raw = UnsafeRawBufferPointer(rebasing: line)
            if case let .time(_, start) = reader.read(raw) { precondition(start >= 0 && start <= raw.count) }
        }
    }
    _ = TimePattern.compile(String(decoding: bytes, as: UTF8.self))
    return 0
}
