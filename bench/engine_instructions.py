"""Machine instructions a random Spades hand costs, this tree against a git revision, in one run.

Usage: python bench/engine_instructions.py [--rev REV] [--hands N]

bench/engine.py's own loop (`bench_ours`) runs under valgrind's callgrind for this checkout and
for REV (default: df8724e, the engines before the template of docs/architecture.md), each
checked out into a temporary git worktree. Callgrind counts instructions, not seconds, so the
figure is the same on a busy machine as on a quiet one (the hash seed is fixed); a run of one
hand is subtracted to leave out the imports. Needs valgrind and git.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# bench/engine.py imports pyspiel at the top; bench_ours does not need it.
PROGRAM = """
import importlib.util, sys, types
sys.path.insert(0, ".")
sys.modules["pyspiel"] = types.ModuleType("pyspiel")
spec = importlib.util.spec_from_file_location("engine_bench", "bench/engine.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
bench.bench_ours({hands}, 1)
"""


def instructions(tree: Path, hands: int) -> int:
    out = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            PROGRAM.format(hands=hands),
        ],
        cwd=tree,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no total:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def per_hand(tree: Path, hands: int) -> float:
    return (instructions(tree, hands) - instructions(tree, 1)) / (hands - 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="df8724e", help="the revision to compare with (default df8724e)")
    parser.add_argument("--hands", type=int, default=300, help="hands per run (default 300)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "rev"
        subprocess.run(["git", "worktree", "add", "--detach", str(old), args.rev], cwd=ROOT, check=True)
        try:
            theirs = per_hand(old, args.hands)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=True)
    ours = per_hand(ROOT, args.hands)
    for name, figure in ((args.rev, theirs), ("this tree", ours)):
        print(f"{name:>12}: {figure:12,.0f} instructions a hand")
    print(f"ratio:         {theirs / ours:12.3f} (above 1: this tree is cheaper)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
