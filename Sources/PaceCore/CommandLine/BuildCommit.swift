// The commit pace was built from, for `--version`, when the build knew it.
// Package.swift cannot run git, and a plain `swift build` must work from any
// checkout (or none), so the commit comes in only through the scripts that
// build what people install: Scripts/install (and Scripts/package, through
// it) writes BuildCommit.generated.swift beside this file (never tracked: see
// .gitignore), builds with `-DPACE_BUILD_COMMIT`, and removes it again. A
// build without that define does not read the file, even a stale one left
// behind, and `--version` names no commit.

#if PACE_BUILD_COMMIT
package let buildCommit: String? = generatedBuildCommit
#else
package let buildCommit: String? = nil
#endif

/// `--version`'s text: `pace 0.1.0 (commit abc1234)`, or `pace 0.1.0` when
/// the commit is unknown.
package func versionText(version: String = paceVersion, commit: String? = buildCommit) -> String {
    guard let commit else { return "pace \(version)\n" }
    return "pace \(version) (commit \(commit))\n"
}
