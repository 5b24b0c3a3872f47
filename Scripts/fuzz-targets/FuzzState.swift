// libFuzzer target: a `--state` file, which a person may have edited or a
// disk cut short, is read without a trap under each of the flag sets below;
// a file that loads writes back as a file that loads to the same snapshot.
// Built by Scripts/fuzz with PaceCore's sources in one module.

/// Flags lines of a keyed throttle with episodes, a keyed limit, and an
/// unkeyed throttle (the seeds are files saved under them).
private let flagSets: [StateFlags] = [
    "flags\t--throttle=1000000000ns\t--trailing=absent\t--burst=absent\t--then-every=absent"
        + "\t--resolve-after=60000000000ns\t--key-field=1\t--delimiter=absent",
    "flags\t--limit=10/1000000000ns\t--trailing=absent\t--burst=10\t--then-every=absent"
        + "\t--resolve-after=absent\t--key-field=\\x61bsent\t--delimiter=,",
    "flags\t--throttle=1000000000ns\t--trailing=absent\t--burst=absent\t--then-every=3"
        + "\t--resolve-after=absent\t--key-field=absent\t--delimiter=absent",
].map { line in
    Array(line.utf8).withUnsafeBytes { StateFlags(line: $0)! }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzState(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    for flags in flagSets {
        guard case let .success(snapshot) = StateFormat.decode(bytes, flags: flags) else { continue }
        let again = StateFormat.decode(StateFormat.encode(snapshot, flags: flags), flags: flags)
        precondition(again == .success(snapshot), "a loaded state does not load again as itself")
    }
    return 0
}
