"""A synthetic domino table: realistic frames of a game in progress with exact labels.

`render_scene(scene, style, size, seed)` draws one frame; `random_scene` and `random_style` give
the variety the dataset generator (`python -m vision.synth.dataset`) and the game film need.
Everything is deterministic from a seed.
"""

from vision.synth.scene import Frame, Hand, PlacedTile, Scene, render_scene
from vision.synth.style import Style, random_style

__all__ = ["Frame", "Hand", "PlacedTile", "Scene", "Style", "random_style", "render_scene"]
