"""Drive jmherzog-de/domino-detection's own photo mode on one image, headless; print one JSON line.

    PEER_PYTHON benchmarks/_peer_driver.py PEER_CHECKOUT IMAGE

Run by `benchmarks.peer_detection` in the peer's own interpreter (its 2021 pins: Python 3.10,
numpy 1.21, OpenCV 4.5, PySide6 6.2), never in ours, so it imports nothing of this project and
must stay valid Python 3.10. The peer has no command line: its entry point `app.py` loads an
environment file (the one it ships is `.env_sample`, its documented defaults), opens its Qt main
window, and "Source > Photo Mode" asks for a file, then runs every filter widget once in its chain
(grey, blur, adaptive threshold, dilate, erode, contours, dividers, Hough circles, pip counting,
stone projection and joins). This does exactly that with Qt's offscreen platform, answering the
file dialog with IMAGE, then reads the stones the peer's own widgets computed. None of the peer's
code is copied here; it is imported from PEER_CHECKOUT.

Output: {"stones": [{"left", "right", "edges", "links"}], "eyes": N, "import_cpu_s",
"photo_cpu_s", "photo_wall_s"}. `left`/`right` are the peer's pip values per half (1..6, or None
where its pattern check found no valid count: it has no pattern for a blank half); `links` are
the stones it joined, by index, with its own match verdict.
"""

import json
import os
import sys
import time


def _plain(value: object) -> int | None:  # numpy scalars from the peer's arithmetic -> JSON numbers
    return None if value is None else int(value)  # type: ignore[call-overload]


def main() -> None:
    peer, image = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.chdir(peer)
    sys.path.insert(0, peer)
    started = time.process_time()
    import mainwindow
    from dotenv import load_dotenv
    from PySide6.QtWidgets import QApplication, QFileDialog

    load_dotenv(os.path.join(peer, ".env_sample"))  # what `python app.py .env_sample` loads

    class _Dialog(QFileDialog):  # type: ignore[misc]  # PySide6 is the peer's, not installed here
        @staticmethod
        def getOpenFileName(*_args: object, **_kwargs: object) -> tuple[str, str]:
            return image, ""

    mainwindow.QFileDialog = _Dialog  # the answer a person would click in Photo Mode's dialog
    app = QApplication([])
    window = mainwindow.MainWindow()
    window.show()
    import_cpu = time.process_time() - started

    started, wall = time.process_time(), time.perf_counter()
    window.action_PhotoMode.trigger()
    photo_cpu, photo_wall = time.process_time() - started, time.perf_counter() - wall

    stones = window._MainWindow__dominos  # the list its divider widget fills and the rest read
    eyes = window._MainWindow__eyes
    out = {
        "stones": [{"left": _plain(s.EyeVal_Left), "right": _plain(s.EyeVal_Right),
                    "edges": [[_plain(p.X), _plain(p.Y)] for p in s.StoneEdges],
                    "links": [{"index": int(c["index"]), "valid": bool(c["valid"])}
                              for c in s.Connected_Stones]}
                   for s in stones],
        "eyes": len(eyes),
        "import_cpu_s": round(import_cpu, 4),
        "photo_cpu_s": round(photo_cpu, 4),
        "photo_wall_s": round(photo_wall, 4),
    }
    window.close()
    app.quit()
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
