// libFuzzer target: any argv (NUL-separated in the input, as bytes that
// need not be UTF-8) gives a command or a usage error with a message, never
// a trap. A command's windows are positive and a max-wait is no shorter
// than its debounce; a --limit's or --rate's bucket is checked where it is
// made (CellRate traps on 0 < N <= D or B > 0 broken).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { Array($0) }
    switch parseArguments(bytes: arguments) {
    case let .failure(error):
        precondition(!error.messageBytes.isEmpty && error.bytes.starts(with: Array("pace: ".utf8)))
    case let .success(.run(configuration)):
        switch configuration.policy {
        case let .debounce(window, maxWait):
            precondition(window.count > 0)
            if let maxWait { precondition(maxWait >= window) }
        case let .leading(window), let .leadingTrailing(window), let .throttle(window), let .throttleLast(window):
            precondition(window.count > 0)
        case .limit, .rate:
            break
        }
    case .success(.help), .success(.version):
        break
    }
    return 0
}
