"""This process's memory as Linux counts it in /proc/self/status.

The peak is read as `VmHWM`, not `resource.getrusage(...).ru_maxrss`: Linux carries `ru_maxrss`
over from the parent process, so a benchmark run from a large test runner would report the
runner's peak. Linux only.
"""

from __future__ import annotations

import re


def status_bytes(field: str) -> int:
    """A memory figure of this process from /proc/self/status (`VmRSS`, `VmHWM`), in bytes."""
    with open("/proc/self/status") as status:
        found = re.search(rf"^{field}:\s+(\d+) kB", status.read(), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"/proc/self/status has no {field} line")
    return int(found[1]) * 1024
