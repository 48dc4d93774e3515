"""A synthetic domino table: realistic frames of a game in progress with exact labels.

`scene.render_scene(scene, style, size, seed)` draws one frame; `random_scenes.random_scene` and
`style.random_style` give
the variety the dataset generator (`python -m vision.synth.dataset`) and the game film need;
`widened.render_widened` a wider one (textured and cluttered tables, sets of every colour, poor
webcams) for training and testing a learned reader.
Everything is deterministic from a seed.
"""

# Submodules are imported by name (vision.synth.scene, .style, .film…): `vision.calibration`
# uses vision.plane, and an eager import here would make that circular.
