"""The loghub samples: third-party research logs kept in the shared folder
beside the repository (../shared/data/loghub), or wherever LOGHUB_DIR says.
They are read in place, never copied into this repository."""

import os

from bench.build import ROOT


def directory(given=None):
    """The samples' folder: `given` if any, else $LOGHUB_DIR, else
    ../shared/data/loghub beside the repository."""
    return given or os.environ.get("LOGHUB_DIR") or os.path.join(ROOT, "..", "shared", "data", "loghub")


def lines(path):
    """The sample's lines that are not blank, without their line ends, as
    text (bytes that are not UTF-8 kept as surrogate escapes, so writing them
    back gives the same bytes)."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f.read().split("\n"):
            if line.strip():
                yield line.rstrip("\r")
