// Runs the built `pace` binary as a black box: arguments and stdin bytes in;
// stdout, stderr and exit status out, compared together by the tests.
// stdin, stdout and stderr are temporary files, so no pipe can fill up and
// deadlock the test while it waits for the process.

import Foundation
import Testing

struct PaceResult: Equatable, CustomStringConvertible {
    var stdout: [UInt8]
    var stderr: String
    var status: Int32

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

    var description: String {
        "status \(status)\n--- stdout\n\(stdoutText)--- stderr\n\(stderr)"
    }
}

enum Pace {
    /// The `pace` executable next to this test bundle (override: PACE_BINARY).
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["PACE_BINARY"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: Bundle.main.bundlePath).appendingPathComponent("pace")
    }

    /// Runs pace with `arguments`, feeding `stdin`.
    static func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String]? = nil,
                    executable: URL? = nil) throws -> PaceResult {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pace-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inURL = dir.appendingPathComponent("stdin")
        let outURL = dir.appendingPathComponent("stdout")
        let errURL = dir.appendingPathComponent("stderr")
        try Data(stdin).write(to: inURL)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)

        let process = Process()
        process.executableURL = executable ?? binary
        process.arguments = arguments
        if let environment { process.environment = environment }
        let input = try FileHandle(forReadingFrom: inURL)
        let output = try FileHandle(forWritingTo: outURL)
        let errors = try FileHandle(forWritingTo: errURL)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        try input.close()
        try output.close()
        try errors.close()
        return PaceResult(
            stdout: Array(try Data(contentsOf: outURL)),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
            status: process.terminationStatus)
    }

    static func run(_ arguments: [String], stdin: String) throws -> PaceResult {
        try run(arguments, stdin: Array(stdin.utf8))
    }

    /// Writes `contents` to a temporary file and returns its path.
    static func file(_ contents: [UInt8], name: String = "input") throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pace-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(contents).write(to: url)
        return url.path
    }

    /// The repository root (for the bundled examples).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}

/// The text every usage error ends with.
let usageHintTail = "Usage: pace <policy> [<options>] [<file>]\nSee 'pace --help' for more information.\n"
