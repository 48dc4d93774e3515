"""The networks in PyTorch, and the augmentations they are trained with.

`TileReaderNet`, the tile reader: input float32 (N, 3, CROP_HEIGHT, CROP_WIDTH) from
`vision.crops.normalised` (here `normalise`, the same sums in torch); four outputs named as
`vision.tilenet.OUTPUTS`. About 0.3 M weights and 10 M multiply-adds a crop.

`TileFinderNet`, the finder: a small encoder-decoder over a whole image (any size, sides
multiples of `vision.finder.ALIGN`), as `vision.finder.level_input` makes it; two outputs named
as `vision.finder.OUTPUTS`, at a quarter of the input's size. About 0.17 M weights and
2,400 multiply-adds an input pixel.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from vision.crops import GEOMETRY_SIZE
from vision.finder import GEOMETRY_CHANNELS, HEAT_CHANNELS
from vision.tilenet import KINDS, MAX_PIPS

READER_WIDTHS = (24, 40, 72, 96)  # the reader's four convolutions, input side first
READER_SQUEEZE = 32  # channels of the 1x1 convolution before the dense layer
READER_DENSE = 192  # units of the dense layer the four outputs share


def _block(cin: int, cout: int, stride: int = 1, dilation: int = 1, kernel: int = 3) -> list[nn.Module]:
    return [
        nn.Conv2d(cin, cout, kernel, stride=stride, padding=dilation * (kernel // 2), dilation=dilation,
                  bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    ]


class TileReaderNet(nn.Module):
    """Four convolutions, then a 1x1 squeeze before the dense layer. Most of the weights sit in
    the dense layer (it sees where on the tile each feature is, which tells the halves apart), so
    the squeeze lets the convolutions widen (more pip and face looks) while the file stays small:
    widths (16, 24, 48, 64) without it read 2311 tiles right on widened tuning tables 10000-10299
    and 2137 on 10300-10599 (told one set), these 2324 and 2147 (docs/vision-design.md)."""

    def __init__(
        self, widths: tuple[int, int, int, int] = READER_WIDTHS, squeeze: int = READER_SQUEEZE,
        hidden: int = READER_DENSE,
    ) -> None:
        super().__init__()
        first, second, third, fourth = widths
        self.features = nn.Sequential(
            *_block(3, first, stride=2),  # 64x32 -> 32x16: a pip is still 2-3 px
            *_block(first, second),
            nn.MaxPool2d(2),  # -> 16x8
            *_block(second, third),
            nn.MaxPool2d(2),  # -> 8x4
            *_block(third, fourth),
            *_block(fourth, squeeze, kernel=1),
        )
        self.hidden = nn.Sequential(
            nn.Flatten(), nn.Linear(squeeze * 8 * 4, hidden), nn.ReLU(inplace=True), nn.Dropout(0.2)
        )
        self.kind = nn.Linear(hidden, len(KINDS))
        self.top = nn.Linear(hidden, MAX_PIPS + 1)
        self.bottom = nn.Linear(hidden, MAX_PIPS + 1)
        self.geometry = nn.Linear(hidden, GEOMETRY_SIZE)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        h = self.hidden(self.features(x))
        return self.kind(h), self.top(h), self.bottom(h), self.geometry(h)


class TileFinderNet(nn.Module):
    """Four halvings (the last with dilated convolutions: it sees about 200 input px around a
    cell, enough for a tile 100 px long), then back up to a quarter of the input's size, each
    step adding the encoder's own features of that size (a feature pyramid)."""

    def __init__(self, widths: tuple[int, int, int, int] = (16, 24, 48, 64)) -> None:
        super().__init__()
        half, quarter, eighth, sixteenth = widths
        self.down2 = nn.Sequential(*_block(3, half, stride=2))
        self.down4 = nn.Sequential(*_block(half, quarter, stride=2), *_block(quarter, quarter))
        self.down8 = nn.Sequential(*_block(quarter, eighth, stride=2), *_block(eighth, eighth))
        self.down16 = nn.Sequential(
            *_block(eighth, sixteenth, stride=2),
            *_block(sixteenth, sixteenth, dilation=2),
            *_block(sixteenth, sixteenth, dilation=2),
        )
        self.lateral8 = nn.Conv2d(sixteenth, eighth, 1)
        self.up8 = nn.Sequential(*_block(eighth, eighth))
        self.lateral4 = nn.Conv2d(eighth, quarter, 1)
        self.up4 = nn.Sequential(*_block(quarter, quarter))
        self.heat = nn.Conv2d(quarter, HEAT_CHANNELS, 1)
        self.geometry = nn.Conv2d(quarter, GEOMETRY_CHANNELS, 1)
        # Centres are rare: start every cell at a probability of 0.1, not 0.5 (as CenterNet does),
        # so the first steps are not spent unlearning a sea of false centres.
        assert self.heat.bias is not None
        nn.init.constant_(self.heat.bias, -2.19)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        at4 = self.down4(self.down2(x))
        at8 = self.down8(at4)
        at16 = self.down16(at8)
        at8 = self.up8(at8 + F.interpolate(self.lateral8(at16), scale_factor=2.0, mode="nearest"))
        at4 = self.up4(at4 + F.interpolate(self.lateral4(at8), scale_factor=2.0, mode="nearest"))
        return self.heat(at4), self.geometry(at4)


def normalise(batch: torch.Tensor) -> torch.Tensor:
    """uint8 (N, H, W, 3) -> float (N, 3, H, W), as `vision.crops.normalised` does it; a view
    of the (N, H, W, 3) result, so stored channels-last, as the fits want it, without a copy."""
    x = batch.float()
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    std = x.std(dim=(1, 2, 3), keepdim=True, unbiased=False).clamp_min(8.0)
    return ((x - mean) / std).permute(0, 3, 1, 2)


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
