"""The engine's purity is the spine of the design: these checks keep it from eroding.

The import-linter contracts in pyproject.toml (run by `make lint`) keep dependencies one way
between packages. These tests add what import-linter cannot see: the engine, its table side and
its club never read the wall clock (time comes in as an argument), importing all of them loads
no edge library, and the contract that lists the engine's modules lists every one of them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFEREE = ROOT / "referee"
ENGINE_MODULES = sorted(path for room in ("", "table", "club") for path in (REFEREE / room).glob("*.py"))
EDGE_PACKAGES = {"cv2", "numpy", "serial", "paho", "gpiozero", "vision", "firmware_bridge", "cobs", "crc",
                 "aiohttp"}
CLOCK_MODULES = {"time", "datetime"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_engine_modules_never_read_the_wall_clock() -> None:
    offenders = {module_name(p): sorted(imported_roots(p) & CLOCK_MODULES) for p in ENGINE_MODULES}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_importing_the_whole_engine_loads_no_edge_library() -> None:
    names = ", ".join(module_name(p) for p in ENGINE_MODULES)
    code = (
        f"import sys, importlib\n"
        f"for name in '{names}'.split(', '): importlib.import_module(name)\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({sorted(EDGE_PACKAGES)!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]"


def test_the_engine_contract_lists_every_engine_module() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    engine = next(c for c in contracts["contracts"] if c["name"].startswith("The engine"))
    expected = {module_name(p) for p in REFEREE.glob("*.py") if p.name != "__init__.py"}
    expected |= {"referee.table", "referee.club"}
    assert set(engine["source_modules"]) == expected
    assert {"referee.app", "vision", "firmware_bridge"} <= set(engine["forbidden_modules"])
