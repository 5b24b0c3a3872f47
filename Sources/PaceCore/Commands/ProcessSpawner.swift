// Starts one `/bin/sh -c CMD` for a line, as SPEC's Commands section fixes
// it: the line and `\n` on its stdin (a pipe), PACE_LINE / PACE_KEY /
// PACE_TIME / PACE_COUNT added to pace's environment, stdout and stderr
// inherited, as the leader of a process group of its own
// (POSIX_SPAWN_SETPGROUP with 0: the group's id is the shell's pid), so that
// pace's signals reach everything the command starts (the runner signals the
// group) and a terminal's Ctrl-C, Ctrl-\ or hangup reaches pace alone, which
// then stops its commands itself. posix_spawn, not fork: glibc spawns
// with a vfork-style clone, so the cost does not grow with pace's memory, and
// it reports a failed exec (no /bin/sh) as its result.
//
// The child starts with an empty signal mask (pace keeps the signals it
// handles blocked outside its waits, and a mask is inherited across exec) and
// SIGPIPE and SIGXFSZ at their default (pace ignores SIGPIPE to see EPIPE;
// an ignored signal stays ignored across exec, and a command such as
// `yes | head -1` relies on it). Signals pace found ignored when it started
// (SIGINT in a background job) stay ignored in the command too, as a shell
// leaves them; handled ones are reset to their default by exec itself.

// libc: posix_spawn and its attributes, signal sets, sysconf: the spawn
// itself is the platform's (ProcessPlatform); this prepares its arguments.
import Glibc

struct ProcessSpawner {
    /// argv: the shell, `-c`, `--`, CMD, nil; owned for the spawner's life.
    private let arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let argumentCount = 4
    /// pace's environment without PACE_LINE, PACE_KEY, PACE_TIME and
    /// PACE_COUNT (a pace run by a command of another pace must not pass on
    /// its parent's values twice), then room for those four and nil.
    private let environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let inherited: Int
    let shell: [UInt8]

    /// PACE_EVENT (`--resolve-after`) and PACE_BATCH (`--batch`) last: a
    /// command gets each only when its value is given.
    static let variables = ["PACE_LINE=", "PACE_KEY=", "PACE_TIME=", "PACE_COUNT=", "PACE_EVENT=", "PACE_BATCH="]
        .map { Array($0.utf8) }

    /// The kernel's limit for one environment string (SPEC: Commands):
    /// execve(2) fails with E2BIG when a `NAME=value` string, its NUL
    /// included, is longer than MAX_ARG_STRLEN, 32 pages: 131,072 bytes with
    /// 4 KiB pages. A longer line would make its command impossible to
    /// start, so each value is cut to fit (the line still reaches stdin
    /// whole): PACE_LINE keeps 131,072 - 10 (`PACE_LINE=`) - 1 = 131,061
    /// bytes of its line.
    static let maximumStringSize = 32 * Int(sysconf(Int32(_SC_PAGESIZE)))

    init(command: [UInt8], shell: [UInt8] = Array("/bin/sh".utf8)) {
        self.shell = shell
        func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBufferPointer { b in
                for i in 0..<b.count { p[i] = CChar(bitPattern: b[i]) }
            }
            p[bytes.count] = 0
            return p
        }
        arguments = .allocate(capacity: argumentCount + 1)
        arguments[0] = cString(shell)
        // `--`: a command that begins with `-` (`--exec -x`) is the
        // command, not one of the shell's options.
        arguments[1] = cString(Array("-c".utf8))
        arguments[2] = cString(Array("--".utf8))
        arguments[3] = cString(command)
        arguments[4] = nil

        var kept: [UnsafeMutablePointer<CChar>] = []
        var entry = environ
        while let variable = entry.pointee {
            let isOurs = Self.variables.contains { name in
                name.withUnsafeBufferPointer {
                    strncmp(variable, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), name.count) == 0
                }
            }
            if !isOurs { kept.append(strdup(variable)) }
            entry += 1
        }
        inherited = kept.count
        environment = .allocate(capacity: kept.count + Self.variables.count + 1)
        for (i, variable) in kept.enumerated() { environment[i] = variable }
        for i in kept.count...(kept.count + Self.variables.count) { environment[i] = nil }
    }

    /// Frees argv and the environment copy.
    func release() {
        for i in 0..<argumentCount { free(arguments[i]) }
        arguments.deallocate()
        for i in 0..<inherited { free(environment[i]) }
        environment.deallocate()
    }

    /// Spawns the command with `stdinFD` as its stdin (closed in pace by the
    /// caller afterwards) and `values`, one per variable (PACE_LINE's,
    /// PACE_KEY's, PACE_TIME's, PACE_COUNT's, PACE_EVENT's and PACE_BATCH's
    /// bytes, each cut at its first NUL; nil: that variable is not set).
    /// Returns the pid, or the errno of the failure.
    func spawn(stdinFD: Int32, values: [UnsafeRawBufferPointer?]) -> Result<pid_t, SpawnError> {
        precondition(values.count == Self.variables.count, "ProcessSpawner: \(values.count) values")
        // The variables given a value, each set; the others are not.
        let given = zip(Self.variables, values).compactMap { name, value in value.map { (name, $0) } }
        // One buffer for the four `NAME=value\0` strings.
        var size = 0
        for (name, value) in given { size += name.count + cut(value, name: name).count + 1 }
        let strings = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 1)
        defer { strings.deallocate() }
        var offset = 0
        for (i, (name, value)) in given.enumerated() {
            environment[inherited + i] = (strings + offset).assumingMemoryBound(to: CChar.self)
            name.withUnsafeBytes { (strings + offset).copyMemory(from: $0.baseAddress!, byteCount: name.count) }
            offset += name.count
            let value = cut(value, name: name)
            if value.count > 0 { (strings + offset).copyMemory(from: value.baseAddress!, byteCount: value.count) }
            offset += value.count
            strings.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
        defer { for i in 0..<given.count { environment[inherited + i] = nil } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if stdinFD != 0 { posix_spawn_file_actions_adddup2(&actions, stdinFD, 0) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGXFSZ)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes,
                                 Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0]!, &actions, &attributes, arguments, environment)
        if result != 0 { return .failure(SpawnError(errno: result)) }
        return .success(pid)
    }

    /// `value` up to its first NUL byte (an environment string ends there),
    /// and within the kernel's limit for one string: `name` (with its `=`),
    /// the value and the NUL in `maximumStringSize` bytes.
    private func cut(_ value: UnsafeRawBufferPointer, name: [UInt8]) -> UnsafeRawBufferPointer {
        var end = min(value.count, Self.maximumStringSize - name.count - 1)
        if let nul = value.firstIndex(of: 0), nul < end { end = nul }
        return UnsafeRawBufferPointer(rebasing: value[..<end])
    }
}

/// A command that could not be started.
package struct SpawnError: Error, Equatable, Sendable {
    package var errno: Int32
}
