"""Fit the tile reader on harvested crops, calibrate it, export it to ONNX with its manifest.

    python -m vision.train [--out vision/models] [--images 1000] [--epochs 6] [--jobs 2]

Tables `FIRST_SEED` .. `FIRST_SEED + images - 1` are rendered and harvested (`harvest`); the last
`VALIDATION_SHARE` of them are held out to fit the temperature and report the validation
figures. Every figure the run produces goes into the manifest beside the model.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import platform
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
from torch.nn import functional as F

from vision.crops import CROP_HEIGHT, CROP_WIDTH, normalised
from vision.progress import progress
from vision.tilenet import (
    BACK,
    FACE_UP,
    GATE_FILE,
    GATE_MAX_NOT_A_TILE,
    GATE_OUTPUTS,
    KINDS,
    MANIFEST_FILE,
    MAX_PIPS,
    MODEL_DIR,
    MODEL_FILE,
    NOT_A_TILE,
    OUTPUTS,
    TileNet,
    file_digest,
)
from vision.train.harvest import Harvest, Render, harvest_seed
from vision.train.net import TileGateNet, TileReaderNet, augment, normalise

FIRST_SEED = 1_000_000  # training tables: far from every seed a benchmark or test reads
VALIDATION_SHARE = 0.1
GEOMETRY_WEIGHT = 2.0  # the geometry loss's weight beside the classification losses
NEGATIVES_PER_TILE = 2.0  # crops of no tile an epoch sees per crop of a tile (a fresh draw each epoch)
MANIFEST_FORMAT = "domino-tilenet-manifest"


def render_table(seed: int, size: tuple[int, int]) -> Any:
    """Training table `seed`: even seeds from the dataset's renderer, odd ones from the widened
    renderer (textured and cluttered tables, sets of every colour and size, poor webcams)."""
    from vision.synth.dataset import render_example
    from vision.synth.widened import render_widened

    return render_example(seed, size) if seed % 2 == 0 else render_widened(seed, size)


def harvest(seeds: Sequence[int], jobs: int, render: Render = render_table) -> Harvest:
    work = partial(harvest_seed, render=render)
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            parts = list(progress(pool.imap(work, seeds, chunksize=4), total=len(seeds), what="tables"))
    else:
        parts = [work(seed) for seed in progress(seeds, total=len(seeds), what="tables")]
    return Harvest.concatenate(parts)


def _tensors(data: Harvest, index: np.ndarray) -> tuple[torch.Tensor, ...]:
    return (
        torch.from_numpy(data.crops[index]),
        torch.from_numpy(data.kind[index].astype(np.int64)),
        torch.from_numpy(data.top[index].astype(np.int64)),
        torch.from_numpy(data.bottom[index].astype(np.int64)),
        torch.from_numpy(data.geometry[index]),
        torch.from_numpy(data.has_geometry[index]),
    )


def losses(
    model: TileReaderNet,
    x: torch.Tensor,
    kind: torch.Tensor,
    top: torch.Tensor,
    bottom: torch.Tensor,
    geometry: torch.Tensor,
    has_geometry: torch.Tensor,
) -> torch.Tensor:
    kind_logits, top_logits, bottom_logits, geometry_out = model(normalise(x))
    loss = F.cross_entropy(kind_logits, kind)
    face_up = kind == FACE_UP
    if face_up.any():
        loss = loss + 0.5 * (
            F.cross_entropy(top_logits[face_up], top[face_up])
            + F.cross_entropy(bottom_logits[face_up], bottom[face_up])
        )
    if has_geometry.any():
        loss = loss + GEOMETRY_WEIGHT * F.smooth_l1_loss(
            geometry_out[has_geometry], geometry[has_geometry], beta=0.05
        )
    return loss


def train(
    data: Harvest,
    train_index: np.ndarray,
    *,
    epochs: int,
    batch: int = 256,
    lr: float = 3e-3,
    seed: int = 0,
    max_steps: int | None = None,
) -> tuple[TileReaderNet, TileGateNet]:
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model, gate = TileReaderNet(), TileGateNet()
    # Most proposals are no tile (every pip row and seam gives a bar): each epoch sees every tile
    # and a fresh sample of the rest.
    negatives = train_index[data.kind[train_index] == NOT_A_TILE]
    positives = train_index[data.kind[train_index] != NOT_A_TILE]
    per_epoch = min(len(negatives), round(NEGATIVES_PER_TILE * len(positives)))
    steps_per_epoch = math.ceil((len(positives) + per_epoch) / batch)
    total = epochs * steps_per_epoch if max_steps is None else min(max_steps, epochs * steps_per_epoch)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=total)
    gate_optimiser = torch.optim.AdamW(gate.parameters(), lr=lr, weight_decay=1e-4)
    gate_schedule = torch.optim.lr_scheduler.OneCycleLR(gate_optimiser, max_lr=lr, total_steps=total)
    model.train()
    gate.train()
    step = 0
    ticks = iter(progress(range(total), total=total, what="steps"))
    epoch_number = 0
    while step < total:
        epoch_number += 1
        running: list[float] = []
        drawn = torch.randperm(len(negatives), generator=generator)[:per_epoch].numpy()
        epoch = np.concatenate([positives, negatives[drawn]])
        epoch = epoch[torch.randperm(len(epoch), generator=generator).numpy()]
        for start in range(0, len(epoch), batch):
            if step >= total:
                break
            pick = np.sort(epoch[start : start + batch])
            x, kind, top, bottom, geometry, has_geometry = _tensors(data, pick)
            x, top, bottom, geometry = augment(x.float(), top, bottom, geometry, generator)
            loss = losses(model, x, kind, top, bottom, geometry, has_geometry)
            running.append(float(loss.detach()))
            optimiser.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimiser.step()
            schedule.step()
            gate_loss = F.cross_entropy(gate(normalise(x)), kind)
            gate_optimiser.zero_grad()
            gate_loss.backward()  # type: ignore[no-untyped-call]
            gate_optimiser.step()
            gate_schedule.step()
            step += 1
            next(ticks, None)
        print(
            f"epoch {epoch_number}: {step}/{total} steps, mean loss {np.mean(running):.4f}",
            file=sys.stderr,
            flush=True,
        )
    model.eval()
    gate.eval()
    return model, gate


def _logits(model: TileReaderNet, crops: np.ndarray) -> list[np.ndarray]:
    outs: list[list[np.ndarray]] = [[], [], [], []]
    with torch.no_grad():
        for start in range(0, len(crops), 1024):
            x = torch.from_numpy(normalised(crops[start : start + 1024]))
            for i, out in enumerate(model(x)):
                outs[i].append(out.numpy())
    return [np.concatenate(o) if o[0].size else np.zeros((0,)) for o in outs]


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The temperature minimising the negative log-likelihood of `labels` (a grid, then a finer one)."""

    def nll(t: float) -> float:
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return float(-log_p[np.arange(len(labels)), labels].mean())

    grid = np.exp(np.linspace(math.log(0.3), math.log(5.0), 41))
    best = min(grid, key=nll)
    fine = best * np.exp(np.linspace(-0.08, 0.08, 17))
    return float(min(fine, key=nll))


def expected_calibration_error(confidence: np.ndarray, correct: np.ndarray, bins: int = 10) -> float:
    edges = np.linspace(0, 1, bins + 1)
    error = 0.0
    for low, high in itertools.pairwise(edges):
        inside = (confidence > low) & (confidence <= high)
        if inside.any():
            error += inside.mean() * abs(float(correct[inside].mean()) - float(confidence[inside].mean()))
    return float(error)


def validate(model: TileReaderNet, data: Harvest, index: np.ndarray) -> tuple[float, dict[str, Any]]:
    kind_logits, top_logits, bottom_logits, geometry = _logits(model, data.crops[index])
    kind, top, bottom = data.kind[index].astype(np.int64), data.top[index], data.bottom[index]
    temperature = fit_temperature(kind_logits, kind)
    z = kind_logits / temperature
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    predicted = p.argmax(axis=1)
    face_up = kind == FACE_UP
    pips_right = (top_logits.argmax(1) == top) & (bottom_logits.argmax(1) == bottom)
    has = data.has_geometry[index]
    figures = {
        "crops": len(index),
        "kind_accuracy": round(float((predicted == kind).mean()), 5),
        "face_up_recall": round(float((predicted[face_up] == FACE_UP).mean()), 5),
        "face_up_precision": round(float((kind[predicted == FACE_UP] == FACE_UP).mean()), 5),
        "back_recall": round(float((predicted[kind == BACK] == BACK).mean()), 5)
        if (kind == BACK).any()
        else None,
        "pips_exact_on_face_up": round(float(pips_right[face_up].mean()), 5),
        "geometry_mean_abs_error": [
            round(float(v), 4) for v in np.abs(geometry[has] - data.geometry[index][has]).mean(0)
        ],
        "kind_ece": round(expected_calibration_error(p.max(1), predicted == kind), 4),
    }
    return temperature, figures


def export(model: torch.nn.Module, path: Path, outputs: Sequence[str]) -> Path:
    example = torch.zeros(2, 3, CROP_HEIGHT, CROP_WIDTH)
    torch.onnx.export(
        model,
        (example,),
        str(path),
        dynamo=False,
        opset_version=13,
        input_names=["crops"],
        output_names=list(outputs),
        dynamic_axes={"crops": {0: "n"}, **{o: {0: "n"} for o in outputs}},
    )
    return path


def check_export(model: torch.nn.Module, path: Path, outputs: Sequence[str], crops: np.ndarray) -> float:
    """Largest difference between torch and OpenCV's reading of the exported file."""
    net = cv2.dnn.readNetFromONNX(str(path))
    x = normalised(crops)
    net.setInput(x)
    ours = net.forward(list(outputs))
    with torch.no_grad():
        theirs = model(torch.from_numpy(x))
    if isinstance(theirs, torch.Tensor):
        theirs = (theirs,)
    return float(
        max(
            np.abs(np.asarray(a).reshape(b.shape) - b.numpy()).max()
            for a, b in zip(ours, theirs, strict=True)
        )
    )


def validate_gate(gate: TileGateNet, data: Harvest, index: np.ndarray) -> dict[str, Any]:
    """How many tiles the gate lets through at `GATE_MAX_NOT_A_TILE`, and how many of the rest."""
    with torch.no_grad():
        logits = np.concatenate(
            [
                gate(torch.from_numpy(normalised(data.crops[index[i : i + 1024]]))).numpy()
                for i in range(0, len(index), 1024)
            ]
        )
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    passed = p[:, NOT_A_TILE] < GATE_MAX_NOT_A_TILE
    kind = data.kind[index]
    return {
        "threshold": GATE_MAX_NOT_A_TILE,
        "face_up_passed": round(float(passed[kind == FACE_UP].mean()), 5),
        "back_passed": round(float(passed[kind == BACK].mean()), 5) if (kind == BACK).any() else None,
        "not_a_tile_passed": round(float(passed[kind == NOT_A_TILE].mean()), 5),
    }


def _file_entry(path: Path) -> dict[str, Any]:
    return {"model": path.name, "sha256": file_digest(path), "bytes": path.stat().st_size}


def cached(files: Sequence[Path], seeds: Sequence[int]) -> Harvest:
    """The crops of `seeds` from earlier harvests saved in `files` (each any set of tables)."""
    data = Harvest.concatenate(Harvest.load(str(path)) for path in files)
    wanted = np.isin(data.image, np.asarray(seeds))
    missing = sorted(set(seeds) - set(np.unique(data.image[wanted]).tolist()))
    if missing:
        raise SystemExit(f"the cached harvests {[str(f) for f in files]} lack {len(missing)} tables "
                         f"(first: seed {missing[0]}); harvest again without --data")
    return Harvest(*(getattr(data, name)[wanted] for name in vars(data)))


def run(
    out: Path,
    *,
    images: int,
    epochs: int,
    jobs: int,
    first_seed: int = FIRST_SEED,
    max_steps: int | None = None,
    data_files: Sequence[Path] = (),
) -> dict[str, Any]:
    started = time.time()
    torch.set_num_threads(max(1, jobs))
    seeds = list(range(first_seed, first_seed + images))
    if data_files and all(path.exists() for path in data_files):
        data = cached(data_files, seeds)
    else:
        data = harvest(seeds, jobs)
        if len(data_files) == 1:
            data.save(str(data_files[0]))
    harvested = time.time() - started
    split = first_seed + images - max(1, round(images * VALIDATION_SHARE))
    train_index = np.nonzero(data.image < split)[0]
    valid_index = np.nonzero(data.image >= split)[0]
    model, gate = train(data, train_index, epochs=epochs, max_steps=max_steps)
    temperature, figures = validate(model, data, valid_index)
    gate_figures = validate_gate(gate, data, valid_index)
    out.mkdir(parents=True, exist_ok=True)
    path = export(model, out / MODEL_FILE, OUTPUTS)
    gate_path = export(gate, out / GATE_FILE, GATE_OUTPUTS)
    sample = data.crops[valid_index[:64]]
    difference = max(
        check_export(model, path, OUTPUTS, sample), check_export(gate, gate_path, GATE_OUTPUTS, sample)
    )
    counts = {name: int((data.kind == i).sum()) for i, name in enumerate(KINDS)}
    manifest = {
        "format": MANIFEST_FORMAT,
        "version": 1,
        **_file_entry(path),
        "gate": {
            **_file_entry(gate_path),
            "parameters": int(sum(p.numel() for p in gate.parameters())),
            "validation": gate_figures,
        },
        "input": [3, CROP_HEIGHT, CROP_WIDTH],
        "outputs": list(OUTPUTS),
        "kinds": list(KINDS),
        "max_pips": MAX_PIPS,
        "temperature": round(temperature, 4),
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "training": {
            "renderer": "even seeds: vision.synth.dataset.render_example; odd: vision.synth.widened",
            "first_seed": first_seed,
            "images": images,
            "validation_images": first_seed + images - split,
            "crops": counts,
            "epochs": epochs,
            "max_steps": max_steps,
            "torch": torch.__version__,
            "opencv": cv2.__version__,
            "python": platform.python_version(),
            "harvest_seconds": round(harvested),
            "total_seconds": round(time.time() - started),
        },
        "validation": figures,
        "opencv_max_difference": difference,
    }
    (out / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n")
    TileNet(out)  # the exported pair must load as the reader loads it
    return manifest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=MODEL_DIR, help="folder for the model and its manifest")
    parser.add_argument("--images", type=int, default=1000, help="rendered tables to harvest (default 1000)")
    parser.add_argument("--epochs", type=int, default=6, help="passes over the crops of tiles (default 6)")
    parser.add_argument("--jobs", type=int, default=2, help="processes for harvesting, threads for training")
    parser.add_argument("--first-seed", type=int, default=FIRST_SEED)
    parser.add_argument(
        "--max-steps", type=int, default=None, help="stop after this many steps (a smoke run)"
    )
    parser.add_argument(
        "--data", type=Path, nargs="*", default=(),
        help="one .npz: cache the harvest there (reused if present); several: reuse their crops",
    )
    args = parser.parse_args(argv)
    if args.images < 2 or args.epochs < 1:
        parser.error("--images must be >= 2 and --epochs >= 1")
    manifest = run(
        args.out,
        images=args.images,
        epochs=args.epochs,
        jobs=args.jobs,
        first_seed=args.first_seed,
        max_steps=args.max_steps,
        data_files=args.data,
    )
    print(
        json.dumps(
            {
                "validation": manifest["validation"],
                "temperature": manifest["temperature"],
                "bytes": manifest["bytes"],
                "seconds": manifest["training"]["total_seconds"],
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
