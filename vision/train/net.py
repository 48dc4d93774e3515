"""The tile reader's network in PyTorch, and the augmentations it is trained with.

Input float32 (N, 3, CROP_HEIGHT, CROP_WIDTH) from `vision.crops.normalised` (here `normalise`,
the same sums in torch); four outputs named as `vision.tilenet.OUTPUTS`. About 0.3 M weights and
4 M multiply-adds a crop; the gate (`TileGateNet`) about 0.45 M.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from vision.crops import GEOMETRY_SIZE
from vision.tilenet import KINDS, MAX_PIPS


def _block(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
    return [
        nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    ]


class TileReaderNet(nn.Module):
    def __init__(self, hidden: int = 128) -> None:
        super().__init__()
        self.features = nn.Sequential(
            *_block(3, 16, stride=2),  # 64x32 -> 32x16: a pip is still 2-3 px
            *_block(16, 24),
            nn.MaxPool2d(2),  # -> 16x8
            *_block(24, 48),
            nn.MaxPool2d(2),  # -> 8x4
            *_block(48, 64),
        )
        self.hidden = nn.Sequential(
            nn.Flatten(), nn.Linear(64 * 8 * 4, hidden), nn.ReLU(inplace=True), nn.Dropout(0.2)
        )
        self.kind = nn.Linear(hidden, len(KINDS))
        self.top = nn.Linear(hidden, MAX_PIPS + 1)
        self.bottom = nn.Linear(hidden, MAX_PIPS + 1)
        self.geometry = nn.Linear(hidden, GEOMETRY_SIZE)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        h = self.hidden(self.features(x))
        return self.kind(h), self.top(h), self.bottom(h), self.geometry(h)


class TileGateNet(nn.Module):
    """The gate: a tenth of the reader's cost, it only tells crops that hold no tile (most
    proposals) from the rest, on the same input averaged down to half size."""

    def __init__(self, hidden: int = 32) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.AvgPool2d(2),  # 64x32 -> 32x16
            *_block(3, 8),
            nn.MaxPool2d(2),  # -> 16x8
            *_block(8, 16),
            nn.MaxPool2d(2),  # -> 8x4
            *_block(16, 32),
        )
        self.hidden = nn.Sequential(nn.Flatten(), nn.Linear(32 * 8 * 4, hidden), nn.ReLU(inplace=True))
        self.kind = nn.Linear(hidden, len(KINDS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.kind(self.hidden(self.features(x)))  # type: ignore[no-any-return]


def normalise(batch: torch.Tensor) -> torch.Tensor:
    """uint8 (N, H, W, 3) -> float (N, 3, H, W), as `vision.crops.normalised` does it."""
    x = batch.float()
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    std = x.std(dim=(1, 2, 3), keepdim=True, unbiased=False).clamp_min(8.0)
    return ((x - mean) / std).permute(0, 3, 1, 2).contiguous()


def augment(
    x: torch.Tensor,
    top: torch.Tensor,
    bottom: torch.Tensor,
    geometry: torch.Tensor,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Random looks the renderer may not give, on float (N, H, W, 3) 0..255 crops, with labels
    moved to match: a crop turned half round or mirrored is still a tile, with its halves (and
    geometry) swapped or mirrored; channels shuffled give sets and tables in other colours;
    an inverted crop is a black set's; gamma, gain, noise, blur and lost resolution are lamps
    and webcams."""
    n = x.shape[0]

    def pick(p: float) -> torch.Tensor:
        return torch.rand(n, generator=generator) < p

    top, bottom, geometry = top.clone(), bottom.clone(), geometry.clone()
    flip_v = pick(0.5)  # top <-> bottom: dy and the angle change sign
    x[flip_v] = x[flip_v].flip(1)
    top[flip_v], bottom[flip_v] = bottom[flip_v].clone(), top[flip_v].clone()
    geometry[flip_v, 1] *= -1
    geometry[flip_v, 4] *= -1
    flip_h = pick(0.5)  # mirrored across: dx and the angle change sign
    x[flip_h] = x[flip_h].flip(2)
    geometry[flip_h, 0] *= -1
    geometry[flip_h, 4] *= -1
    shuffle = pick(0.5)
    if shuffle.any():
        order = torch.stack([torch.randperm(3, generator=generator) for _ in range(int(shuffle.sum()))])
        picked = x[shuffle]
        x[shuffle] = torch.gather(picked, 3, order[:, None, None, :].expand_as(picked))
    invert = pick(0.1)
    x[invert] = 255.0 - x[invert]
    gamma = torch.exp(torch.randn(n, 1, 1, 1, generator=generator) * 0.25)
    gain = 1.0 + torch.randn(n, 1, 1, 3, generator=generator) * 0.08
    x = (255.0 * (x / 255.0).clamp(0, 1) ** gamma * gain).clamp(0, 255)
    blur = pick(0.2)
    if blur.any():
        kernel = torch.ones(3, 1, 3, 3) / 9.0
        part = x[blur].permute(0, 3, 1, 2)
        x[blur] = F.conv2d(F.pad(part, (1, 1, 1, 1), mode="replicate"), kernel, groups=3).permute(0, 2, 3, 1)
    low = pick(0.15)
    if low.any():
        part = x[low].permute(0, 3, 1, 2)
        small = F.interpolate(part, scale_factor=0.5, mode="area")
        x[low] = F.interpolate(small, size=part.shape[2:], mode="bilinear", align_corners=False).permute(
            0, 2, 3, 1
        )
    noise = torch.rand(n, 1, 1, 1, generator=generator) * 8.0
    x = (x + torch.randn(x.shape, generator=generator) * noise).clamp(0, 255)
    return x, top, bottom, geometry
