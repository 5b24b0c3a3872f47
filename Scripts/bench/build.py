"""pace's release build, and the tools the baselines need (mawk, GNU time,
jq), installed with apt-get when they are missing."""

import os
import shutil
import subprocess
import sys

from bench.timing import TIME

# The repository: Scripts/bench/build.py is three levels below it.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build(scratch_path=None, static=False):
    """Builds pace in release mode and returns the binary's path."""
    command = ["swift", "build", "-c", "release", "--product", "pace"]
    if scratch_path:
        command += ["--scratch-path", scratch_path]
    if static:
        command += ["--static-swift-stdlib"]
    print("building:", " ".join(command), file=sys.stderr)
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    bin_path = subprocess.run(command + ["--show-bin-path"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    return os.path.join(bin_path, "pace")


def apt_get_install(packages):
    """apt-get install, through sudo unless this is root; raises on failure."""
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run(sudo + ["apt-get", "install", "-y", *packages], check=True, stdout=subprocess.DEVNULL)


def ensure_tools():
    """mawk (the baseline) and GNU time (peak RSS), installed if missing."""
    missing = [package for package, present in [("mawk", shutil.which("mawk")), ("time", os.path.exists(TIME))]
               if not present]
    if not missing:
        return
    print(f"installing {' '.join(missing)} with apt-get", file=sys.stderr)
    apt_get_install(missing)


def ensure_jq():
    """jq, for the JSON row: installed with apt-get if missing; None (the
    row is skipped) when that fails."""
    if shutil.which("jq"):
        return shutil.which("jq")
    print("installing jq with apt-get", file=sys.stderr)
    try:
        apt_get_install(["jq"])
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"could not install jq ({error}): the jq row is skipped", file=sys.stderr)
        return None
    return shutil.which("jq")
