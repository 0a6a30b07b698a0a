"""The camera-view renderer: labelled synthetic photographs of every game, for training.

No photographs of these games exist and no weights can be downloaded, so the detectors
learn from renders: a legal position from a rules engine, laid out with the game's
printable kit (:mod:`vision.artwork`) on a procedurally made table or patch of ground,
seen by a random camera under random light, with hands reaching in, and written as an
ultralytics dataset with ground truth in the engines' own JSON. docs/rendering.md says
what varies and how the labels are made.

>>> from vision.render import Renderer
>>> r = Renderer("wormholes", seed=1)
>>> out = r.render(0)
>>> out.image.shape, out.truth["game"]
((480, 640, 3), 'wormholes')
"""

from __future__ import annotations

from vision.render.camera import Camera, CameraRanges, sample_camera
from vision.render.effects import Look, develop, sample_look
from vision.render.renderer import HAND_CLASS, SIZES, Label, Rendered, Renderer, RenderOptions, View
from vision.render.scene import Drawn, Environment, Hand, PieceLabel, Placement, ScenePlan

__all__ = [
    "Camera",
    "CameraRanges",
    "sample_camera",
    "Look",
    "develop",
    "sample_look",
    "Renderer",
    "RenderOptions",
    "Rendered",
    "Label",
    "View",
    "SIZES",
    "HAND_CLASS",
    "Drawn",
    "Environment",
    "Hand",
    "PieceLabel",
    "Placement",
    "ScenePlan",
]
