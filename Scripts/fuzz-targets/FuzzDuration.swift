// libFuzzer target: the duration parser never traps, and what it accepts is
// a non-negative nanosecond count. Built by Scripts/fuzz with PaceCore's
// sources in one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDuration(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    if case let .success(ns) = parseDuration(text) { precondition(ns >= 0) }
    let (result, end) = scanDuration(bytes)
    precondition(end >= 0 && end <= size)
    if case let .success(ns) = result { precondition(ns >= 0) }
    if case let .time(_, length) = parseOffset(bytes, from: 0) { precondition(length <= size) }
    return 0
}
