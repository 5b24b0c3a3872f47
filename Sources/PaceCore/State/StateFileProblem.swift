// Why a `--state` FILE is refused, and how the refusal words it: what is
// wrong with the file (StateFormat's decode finds it) and what to do about
// it (run with the flags it was saved under, or start afresh). A usage
// error, exit 2, FILE left as it is (StateKeeper).

/// Why a state file is refused (a usage error: StateKeeper words it).
package enum StateFileProblem: Error, Equatable {
    /// Not a pace state at all.
    case foreign
    /// Not a regular file (a FIFO, a device): not read at all.
    case notRegular
    /// A pace state of another format version.
    case otherVersion
    /// A pace state cut short.
    case truncated
    /// A line that is not what the format says.
    case damaged(line: Int)
    /// A key's second entry (`line`; its first is on line `first`).
    case repeatedKey(line: Int, first: Int)
    /// Written under other flags.
    case otherFlags(saved: StateFlags, given: StateFlags)
}

/// A file saved under other flags (and the refusals' default).
let stateHint = """
    Run with the flags the file was saved under ('head -2 FILE' shows them), or remove it to start afresh.
    See 'pace --help' for more information.
    """

/// A file pace cannot read at all.
let unreadableStateHint = """
    --state FILE is read at the start, and saved over at the end.
    See 'pace --help' for more information.
    """

/// What is at a state file's name, when no state can be kept there.
enum StateFileKind: Equatable {
    case directory(Int32)
    case notRegular
    case unreachable(Int32)
}

/// A file pace cannot load whatever the flags: its own flags are no help.
private let unreadableHint = """
    A --state FILE is pace's own: move or remove this one to start afresh.
    See 'pace --help' for more information.
    """

extension StateFileProblem {
    /// What the refusal suggests: the flags the file was saved under, or,
    /// for a file no flags would load, starting afresh.
    var hint: String {
        if case .otherFlags = self { return stateHint }
        return unreadableHint
    }

    /// What a refused file's message says of it.
    var reason: String {
        switch self {
        case .foreign: " is not a pace state (its first line is not 'pace state 1')"
        case .notRegular: " is not a pace state (it is not a regular file)"
        case .otherVersion: " was saved by another version of pace (its first line is not 'pace state 1')"
        case .truncated: " is not a whole pace state (it ends before its 'end' line)"
        case let .damaged(line): " is damaged (line \(line) is not what a pace state holds)"
        case let .repeatedKey(line, first): " is damaged (line \(line) repeats the key of line \(first))"
        case let .otherFlags(saved, given):
            if let (name, here, there) = given.firstDifference(from: saved) {
                " was saved under other flags (\(name) \(there) there, \(here) here)"
            } else {
                " was saved under other flags"
            }
        }
    }
}
