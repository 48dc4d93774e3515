"""Running the shipped networks: one place that says how OpenCV runs them.

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

Every network here runs through `Network`, the training script's export check included, so the
figures it validates are the runtime's.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import cv2
import numpy as np

from vision.errors import VisionError

ENGINE = cv2.dnn.ENGINE_CLASSIC  # see the module's docstring
# Input shapes with a network of their own: a pyramid's levels (at most 4 for any image,
# `vision.finder.levels`) and a calibrated level, with room to spare. Each network holds its
# shape's buffers: a 12 MP read's peak memory grew from 157 to 166 MB with a network per level.
SHAPES_KEPT = 8


class Network:
    """The ONNX model at `path` with outputs `outputs`, run by one network, or by a network of its
    own for each input shape when `per_shape`.

    Raises `VisionError` naming `what` (say, "tile finder") when the file cannot be read as a
    network."""

    def __init__(self, path: Path, what: str, outputs: tuple[str, ...], *, per_shape: bool = False) -> None:
        self.path, self.what, self.outputs, self.per_shape = path, what, list(outputs), per_shape
        self.nets: OrderedDict[tuple[int, ...], cv2.dnn.Net] = OrderedDict()
        # Read now, so that a file that is no network fails here and not at the first frame;
        # the first shape run gets it.
        self._unused: cv2.dnn.Net | None = self._read()

    def _read(self) -> cv2.dnn.Net:
        try:
            # From the file: the in-memory overload ignores `engine` and runs the new engine.
            return cv2.dnn.readNetFromONNX(str(self.path), engine=ENGINE)
        except (OSError, ValueError, cv2.error) as error:
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
        net = self._net(tuple(x.shape))
        net.setInput(x)
        return [np.asarray(out) for out in net.forward(self.outputs)]
