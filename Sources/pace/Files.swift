// File names, from argv to open(2): the input and the files pace writes.
// Names are bytes throughout (a name need not be UTF-8), and every check
// SPEC makes on them is a usage error, made before anything is written.

import Glibc
import PaceCore

/// The arguments, each the bytes of its `argv` string: not
/// `CommandLine.arguments`, whose Strings replace bytes that are not UTF-8,
/// so that a file named `\xff.log` could never be opened. Nil when there is
/// no command line at all: the Swift runtime finds it on Linux through
/// /proc/self/maps, so without /proc it sees none (not even argv[0]).
func argumentBytes() -> [[UInt8]]? {
    guard CommandLine.argc > 0 else { return nil }
    return (1..<Int(CommandLine.argc)).map { i in
        let argument = CommandLine.unsafeArgv[i]!
        return Array(UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
    }
}

/// open(2) on a file name given as bytes. An open that waits (a FIFO's,
/// for the other end) and is interrupted by a signal that lets pace go on
/// (SIGUSR1's summary) is made again; the signals that end pace end it.
func open(path: [UInt8], _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    let name = cPath(path)
    while true {
        let fd = open(name, flags, mode)
        if fd >= 0 || errno != EINTR { return fd }
    }
}

/// A path's bytes as the C string a system call takes.
func cPath(_ path: [UInt8]) -> [CChar] { path.map { CChar(bitPattern: $0) } + [0] }

/// `<path>: <why>`, the path's bytes as given.
func pathError(_ path: [UInt8], _ code: Int32) -> UsageError {
    UsageError(bytes: path + Array(": \(errorText(code))".utf8))
}

/// Opens the input; a FILE that cannot be read is a usage error (SPEC).
func openInput(_ path: [UInt8]?) -> Result<Int32, UsageError> {
    guard let path else { return .success(0) }
    let fd = openInputFile(path)
    if fd < 0 { return .failure(pathError(path, errno)) }
    var info = stat()
    if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
        close(fd)
        return .failure(pathError(path, EISDIR))
    }
    return .success(fd)
}

/// The input, when it is stdout's regular file too (`pace x >> x`): pace
/// would read the lines it writes, without end, as `cat x >> x` would, which
/// cat refuses. A usage error (CHOICES); a terminal or pipe on both ends
/// is not refused.
func inputIsStdout(_ input: Int32, path: [UInt8]?) -> UsageError? {
    var info = stat()
    guard fstat(input, &info) == 0, let read = FileIdentity(regular: info),
          fstat(1, &info) == 0, FileIdentity(regular: info) == read else { return nil }
    let name = path.map { Array("input file '".utf8) + $0 + Array("'".utf8) } ?? Array("input".utf8)
    return UsageError(bytes: Array("the ".utf8) + name + Array(" is stdout's file (pace would read the lines it writes)".utf8))
}

// MARK: - Output files

/// A file pace creates or truncates (`--record`, `--dropped`): the
/// flag that names it, for messages, and its name.
struct OutputFile {
    let flag: String
    let path: [UInt8]
    /// Written anew at each write (`--metrics`), not through a descriptor
    /// kept from here: a FIFO there is not opened now (the open would wait
    /// for a reader, and the close give that reader its end of file).
    var reopened = false
}

/// Opens `outputs` for writing, each created or truncated, and returns their
/// descriptors in order. One that is the input, stdout's or stderr's file,
/// or another of them (same device and inode: a hard link or a symlink
/// counts), is a usage error (SPEC; stderr's, CHOICES):
/// `pace --record app.log app.log` would empty the file it
/// reads, and in `pace --dropped o > o` two descriptors would write one
/// file, each at its own offset, over the other's lines.
/// Only regular files are compared: writing to the terminal pace reads, or
/// `--record /dev/null` with /dev/null as input, destroys nothing.
/// Each is opened without O_TRUNC and checked first; only when all pass are
/// they truncated, so a refused command line leaves every file as it was
/// (one it made is removed again). FIFOs are opened last, as their open
/// waits for a reader: the other files' errors are said first, and the
/// FIFOs are compared with the input and each other by name before any is
/// opened. A `reopened` one that is a FIFO is not opened: its descriptor
/// is -1.
func openOutputs(_ outputs: [OutputFile], input: Int32) -> Result<[Int32], UsageError> {
    var info = stat()
    // A FIFO too: an output that is the input's FIFO feeds pace its own lines.
    let inputIdentity = fstat(input, &info) == 0 ? FileIdentity(regularOrFIFO: info) : nil
    let stdoutIdentity = fstat(1, &info) == 0 ? FileIdentity(regular: info) : nil
    let stderrIdentity = fstat(2, &info) == 0 ? FileIdentity(regular: info) : nil
    func isFIFO(_ output: OutputFile) -> Bool {
        stat(cPath(output.path), &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }
    var fds = [Int32](repeating: -1, count: outputs.count)
    var identities = [FileIdentity?](repeating: nil, count: outputs.count)
    // Regular files and FIFOs: two outputs into one FIFO mix their lines.
    var written = [FileIdentity?](repeating: nil, count: outputs.count)
    var checked: [Int] = []
    var made: [[UInt8]] = []
    func fail(_ error: UsageError) -> Result<[Int32], UsageError> {
        for fd in fds where fd >= 0 { close(fd) }
        for path in made { unlink(cPath(path)) }
        return .failure(error)
    }
    /// `'--flag' file 'NAME'` and why it is refused.
    func refuse(_ output: OutputFile, _ why: [UInt8]) -> Result<[Int32], UsageError> {
        fail(UsageError(bytes: Array("'\(output.flag)' file '".utf8) + output.path + Array("'".utf8) + why))
    }
    let fifos = outputs.indices.filter { isFIFO(outputs[$0]) }
    // The FIFOs against the input and each other by name first: the open
    // of one waits for a reader, and `--metrics`' is never opened here.
    var fifoIdentities: [(k: Int, identity: FileIdentity)] = []
    for k in fifos where stat(cPath(outputs[k].path), &info) == 0 {
        guard let identity = FileIdentity(regularOrFIFO: info) else { continue }
        if identity == inputIdentity {
            return refuse(outputs[k], Array(" is the input file (pace would read its own lines)".utf8))
        }
        if let earlier = fifoIdentities.first(where: { $0.identity == identity }) {
            return refuse(outputs[k], Array(" is also the '\(outputs[earlier.k].flag)' file".utf8))
        }
        fifoIdentities.append((k, identity))
    }
    for k in outputs.indices.filter({ !fifos.contains($0) }) + fifos {
        let output = outputs[k]
        if output.reopened && fifos.contains(k) { continue }
        // lstat: a link (a dangling one too) is the user's, never removed.
        let existed = lstat(cPath(output.path), &info) == 0
        let fd = open(path: output.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o666)
        if fd < 0 { return fail(pathError(output.path, errno)) }
        fds[k] = fd
        if !existed { made.append(output.path) }
        let identity = fstat(fd, &info) == 0 ? FileIdentity(regular: info) : nil
        let target = FileIdentity(regularOrFIFO: info)
        if let target, target == inputIdentity {
            let why = identity == nil ? "pace would read its own lines" : "pace would overwrite what it reads"
            return refuse(output, Array(" is the input file (\(why))".utf8))
        }
        if let identity, identity == stdoutIdentity {
            return refuse(output, Array(" is stdout's file (lines written to both would overwrite each other)".utf8))
        }
        // Opened anew (`/dev/stderr` too), at its own offset: pace's
        // messages and this file's lines would overwrite each other.
        if let identity, identity == stderrIdentity {
            return refuse(output, Array(" is stderr's file (messages and lines written to both would overwrite each other)".utf8))
        }
        if let target, let earlier = checked.first(where: { written[$0] == target }) {
            return refuse(output, Array(" is also the '\(outputs[earlier].flag)' file".utf8))
        }
        // `--metrics`' new file, made beside it at each write.
        if output.reopened, let code = replacementProblem(output.path) {
            return refuse(output, Array(": pace cannot make '".utf8) + replacementName(output.path)
                                      + Array("' beside it (\(errorText(code)))".utf8))
        }
        identities[k] = identity
        written[k] = target
        checked.append(k)
    }
    // O_TRUNC's work, now that no file is refused. Only a regular file has
    // anything to cut (ftruncate fails on a FIFO or a terminal, which
    // O_TRUNC leaves alone).
    for (fd, (output, identity)) in zip(fds, zip(outputs, identities)) where identity != nil {
        if ftruncate(fd, 0) != 0 { return fail(pathError(output.path, errno)) }
    }
    return .success(fds)
}

/// What makes two names the same regular file.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    /// Nil for anything but a regular file.
    init?(regular info: stat) {
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        self.init(any: info)
    }

    /// Nil for anything but a regular file or a FIFO (a pipe).
    init?(regularOrFIFO info: stat) {
        guard (info.st_mode & S_IFMT) == S_IFREG || (info.st_mode & S_IFMT) == S_IFIFO else { return nil }
        self.init(any: info)
    }

    /// Whatever the file's type (a directory's, for `FuturePlace`).
    init(any info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

// MARK: - The state file

/// `--state FILE` may not be the input, stdout's or stderr's file, or the
/// `--record`, `--dropped` or `--metrics` file (SPEC): a save renames a new file over
/// it. Nor may `FILE.tmp` (removed before each save) or `FILE.lock`, pace's
/// own names beside FILE. Checked before anything is created.
func checkStateFile(_ given: [UInt8], input: Int32, outputs: [OutputFile]) -> UsageError? {
    let quoted = Array("'--state' file '".utf8) + given + Array("'".utf8)
    // A link stands for its target, which a save replaces (a dangling one
    // for the file it will make).
    let path = StateKeeper.file(given)
    switch otherFile(named: path, or: given, input: input, outputs: outputs) {
    case .input: return UsageError(bytes: quoted + Array(" is the input file (a save would replace what pace reads)".utf8))
    case .stdout: return UsageError(bytes: quoted + Array(" is stdout's file (a save would replace the output)".utf8))
    case .stderr: return UsageError(bytes: quoted + Array(" is stderr's file (a save would replace pace's messages)".utf8))
    case let .output(flag): return UsageError(bytes: quoted + Array(" is also the '\(flag)' file".utf8))
    case nil: break
    }
    for suffix in [".tmp", ".lock"] {
        let own = path + Array(suffix.utf8)
        let clash: String
        switch otherFile(named: own, input: input, outputs: outputs) {
        case .input: clash = "the input file"
        case .stdout: clash = "stdout's file"
        case .stderr: clash = "stderr's file"
        case let .output(flag): clash = "the '\(flag)' file"
        case nil: continue
        }
        return UsageError(bytes: quoted + Array(" needs '".utf8) + own + Array("' beside it, which is \(clash)".utf8))
    }
    // A save removes what is at FILE.tmp, but cannot remove a directory:
    // said now, not when the run's first save fails.
    var info = stat()
    let temporary = path + Array(".tmp".utf8)
    if lstat(cPath(temporary), &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
        return UsageError(bytes: quoted + Array(" needs '".utf8) + temporary + Array("' beside it, which is a directory".utf8))
    }
    return nil
}

/// One of the run's other files, which a name given to `--state` may not be.
private enum OtherFile {
    case input, stdout, stderr
    case output(flag: String)
}

/// Which of the run's other files `path` (also given as `name`) is, if any:
/// by identity when it exists (the input, stdout's or stderr's file, an
/// output), by
/// name, and otherwise by where it would be made (its directory and last
/// name: `d/u`, `d/./u` and `d/../d/u` name one file), against each output
/// not made yet either (an output's dangling link makes its target).
private func otherFile(named path: [UInt8], or name: [UInt8]? = nil, input: Int32,
                       outputs: [OutputFile]) -> OtherFile? {
    var info = stat()
    let identity = stat(cPath(path), &info) == 0 ? FileIdentity(regular: info) : nil
    if let identity {
        if fstat(input, &info) == 0, FileIdentity(regular: info) == identity { return .input }
        if fstat(1, &info) == 0, FileIdentity(regular: info) == identity { return .stdout }
        if fstat(2, &info) == 0, FileIdentity(regular: info) == identity { return .stderr }
    }
    let place = identity == nil ? FuturePlace(path) : nil
    for output in outputs {
        let exists = stat(cPath(output.path), &info) == 0
        let same = output.path == path || output.path == name
            || (identity != nil && exists && FileIdentity(regular: info) == identity)
            || (place != nil && !exists && FuturePlace(StateKeeper.file(output.path)) == place)
        if same { return .output(flag: output.flag) }
    }
    return nil
}

/// Where a file that does not exist would be made: its directory (device and
/// inode) and its last name. Nil when the directory cannot be looked at, or
/// the last name is `.` or `..` (no file is made then).
struct FuturePlace: Equatable {
    let directory: FileIdentity
    let name: [UInt8]

    init?(_ path: [UInt8]) {
        let slash = UInt8(ascii: "/")
        var end = path.count
        while end > 1 && path[end - 1] == slash { end -= 1 }
        let trimmed = path[..<end]
        let directoryPath: [UInt8]
        if let cut = trimmed.lastIndex(of: slash) {
            directoryPath = cut == 0 ? [slash] : Array(trimmed[..<cut])
            name = Array(trimmed[(cut + 1)...])
        } else {
            directoryPath = [UInt8(ascii: ".")]
            name = Array(trimmed)
        }
        guard !name.isEmpty, name != [UInt8(ascii: ".")], name != Array("..".utf8) else { return nil }
        var info = stat()
        guard stat(cPath(directoryPath), &info) == 0 else { return nil }
        directory = FileIdentity(any: info)
    }
}

