// The shell completions held to the flag table (and to the named time formats
// and --on-bad-time actions): bash's is run, not just read, as bash is always
// at hand; zsh's and fish's are read, and run or parsed only where zsh and
// fish are installed (.ci/run installs fish where it can).

import Foundation
import Testing
@testable import PaceCore

// MARK: - Asking the completions

/// What the bash completion offers for `pace <words>`, the last word being
/// the one under the cursor. The words are given as bash would split them:
/// `--flag=value` with '=' a word break (the default) is `--flag` `=` `value`.
private func bashCompletions(_ words: [String]) throws -> [String] {
    let script = #"""
        source "$0" || exit 1
        COMP_WORDS=(pace "$@")
        COMP_CWORD=$#
        COMPREPLY=()
        _pace
        (( ${#COMPREPLY[@]} == 0 )) || printf '%s\n' "${COMPREPLY[@]}"
        """#
    let result = try run(bash, ["-c", script, Document.bashCompletion.path] + words)
    guard result.status == 0 else { throw ToolFailure(result.output) }
    return result.output.split(separator: "\n").map(String.init)
}

/// What the fish completion offers for the command line `line` (the cursor at
/// its end), each candidate without its description.
private func fishCompletions(_ line: String) throws -> [String] {
    let script = #"source $argv[1]; or exit 1; complete -C $argv[2]"#
    let result = try run(fish!, ["--no-config", "-c", script, Document.fishCompletion.path, line])
    guard result.status == 0 else { throw ToolFailure(result.output) }
    return result.output.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
}

/// The fish completion's `complete -c pace` lines, each as its words.
private func fishCompleteLines(_ text: String) -> [[Substring]] {
    text.split(separator: "\n").filter { $0.hasPrefix("complete -c pace ") }
        .map { $0.split(separator: " ") }
}

private struct ToolFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Tests

extension DocumentationTests {
    @Test("the bash completion offers every flag name", arguments: allFlagNames)
    func bashCompletesFlag(_ name: String) throws {
        let offered = try bashCompletions(["-"])
        #expect(offered.contains(name), "bash offers \(offered) for 'pace -'")
    }

    @Test("the bash completion offers the time formats and bad-time actions, as --flag value and --flag=value",
          arguments: [("--time-format", timeFormatNames), ("--on-bad-time", badTimeActions)])
    func bashCompletesValues(_ flag: String, _ values: [String]) throws {
        // `--flag value`, then `--flag=` with '=' a word break, then without.
        #expect(try bashCompletions(["--debounce", "1s", flag, ""]) == values)
        #expect(try bashCompletions(["--debounce", "1s", flag, "="]) == values)
        #expect(try bashCompletions(["--debounce", "1s", "\(flag)="]) == values.map { "\(flag)=\($0)" })
    }

    @Test("bash and fish do not offer --time-field with --time-format record, which the binary refuses")
    func recordTakesNoTimeField() throws {
        let withoutRecord = timeFormatNames.filter { $0 != "record" }
        #expect(try bashCompletions(["--debounce", "1s", "--replay", "--time-field", "2", "--time-format", ""]) == withoutRecord)
        #expect(!(try bashCompletions(["--debounce", "1s", "--replay", "--time-format", "record", "--time-"])).contains("--time-field"))
        #expect(!(try bashCompletions(["--debounce", "1s", "--replay", "--time-format=record", "--time-"])).contains("--time-field"))
        #expect(try bashCompletions(["--debounce", "1s", "--replay", "--time-format", "unix", "--time-"]) == ["--time-field"])
        guard fish != nil else { return }
        #expect(try fishCompletions("pace --debounce 1s --replay --time-field 2 --time-format ").sorted() == withoutRecord.sorted())
        #expect(!(try fishCompletions("pace --debounce 1s --replay --time-format record --time-")).contains("--time-field"))
        #expect(try fishCompletions("pace --debounce 1s --replay --time-format unix --time-") == ["--time-field"])
    }

    @Test("the bash completion offers files for FILE and --record")
    func bashCompletesFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pace-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("events log.txt").path
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        let partial = dir.appendingPathComponent("events").path
        #expect(try bashCompletions(["--debounce", "1s", partial]) == [file])
        #expect(try bashCompletions(["--debounce", "1s", "--record", partial]) == [file])
        #expect(try bashCompletions(["--debounce", "1s", "--record", "=", partial]) == [file])
        #expect(try bashCompletions(["--debounce", "1s", "--record=\(partial)"]) == ["--record=\(file)"])
    }

    @Test("the zsh completion has a spec for every flag name", arguments: allFlagNames)
    func zshCompletesFlag(_ name: String) throws {
        // A spec is the name followed by `[description]`, or by `=` (the value
        // in the same word or the next) when the flag takes one; inside a
        // brace expansion, by `,` or `}`. Exclusion lists do not count.
        let flag = try #require(flagTable.first { $0.names.contains(name) })
        let followers = flag.value == nil ? "[,}" : "="
        #expect(mentions(try Document.zshCompletion.text(), name, followedBy: followers),
                "no spec for '\(name)' in \(Document.zshCompletion.rawValue)")
    }

    @Test("the zsh completion offers the time formats and bad-time actions")
    func zshCompletesValues() throws {
        let text = try Document.zshCompletion.text()
        for value in timeFormatNames + badTimeActions {
            let listed = text.contains("'\(value):")
            #expect(listed, "no '\(value):description' entry in \(Document.zshCompletion.rawValue)")
        }
    }

    @Test("the fish completion has a line for every flag name, taking a value iff the flag does",
          arguments: allFlagNames)
    func fishCompletesFlag(_ name: String) throws {
        let flag = try #require(flagTable.first { $0.names.contains(name) })
        let option: [Substring] = name.hasPrefix("--") ? ["-l", Substring(name.dropFirst(2))] : ["-s", Substring(name.dropFirst())]
        let lines = fishCompleteLines(try Document.fishCompletion.text())
            .filter { words in words.indices.dropLast().contains { words[$0] == option[0] && words[$0 + 1] == option[1] } }
        try #require(lines.count == 1, "\(lines.count) 'complete -c pace \(option.joined(separator: " "))' lines")
        let takesValue = lines[0].contains("-r") || lines[0].contains("-x")
        #expect(takesValue == (flag.value != nil), "\(name): -r/-x is \(takesValue), the flag's value is \(flag.value ?? "none")")
    }

    @Test("the fish completion offers the time formats and bad-time actions, as --flag value and --flag=value",
          .enabled(if: fish != nil, "fish is not installed"),
          arguments: [("--time-format", timeFormatNames), ("--on-bad-time", badTimeActions)])
    func fishCompletesValues(_ flag: String, _ values: [String]) throws {
        #expect(try fishCompletions("pace --debounce 1s --replay \(flag) ").sorted() == values.sorted())
        #expect(try fishCompletions("pace --debounce 1s --replay \(flag)=").sorted() == values.map { "\(flag)=\($0)" }.sorted())
        // A replay-only flag is offered only once --replay is given.
        #expect(try fishCompletions("pace --debounce 1s --").contains(flag) == false)
        #expect(try fishCompletions("pace --debounce 1s --replay --").contains(flag))
    }

    @Test("the fish completion offers every flag after a policy, and units after a number",
          .enabled(if: fish != nil, "fish is not installed"))
    func fishCompletesFlagsAndUnits() throws {
        let offered = Set(try fishCompletions("pace --"))
        let policies = flagTable.filter { $0.section == .policy }.flatMap(\.names)
        #expect(Set(policies).isSubset(of: offered), "fish offers \(offered.sorted()) for 'pace --'")
        #expect(try fishCompletions("pace --debounce 1") == ["1h", "1m", "1ms", "1ns", "1s", "1us"])
        #expect(try fishCompletions("pace --limit=5/").sorted() == ["--limit=5/h", "--limit=5/m", "--limit=5/ms", "--limit=5/ns",
                                                                     "--limit=5/s", "--limit=5/us"])
        // One policy only.
        #expect(!(try fishCompletions("pace --debounce 1s --")).contains("--leading"))
    }

    @Test("fish parses the fish completion", .enabled(if: fish != nil, "fish is not installed"))
    func fishSyntax() throws {
        let result = try run(fish!, ["--no-config", "-n", Document.fishCompletion.path])
        #expect(result.status == 0 && result.output.isEmpty, "fish -n: \(result.output)")
    }

    @Test("zsh parses the zsh completion", .enabled(if: zsh != nil, "zsh is not installed"))
    func zshSyntax() throws {
        let result = try run(zsh!, ["-n", Document.zshCompletion.path])
        #expect(result.status == 0 && result.output.isEmpty, "zsh -n: \(result.output)")
    }
}
