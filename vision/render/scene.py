"""What a camera view shows, as data: pieces placed on the table, the board, hands, the room.

Scene adapters (:mod:`vision.render.scenes`) turn a game position into :class:`Placement`
values; the compositor (:mod:`vision.render.compose`) draws them. Positions on the table
are millimetres in the world frame of :mod:`vision.render.camera` (``x`` right and ``y``
down the printed board, heights above the table as positive ``z`` here: the compositor
turns them into the camera frame's negative ``z``).

>>> p = Placement(kind="borg-stone", x=10.0, y=20.0, key="B1", label=PieceLabel(cls="borg-stone"))
>>> p.rotation, p.z, p.face
(0.0, 0.0, 'top')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["PieceLabel", "Placement", "Drawn", "Hand", "Environment", "ScenePlan"]


@dataclass(frozen=True)
class PieceLabel:
    """What the ground truth says about a placed piece.

    ``cls``: the detection class; ``piece``: the engine's id when it names pieces (``B3``,
    ``suns``, ``R2``); ``side``: the owner; ``cell``: the engine's own label of the cell or
    point (``"0712"``, ``"3,4"``, ``"c5"``, ``{"x": 4.5, "y": 11.5}``); ``board``: the
    piece's centre in board units as placed (with the player's sloppiness); ``extra``:
    anything else the game wants to record (aspect, level, stack position, die value).
    """

    cls: str
    piece: str | None = None
    side: str | None = None
    cell: Any = None
    board: tuple[float, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Drawn:
    """A piece that brings its own drawing instead of a kit face: The Game's procedural
    stones, leaves and sticks, the clutter on a table, the marker cards on the ground.

    ``outline`` is its footprint in millimetres in the frame of its :class:`Placement`
    (``x`` along the piece's rotated ``x`` axis, its front for The Game's pieces), ``top``
    the BGRA picture of its upper side at ``px_per_mm`` (centred on the piece's origin,
    picture ``x`` along the piece's ``x``), ``edge`` the colour of its flanks,
    ``dot`` the front dot's centre in the piece frame (mm), ``None`` without one.
    """

    material: str
    outline: np.ndarray
    height: float
    top: np.ndarray
    px_per_mm: float
    edge: tuple[int, int, int]
    dot: tuple[float, float] | None = None


@dataclass(frozen=True)
class Placement:
    """A piece on the table.

    ``kind`` names the kit's :class:`~vision.artwork.kit.PieceKind` (ignored when ``drawn``
    brings the piece's own drawing); ``x``, ``y`` its centre in mm;
    ``rotation`` in degrees, turning the piece's own ``x`` axis towards the table's ``y``
    (clockwise on the printed board); ``z`` the height of its underside in mm (a counter
    in a stack, a piece in a hand); ``face`` the kit face on top (``"top"``) or in front
    (``"front"``, standing pieces); ``key`` a stable identity (the same piece keeps its
    place and wobble from frame to frame); ``group`` pieces drawn bottom-up as one stack.
    ``label`` is ``None`` for things that are not detected (markers cards, clutter).
    ``held``: lifted by a hand; ``turn_to_camera``: a standing piece that looks the same
    from every side (a moulded figure) shows its front picture to the camera, turned by
    ``rotation`` only a little (a wobble), instead of standing at ``rotation`` like a
    cardboard standee.
    """

    kind: str
    x: float
    y: float
    key: str
    label: PieceLabel | None
    rotation: float = 0.0
    z: float = 0.0
    face: str = "top"
    group: str = ""
    drawn: Drawn | None = None
    held: bool = False
    turn_to_camera: bool = False


@dataclass(frozen=True)
class Hand:
    """A hand reaching over the table: fingertips at ``tip`` (mm on the table) at ``height``
    mm above it, the arm coming from direction ``from_angle`` (degrees in the table plane,
    where the shoulder is), a ``spread`` of the fingers 0..1, ``skin`` and ``sleeve`` BGR
    colours, ``scale`` (1 = an adult hand, palm about 85 mm wide). ``pinch``: the fingers
    close as if holding a piece; ``left``: a left hand; ``cuff``: how much bare forearm
    shows before the sleeve (0: a long sleeve down to the wrist)."""

    tip: tuple[float, float]
    height: float = 40.0
    from_angle: float = 90.0
    spread: float = 0.5
    skin: tuple[int, int, int] = (120, 150, 200)
    sleeve: tuple[int, int, int] = (90, 60, 40)
    scale: float = 1.0
    pinch: bool = False
    left: bool = False
    cuff: float = 0.0  # mm of bare forearm between the wrist and the sleeve


@dataclass(frozen=True)
class Environment:
    """Where the board lies: indoors on a table (``surface`` texture, the table's extent
    around the board, the floor beyond) or outdoors on the ground; and the clutter."""

    outdoor: bool
    surface: str
    surface_variant: int
    surface_mm_per_px: float
    surface_angle: float
    surface_tint: tuple[float, float, float]
    surface_offset: tuple[float, float]
    table: tuple[float, float, float, float] | None = None  # x0, y0, x1, y1 in mm
    floor: str = "carpet"
    clutter: tuple[Placement, ...] = ()
    board_height: float = 1.5  # thickness of the board (0: a sheet of paper)
    board_edge: tuple[int, int, int] = (60, 60, 60)
    show_board: bool = True


@dataclass
class ScenePlan:
    """What a scene adapter returns for one position: the board layout (the kit's
    ``layout`` argument), the pieces on and beside the board, and decals that are drawn
    but not detected (marker cards on the ground)."""

    layout: Any
    pieces: list[Placement]
    decals: list[Placement] = field(default_factory=list)
    dice_area: tuple[float, float, float, float] | None = None  # where dice lie, mm
