// `--state` FILE given as a symbolic link (docs/CHOICES.md): the links at
// its end are followed, so the target is read, locked beside and replaced,
// the link stays, and a link dangling to where another flag's file will be
// made is refused as that file itself is. And the names pace uses beside
// FILE (FILE.tmp, removed before each save; FILE.lock) may not be the
// input or another flag's file. The real binary, real links.

import Foundation
import Glibc
import Testing

private let flags = ["--throttle", "1h", "--key-field", "1"]

@Suite("--state through symbolic links, end to end")
struct StateLinkTests {
    @Test("FILE a symbolic link: the save replaces its target and keeps the link, and the target's lock is the one held")
    func symbolicLink() throws {
        let dir = try StateDirectory()
        _ = try Pace.run(flags + ["--state", dir.state], stdin: "a 1\n")
        // A relative link, then a link to that link.
        let link = dir.url.appendingPathComponent("link.state").path
        let linkToLink = dir.url.appendingPathComponent("other.state").path
        #expect(symlink("keys.state", link) == 0)
        #expect(symlink(link, linkToLink) == 0)
        #expect(try Pace.run(flags + ["--state", linkToLink], stdin: "a 2\nb 1\n")
                == PaceResult(stdout: Array("b 1\n".utf8), stderr: "", status: 0))
        let destination = try FileManager.default.destinationOfSymbolicLink(atPath: link)
        #expect(destination == "keys.state")
        #expect(dir.text.contains("\nb\t0\twindow\t"))
        // A pace running on the target: a run given the link is refused.
        let running = try PipedPace(flags + ["--state", dir.state])
        running.write("c 1\n")
        #expect(running.readLine() == "c 1")
        #expect(try Pace.run(flags + ["--state", link], stdin: "d 1\n") == PaceResult(stdout: [], stderr: """
            pace: '--state' file '\(link)' is in use by another pace (it holds '\(dir.state).lock')
            Each running pace needs a --state file of its own.
            See 'pace --help' for more information.

            """, status: 2))
        #expect(running.finish().status == 0)
        // A link into a directory that is not there: that directory is named.
        let astray = dir.url.appendingPathComponent("astray").path
        #expect(symlink("gone/keys.state", astray) == 0)
        #expect(try Pace.run(flags + ["--state", astray], stdin: "a 1\n") == PaceResult(stdout: [], stderr: """
            pace: '--state' file '\(astray)': pace cannot write in its target's directory '\(dir.url.path)/gone' \
            (No such file or directory)
            --state FILE is saved as a new file in FILE's directory, then renamed over FILE.
            See 'pace --help' for more information.

            """, status: 2))
    }

    @Test("FILE a dangling link to where another flag's file will be made is refused, as that file is")
    func danglingLinkToAnotherFile() throws {
        let dir = try StateDirectory()
        let target = dir.url.appendingPathComponent("target").path
        let link = dir.url.appendingPathComponent("link").path
        let other = dir.url.appendingPathComponent("other").path
        #expect(symlink(target, link) == 0)
        #expect(symlink(target, other) == 0)
        for (flag, path) in [("--dropped", other), ("--dropped", target), ("--metrics", other)] {
            let result = try Pace.run(flags + ["--state", link, flag, path], stdin: "a 1\n")
            #expect(result == PaceResult(stdout: [], stderr: """
                pace: '--state' file '\(link)' is also the '\(flag)' file
                Usage: pace <policy> [<options>] [<file>]
                See 'pace --help' for more information.

                """, status: 2))
        }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("FILE.tmp or FILE.lock that is the input or another flag's file is refused, and left as it is")
    func namesBesideFile() throws {
        let dir = try StateDirectory()
        let temporary = dir.state + ".tmp"
        #expect(FileManager.default.createFile(atPath: temporary, contents: Data("a 1\n".utf8)))
        for (arguments, what, name) in [
            ([temporary], "the input file", temporary),
            (["--dropped", temporary], "the '--dropped' file", temporary),
            (["--dropped", dir.state + ".lock"], "the '--dropped' file", dir.state + ".lock"),
        ] {
            let result = try Pace.run(flags + ["--state", dir.state] + arguments, stdin: "b 1\n")
            #expect(result == PaceResult(stdout: [], stderr: """
                pace: '--state' file '\(dir.state)' needs '\(name)' beside it, which is \(what)
                Usage: pace <policy> [<options>] [<file>]
                See 'pace --help' for more information.

                """, status: 2))
            #expect(FileManager.default.contents(atPath: temporary) == Data("a 1\n".utf8))
        }
    }

    @Test("a directory as FILE, or a file where FILE's directory should be: refused for what they are, no lock made")
    func notAFile() throws {
        let dir = try StateDirectory()
        let directory = dir.url.appendingPathComponent("d").path
        #expect(mkdir(directory, 0o700) == 0)
        let result = try Pace.run(["--throttle", "1s", "--state", directory], stdin: "a\n")
        #expect(result == PaceResult(stdout: [], stderr: """
            pace: '--state' file '\(directory)': Is a directory
            --state takes a file's name (one that does not exist yet is made).
            See 'pace --help' for more information.

            """, status: 2))
        #expect(access(directory + ".lock", F_OK) != 0)
        let file = dir.url.appendingPathComponent("in.txt").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("hi\n".utf8)))
        let under = try Pace.run(["--throttle", "1s", "--state", file + "/x"], stdin: "a\n")
        #expect(under.status == 2)
        #expect(under.stderr.hasPrefix("pace: '--state' file '\(file)/x': pace cannot write in its directory (Not a directory)\n"))
    }

    @Test("a FILE that cannot be read (a loop of links): the reason, no word of flags it was saved under, no lock made")
    func unreadable() throws {
        let dir = try StateDirectory()
        let one = dir.url.appendingPathComponent("one").path, two = dir.url.appendingPathComponent("two").path
        #expect(symlink(two, one) == 0 && symlink(one, two) == 0)
        let result = try Pace.run(["--throttle", "1s", "--state", one], stdin: "a\n")
        #expect(result == PaceResult(stdout: [], stderr: """
            pace: '--state' file '\(one)': Too many levels of symbolic links
            --state FILE is read at the start, and saved over at the end.
            See 'pace --help' for more information.

            """, status: 2))
        #expect(access(one + ".lock", F_OK) != 0)
    }

    @Test("a directory at FILE.tmp, which no save can remove, is refused at the start")
    func temporaryIsADirectory() throws {
        let dir = try StateDirectory()
        #expect(mkdir(dir.state + ".tmp", 0o700) == 0)
        let result = try Pace.run(["--throttle", "1s", "--state", dir.state], stdin: "a\n")
        #expect(result == PaceResult(stdout: [], stderr: """
            pace: '--state' file '\(dir.state)' needs '\(dir.state).tmp' beside it, which is a directory
            Usage: pace <policy> [<options>] [<file>]
            See 'pace --help' for more information.

            """, status: 2))
        #expect(access(dir.state + ".lock", F_OK) != 0)
    }
}
