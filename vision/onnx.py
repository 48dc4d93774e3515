"""Running the shipped networks: one place that says what runs them, and how.

Two runtimes can run the ONNX files in `vision/models`; `Network` hides which:

- **ONNX Runtime** (`RUNTIME_ONNXRUNTIME`), when the `onnxruntime` package is installed (the
  optional `fast` extra: `pip install 'domino-referee[fast]'`; wheels for x86-64 and 64-bit ARM,
  a Raspberry Pi 4 or 5 on a 64-bit OS among them). On one core of the AMD EPYC (Zen 3, AVX2) of
  2026-12-07 it ran the finder's 768-px top level in 24 ms against OpenCV's 42-54, and the reader's
  62 crops in 20-22 against 42-48; a whole 1080p read of the benchmark's real-photo frame took 168
  ms against 263, the same tiles read (`python -m benchmarks.vision_runtimes` runs both in turn).
- **OpenCV's `cv2.dnn`** (`RUNTIME_OPENCV`) otherwise: nothing beyond OpenCV and NumPy, on any
  machine OpenCV installs on (a 32-bit Pi OS too, for which ONNX Runtime publishes no wheel).

`DOMINO_VISION_RUNTIME` (`RUNTIME_VARIABLE`) = `onnxruntime` or `opencv` chooses one; unset, ONNX
Runtime is used when it is installed, as gpiozero picks the pin library it finds. Both compute in
float32 and answer within float rounding of each other (a test bounds the difference).

Threads: both take OpenCV's thread count (`cv2.setNumThreads`, all cores unless set) when a
network is loaded: the benchmarks set one thread first and time one core. ONNX Runtime's idle
threads sleep rather than spin, so that a read does not take the cores the tracker needs. Its
sessions do not survive a fork (a child that inherits one hangs on first use): the project's
worker pools spawn their processes (`vision.progress.worker_pool`), each loading its own.

Two facts about OpenCV 5's `cv2.dnn` on one core, measured on the benchmark's 1080p photo frame
(`python -m benchmarks.vision_speed`; the figures in the README):

- It has two inference engines and picks the new one unless told otherwise. The classic engine
  (`ENGINE`) runs both of ours faster, answering within float rounding of the new one (3e-5 at
  most): the finder's top level in 28 ms instead of 32, the reader's 62 crops in 13 instead of 15.
- A network given an input of another shape than its last sets itself up again, and that costs
  about as much as the answer at a small shape: the finder's four pyramid levels, run one after
  another through one network, took 44-51 ms; through one network each, 40. So `Network` can keep
  a network per input shape (`SHAPES_KEPT` at most, the least recently used going first): a fixed
  camera's frames have the same levels every time. Not for the reader, whose batches change size
  with every look: setting up again (under 1 ms) is cheaper than reading the model anew (3.5 ms).
  ONNX Runtime needs none of this: one session answers every shape.

Every network here runs through `Network`, the training script's export check included, so the
figures it validates are the runtime's.
"""

from __future__ import annotations

import importlib.util
import os
from collections import OrderedDict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import VisionError

RUNTIME_ONNXRUNTIME = "onnxruntime"
RUNTIME_OPENCV = "opencv"
RUNTIMES = (RUNTIME_ONNXRUNTIME, RUNTIME_OPENCV)
RUNTIME_VARIABLE = "DOMINO_VISION_RUNTIME"  # chooses the runtime; unset: ONNX Runtime if installed

ENGINE = cv2.dnn.ENGINE_CLASSIC  # see the module's docstring
# Input shapes with a network of their own: a pyramid's levels (at most 4 for any image,
# `vision.finder.levels`) and a calibrated level, with room to spare. Each network holds its
# shape's buffers: a 12 MP read's peak memory grew from 157 to 166 MB with a network per level.
SHAPES_KEPT = 8


def onnxruntime_installed() -> bool:
    return importlib.util.find_spec("onnxruntime") is not None


def chosen_runtime() -> str:
    """The runtime `DOMINO_VISION_RUNTIME` names, else ONNX Runtime if installed, else OpenCV.

    Raises `VisionError` for a value that names no runtime, or ONNX Runtime when it is not
    installed: a setting that cannot be honoured is not quietly ignored."""
    named = os.environ.get(RUNTIME_VARIABLE, "").strip().lower()
    if not named:
        return RUNTIME_ONNXRUNTIME if onnxruntime_installed() else RUNTIME_OPENCV
    if named not in RUNTIMES:
        raise VisionError(f"{RUNTIME_VARIABLE}={named!r} names no runtime: use one of {', '.join(RUNTIMES)}")
    if named == RUNTIME_ONNXRUNTIME and not onnxruntime_installed():
        raise VisionError(f"{RUNTIME_VARIABLE}={named!r}, but the onnxruntime package is not installed: "
                          "pip install 'domino-referee[fast]', or unset it to use OpenCV")
    return named


class Network:
    """The ONNX model at `path` with outputs `outputs`, run by `runtime` (default:
    `chosen_runtime()`); under OpenCV by one network, or by a network of its own for each input
    shape when `per_shape`.

    Raises `VisionError` naming `what` (say, "tile finder") when the file cannot be read as a
    network."""

    def __init__(self, path: Path, what: str, outputs: tuple[str, ...], *, per_shape: bool = False,
                 runtime: str | None = None) -> None:
        self.path, self.what, self.outputs, self.per_shape = path, what, list(outputs), per_shape
        self.runtime = runtime or chosen_runtime()
        if self.runtime not in RUNTIMES:
            raise VisionError(f"runtime {self.runtime!r} names no runtime: use one of {', '.join(RUNTIMES)}")
        self.nets: OrderedDict[tuple[int, ...], cv2.dnn.Net] = OrderedDict()
        self.session: Any = None  # onnxruntime.InferenceSession
        self.input_name = ""
        self._unused: cv2.dnn.Net | None = None
        # Read now, so that a file that is no network fails here and not at the first frame;
        # the first shape run gets it.
        if self.runtime == RUNTIME_OPENCV:
            self._unused = self._read()
        else:
            self.session = self._session()
            self.input_name = self.session.get_inputs()[0].name

    def _read(self) -> cv2.dnn.Net:
        try:
            # From the file: the in-memory overload ignores `engine` and runs the new engine.
            return cv2.dnn.readNetFromONNX(str(self.path), engine=ENGINE)
        except (OSError, ValueError, cv2.error) as error:
            raise VisionError(f"cannot load the {self.what} from {self.path}: {error}") from error

    def _session(self) -> Any:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, cv2.getNumThreads())
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # errors only: its warnings are about graph rewrites
        try:
            return onnxruntime.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # its errors are pybind classes of its own, not a public hierarchy
            raise VisionError(f"cannot load the {self.what} from {self.path}: {error}") from error

    def _net(self, shape: tuple[int, ...]) -> cv2.dnn.Net:
        """The network for inputs of `shape` (one for every shape unless `per_shape`)."""
        key = shape if self.per_shape else ()
        if key in self.nets:
            self.nets.move_to_end(key)
            return self.nets[key]
        net, self._unused = self._unused or self._read(), None
        self.nets[key] = net
        while len(self.nets) > SHAPES_KEPT:
            self.nets.popitem(last=False)
        return net

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        """The outputs, in `outputs`' order, for float32 input `x`."""
        if self.runtime == RUNTIME_ONNXRUNTIME:
            return [np.asarray(out) for out in self.session.run(self.outputs, {self.input_name: x})]
        net = self._net(tuple(x.shape))
        net.setInput(x)
        return [np.asarray(out) for out in net.forward(self.outputs)]
