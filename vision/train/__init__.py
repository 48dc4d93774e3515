"""Training the tile reader (`vision.tilenet`): harvest labelled crops from `vision.synth`
(`harvest`), fit the network with PyTorch (`net`, `fit`), export it to ONNX with its manifest.

    python -m vision.train --out vision/models          (what `make model` runs)

Needs the optional `train` extra (`pip install -e '.[train]'`): the runtime reads the exported
model with OpenCV alone.
"""
