"""The engine's purity is the spine of the design: these checks keep it from eroding.

The modules directly in `referee/` (the engine, its records, clocks and table-side rules) import
only the standard library and never read the wall clock; the service in `referee/service/` and
the commands are where devices, vision and the network meet it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE_MODULES = sorted(p for p in (ROOT / "referee").glob("*.py") if p.name != "cli.py")
EDGE_PACKAGES = {"cv2", "numpy", "serial", "paho", "gpiozero", "vision", "firmware_bridge", "cobs", "crc"}
CLOCK_MODULES = {"time", "datetime"}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_engine_modules_import_no_device_vision_or_network_library() -> None:
    offenders = {p.name: sorted(imported_roots(p) & EDGE_PACKAGES) for p in ENGINE_MODULES}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_engine_modules_never_read_the_wall_clock() -> None:
    offenders = {p.name: sorted(imported_roots(p) & CLOCK_MODULES) for p in ENGINE_MODULES}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_importing_the_whole_engine_loads_no_edge_library() -> None:
    names = ", ".join(f"referee.{p.stem}" for p in ENGINE_MODULES if p.stem != "__init__")
    code = (
        f"import sys, importlib\n"
        f"for name in '{names}'.split(', '): importlib.import_module(name)\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({sorted(EDGE_PACKAGES)!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]"
