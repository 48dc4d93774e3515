"""Run every benchmark module in this folder, one after the other, each in its own process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main() -> int:
    here = Path(__file__).resolve().parent
    names = sorted(p.stem for p in here.glob("*.py") if not p.stem.startswith("_"))
    failed = []
    for name in names:
        print(f"== benchmarks.{name}", flush=True)
        done = subprocess.run([sys.executable, "-m", f"benchmarks.{name}"], cwd=here.parent, check=False)
        if done.returncode != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
