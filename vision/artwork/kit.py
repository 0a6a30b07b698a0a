"""The artwork contract: what a game's printable kit looks like, in one type per game.

A :class:`Kit` knows the physical size of a game's board unit, every piece the detectors
must read (a :class:`PieceKind` each), and draws the printed surfaces: the board with its
calibration markers (:meth:`Kit.board_image`) and the printed face of every piece
(:meth:`Kit.piece_face`). The renderer pastes these surfaces into camera views; the kit
printer (:mod:`tabletop.printing`) lays them out on pages. Both therefore show the same
thing, and a detector trained on renders reads the printed kit.

Pixel convention (as in OpenCV): integer pixel coordinates are pixel centres, so an image
``w`` pixels wide spans ``-0.5 .. w - 0.5``. Board coordinates are those of
:mod:`calibration.pose` and the marker specification :mod:`calibration.markers`.

>>> kind = PieceKind("borg-stone", (20.0, 20.0), 2.0, False, "square")
>>> kind.size_px(5.0)
(100, 100)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from calibration.markers import MarkerSpec
from vision.artwork.draw import (
    Canvas,
    Colour,
    apply,
    board_transform,
    marker_bits,
    paint_marker,
    paint_rect,
)

__all__ = [
    "FACES",
    "PAPER",
    "PRINT_PX_PER_MM",
    "SHAPES",
    "ArtworkError",
    "Kit",
    "PieceKind",
    "PieceSheet",
    "PosterSheet",
    "PrintItem",
    "Sheet",
    "outline",
    "paint_markers",
]

#: 300 dots per inch, in pixels per millimetre: the scale of everything printed.
PRINT_PX_PER_MM = 300 / 25.4
#: The colour of plain paper in every drawing.
PAPER: Colour = (255, 255, 255)

SHAPES = ("square", "disc", "rect", "die", "natural")
FACES = ("top", "front", "side", "side-1", "side-2", "side-3", "side-4")


class ArtworkError(ValueError):
    """Root error of the artwork package (unknown game, piece or face, bad layout, bad scale)."""


@dataclass(frozen=True)
class PieceKind:
    """One class of piece the detectors read, and its physical size.

    ``name`` is the detection class name (unique within the game); ``footprint_mm`` is
    (width, depth) on the table; ``height_mm`` the thickness of a flat piece or the height of
    a standing one; ``standing`` pieces (pawns, figures) are drawn upright with their
    ``"front"`` face; ``shape`` is ``square``, ``disc``, ``rect``, ``die`` (a cube) or
    ``natural`` (The Game's stones, leaves and sticks, made by the renderer). ``group`` says
    what sort of piece it is within the game (``counter``, ``checker``, ``die``, ``coin``...),
    for scene code that places dice in a dice area or stacks counters.
    """

    name: str
    footprint_mm: tuple[float, float]
    height_mm: float
    standing: bool
    shape: str
    group: str = ""

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ArtworkError(
                f"piece {self.name!r}: unknown shape {self.shape!r} (use one of "
                f"{', '.join(SHAPES)})"
            )
        if min(self.footprint_mm) <= 0 or self.height_mm <= 0:
            raise ArtworkError(f"piece {self.name!r}: sizes must be positive millimetres")

    def size_px(self, px_per_mm: float, face: str = "top") -> tuple[int, int]:
        """(width, height) in pixels of :meth:`Kit.piece_face` for this kind and face."""
        w, d = self.footprint_mm
        if face == "front":
            return max(1, round(w * px_per_mm)), max(1, round(self.height_mm * px_per_mm))
        return max(1, round(w * px_per_mm)), max(1, round(d * px_per_mm))


@dataclass(frozen=True)
class PrintItem:
    """One cut-out on a printed sheet: a BGRA image at the print scale (alpha 0 outside the
    part to cut), a short caption printed under it (empty: none) and, for fold-and-glue
    sheets, the image that goes on its back (``back``, printed where the fold brings it
    behind the front). ``cut_line``: outline the part in grey, to cut along; ``new_row``:
    start a new row with this item (a new army, a new side)."""

    image: np.ndarray
    caption: str = ""
    back: np.ndarray | None = None
    cut_line: bool = True
    new_row: bool = False


@dataclass(frozen=True)
class PosterSheet:
    """A surface printed at true size, split over as many pages as it needs.

    ``image`` is BGR at the print scale; ``board_to_px`` maps board units to its pixels
    (``None`` for a surface without board coordinates); ``notes`` are printed on each page.
    """

    title: str
    image: np.ndarray
    board_to_px: np.ndarray | None = None
    notes: str = ""
    spec: MarkerSpec | None = None


@dataclass(frozen=True)
class PieceSheet:
    """Pieces to cut out, packed on as many pages as they need, in the order given.
    ``fold``: fronts fill the left half of each page, and each item's ``back`` is printed on
    the right half where folding the page down its middle line brings it behind the front."""

    title: str
    items: tuple[PrintItem, ...]
    notes: str = ""
    fold: bool = False


Sheet = PosterSheet | PieceSheet


class _Cache:
    """A small least-recently-used cache of arrays (copies go out, never the stored one)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.store: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        if key in self.store:
            self.store.move_to_end(key)
        else:
            self.store[key] = make()
            while len(self.store) > self.size:
                self.store.popitem(last=False)
        return self.store[key]


def _check_scale(px_per_mm: float) -> float:
    try:
        value = float(px_per_mm)
    except (TypeError, ValueError):
        raise ArtworkError(f"px_per_mm must be a number, got {px_per_mm!r}") from None
    if not 0.05 <= value <= 60:
        raise ArtworkError(f"px_per_mm must be between 0.05 and 60 (300 dpi is 11.8), got {value}")
    return value


def paint_markers(image: np.ndarray, spec: MarkerSpec, board_to_px: np.ndarray) -> None:
    """Paint the kit's markers (and a white quiet zone one cell wide around each) on a
    drawing whose board -> pixel transform is ``board_to_px`` (axis-aligned)."""
    for marker_id in spec.ids:
        corners = apply(board_to_px, spec.marker_corners(marker_id))
        bits = marker_bits(spec.dictionary, marker_id)
        cell = abs(corners[1, 0] - corners[0, 0]) / bits.shape[0]
        xs, ys = corners[:, 0], corners[:, 1]
        paint_rect(image, xs.min() - cell, ys.min() - cell, xs.max() + cell, ys.max() + cell, PAPER)
        paint_marker(image, corners, bits)


def outline(cv: Canvas, shape: str, w: float, h: float, colour: Colour, inset: float = 0.0) -> None:
    """Fill a piece's outline (``w`` x ``h`` mm, centred) and mark it in the alpha mask."""
    x, y = w / 2 - inset, h / 2 - inset
    if shape == "disc":
        ring = [
            (x * np.cos(a), y * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 120, endpoint=False)
        ]
        cv.poly(ring, colour, mask=inset == 0.0)
    else:
        radius = {"die": 0.12 * min(w, h), "square": 0.6, "rect": 0.6}.get(shape, 0.6)
        cv.rounded_rect(-x, -y, x, y, max(0.0, radius - inset), colour, mask=inset == 0.0)


@dataclass(frozen=True, eq=False)
class Kit:
    """A game's printable kit: board unit size, piece kinds, and the drawings of both.

    Subclasses (one per game) draw; this class validates arguments, caches drawings and
    paints the calibration markers exactly where :mod:`calibration.markers` puts them.
    """

    game: str
    units: str
    mm_per_unit: float
    pieces: dict[str, PieceKind]
    title: str = ""
    _boards: _Cache = field(
        default_factory=lambda: _Cache(4), init=False, repr=False, compare=False
    )
    _faces: _Cache = field(
        default_factory=lambda: _Cache(512), init=False, repr=False, compare=False
    )

    # -- what subclasses provide ------------------------------------------------------------
    def marker_spec(self, layout: Any = None) -> MarkerSpec:
        """The calibration markers of the board for ``layout`` (:mod:`calibration.markers`)."""
        raise NotImplementedError

    def _layout_key(self, layout: Any) -> Hashable:
        """A hashable, validated form of ``layout`` (raise :class:`ArtworkError` if bad)."""
        if layout is not None:
            raise ArtworkError(
                f"{self.game} has one board layout; give layout=None, not {layout!r}"
            )
        return None

    def _paint_board(self, cv: Canvas, layout: Hashable, spec: MarkerSpec) -> None:
        """Draw the board (not its markers) on ``cv``, whose coordinates are board units."""
        raise NotImplementedError

    def _paint_face(self, cv: Canvas, kind: PieceKind, face: str, w: float, h: float) -> None:
        """Draw a piece's face on ``cv`` (millimetres, origin at the centre, ``w`` x ``h``),
        marking its outline in the alpha mask (see :func:`outline`)."""
        raise NotImplementedError

    #: White paper around the markers, in millimetres.
    board_margin_mm: ClassVar[float] = 6.0

    def _draw_board(self, px_per_mm: float, layout: Hashable) -> tuple[np.ndarray, np.ndarray]:
        spec = self.marker_spec(layout)
        m = self.board_margin_mm / spec.unit_mm
        x0, y0, x1, y1 = spec.extent()
        h, size = board_transform(
            (x0 - m, y0 - m, x1 + m, y1 + m), px_per_mm * spec.unit_mm, 0, spec.y_up
        )
        cv = Canvas(size, h, px_per_mm, background=PAPER)
        self._paint_board(cv, layout, spec)
        image = cv.result()
        paint_markers(image, spec, h)
        return image, h

    def _draw_face(self, kind: PieceKind, px_per_mm: float, face: str) -> np.ndarray:
        w, d = kind.footprint_mm
        if face == "front":
            d = kind.height_mm
        cv = Canvas.for_mm(
            w, d, px_per_mm, background=(0, 0, 0), alpha=True, size_px=kind.size_px(px_per_mm, face)
        )
        self._paint_face(cv, kind, face, w, d)
        return cv.result()

    def _edge(self, kind: PieceKind) -> tuple[int, int, int]:
        raise NotImplementedError

    def faces(self, kind: str) -> tuple[str, ...]:
        """The faces :meth:`piece_face` draws for ``kind``."""
        k = self.kind(kind)
        if k.shape == "die":
            return ("top", "side", "side-1", "side-2", "side-3", "side-4")
        return ("top", "front") if k.standing else ("top",)

    def sheets(self) -> list[Sheet]:
        """What ``tabletop print`` puts on paper, at 300 dpi (see :mod:`tabletop.printing`)."""
        raise NotImplementedError

    # -- the contract -----------------------------------------------------------------------
    def kind(self, name: str) -> PieceKind:
        try:
            return self.pieces[name]
        except KeyError:
            known = ", ".join(self.pieces)
            raise ArtworkError(f"{self.game} has no piece {name!r} (its pieces: {known})") from None

    def board_size(self, layout: Any = None) -> tuple[float, float]:
        """The board's size in board units: the ``size`` of its
        :class:`~calibration.pose.BoardPose`."""
        self._layout_key(layout)
        spec = self.marker_spec(layout)
        return float(spec.size[0]), float(spec.size[1])

    def board_image(self, px_per_mm: float, layout: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """The printed board (BGR uint8, with its markers and a white margin) and the 3x3
        transform from board units to its pixels. A fresh copy each call."""
        scale = _check_scale(px_per_mm)
        key = self._layout_key(layout)
        image, h = self._boards.get((round(scale, 6), key), lambda: self._draw_board(scale, key))
        return image.copy(), h.copy()

    def piece_face(self, kind: str, px_per_mm: float, face: str = "top") -> np.ndarray:
        """The printed face of a piece: BGRA uint8, alpha 0 outside its outline, sized by
        :meth:`PieceKind.size_px`. ``"top"`` for flat pieces and dice, ``"front"`` for
        standing ones; dice also take ``"side"`` (``"side-1"`` .. ``"side-4"``: the four faces
        around the top, in clockwise order seen from above, starting from the near one)."""
        k = self.kind(kind)
        scale = _check_scale(px_per_mm)
        if face not in self.faces(kind):
            raise ArtworkError(
                f"{self.game} piece {kind!r} has no face {face!r} (faces: "
                f"{', '.join(self.faces(kind))})"
            )
        image = self._faces.get(
            (kind, round(scale, 6), face), lambda: self._draw_face(k, scale, face)
        )
        return image.copy()

    def edge_colour(self, kind: str) -> tuple[int, int, int]:
        """BGR of the piece's sides (the thickness of a counter, the rim of a checker)."""
        b, g, r = self._edge(self.kind(kind))
        return int(b), int(g), int(r)
