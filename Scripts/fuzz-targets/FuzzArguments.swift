// libFuzzer target: any argv (NUL-separated in the input) gives a command or
// a usage error with a message, never a trap.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    switch parseArguments(arguments) {
    case let .failure(error): precondition(!error.message.isEmpty && error.text.hasPrefix("pace: "))
    case let .success(.run(configuration)):
        precondition(configuration.window > 0)
        if let maxWait = configuration.maxWait { precondition(maxWait >= configuration.window) }
        // --limit's and --rate's bucket: CellRate checks 0 < N <= D and B > 0.
        _ = configuration.cellRate
    case .success(.help), .success(.version): break
    }
    return 0
}
