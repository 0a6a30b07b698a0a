"""Detections + board geometry -> what the camera sees on the board.

A :class:`SeenBoard` holds, for grid games, the pieces per cell (engine labels, through
:func:`vision.detect_cells.board_cells`); for The Game, points in inches. Hands are kept apart,
and so are dice and anything off the board. :func:`implausible` says what no legal play could
produce (too many pieces in one cell, more pieces of a kind than there were).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from vision.detect_cells import one_read
from vision.detections import Detections

__all__ = ["MAX_PER_CELL", "BoardMapper", "Geometry", "SeenBoard", "SeenPiece", "implausible", "lift_pieces"]

#: The most pieces one square can hold in a legal position (OneWorld and Wormholes: see
#: :func:`implausible`).
MAX_PER_CELL = {"when-gods-collide": 1, "battle-grounds": 1}
DICE_PREFIXES = ("die-", "d6-", "chess-", "hero-")
#: A die's face counts as read only when the face reader is at least this sure of it; when a
#: frame has a die read less surely, none of its dice count (the roll is typed or rolled,
#: as when no dice are seen), so that a misread face never becomes the roll. Chosen on the
#: labelled dice of 200 renders of a seed used nowhere else (3001): When Gods Collide's face
#: reader was this sure of 27 % of them at 640x480 and 63 % at 1280x960, and read every one
#: of those right (at 0.8: 98.6 and 99.3 %, two wrong each); Wormholes' reader is this sure
#: of none.
SURE_FACE = 0.9
#: Classes that stand up (their foot, not their box centre, is on the cell).
STANDING_PREFIXES = ("pawn-", "north-", "south-")


class Geometry(Protocol):
    def image_to_board(self, points: np.ndarray) -> np.ndarray: ...


class PoseGeometry:
    """A :class:`calibration.pose.BoardPose` as a :class:`Geometry`."""

    def __init__(self, pose: Any) -> None:
        self.pose = pose

    def image_to_board(self, points: np.ndarray) -> np.ndarray:
        return self.pose.to_board(points)

    def board_to_image(self, points: np.ndarray) -> np.ndarray:
        return self.pose.to_image(points)


@dataclass(frozen=True)
class SeenPiece:
    cls: str
    cell: str | None  # engine label; None off the board (or The Game)
    point: tuple[float, float]  # board units
    box: tuple[float, float, float, float]
    confidence: float = 1.0
    facing: float | None = None


@dataclass(frozen=True)
class SeenBoard:
    game: str
    pieces: tuple[SeenPiece, ...] = ()
    dice: tuple[str, ...] = ()
    hands: tuple[tuple[float, float, float, float], ...] = ()
    hand_over_board: bool = False
    #: dice seen whose faces were not read surely (:data:`SURE_FACE`) and that may have been
    #: thrown; when any, ``dice`` is empty (:func:`tabletop.live.rolls.set_aside_lying`)
    unsure_dice: int = 0
    #: where each of ``dice`` lies (its box carried onto the board's plane, in board units, in
    #: the same order; empty where not known): a die thrown again showing the face it showed
    #: before lies elsewhere, and a camera moved leaves it where it lay. Not part of what is
    #: compared: the dice's faces are
    dice_boxes: tuple[tuple[float, float, float, float], ...] = field(default=(), compare=False)
    #: where each die whose face was not read surely lies (board units, as ``dice_boxes``;
    #: empty where not known), and the dice read surely beside them with where they lie
    #: (``dice`` and ``dice_boxes`` as they would be without them): a die unsure of its face
    #: that lies where one lay at the position a throw is read from was not thrown, and is set aside
    #: (:func:`tabletop.live.rolls.set_aside_lying`)
    unsure_boxes: tuple[tuple[float, float, float, float], ...] = field(default=(), compare=False)
    sure_dice: tuple[str, ...] = field(default=(), compare=False)
    sure_boxes: tuple[tuple[float, float, float, float], ...] = field(default=(), compare=False)

    def cells(self) -> Counter[tuple[str, str]]:
        return Counter((p.cell, p.cls) for p in self.pieces if p.cell is not None)

    def key(self) -> Any:
        """What must stay the same for the position to count as still."""
        if self.game == "the-game":
            pts = tuple(sorted((p.cls, round(p.point[0] * 2) / 2, round(p.point[1] * 2) / 2) for p in self.pieces))
            return (pts, tuple(sorted(self.dice)))
        return (tuple(sorted(self.cells().items())), tuple(sorted(self.dice)))

    def at(self, cell: str) -> list[SeenPiece]:
        return [p for p in self.pieces if p.cell == cell]


def _class_names(det: Detections, names: tuple[str, ...] | None) -> list[str]:
    if det.class_name is not None:
        return [str(c) for c in det.class_name]
    if names is None:
        return [str(int(c)) for c in det.class_id]
    return [names[int(c)] if 0 <= int(c) < len(names) else str(int(c)) for c in det.class_id]


class BoardMapper:
    """Maps one frame's detections onto the game's board.

    ``cells`` is a :class:`vision.detect_cells.BoardCells` (``None`` for The Game); ``size``
    the board's size in board units (to tell on-board from off-board points)."""

    def __init__(self, game: str, cells: Any, size: tuple[float, float] | None = None,
                 names: tuple[str, ...] | None = None, min_confidence: float = 0.25) -> None:
        self.game = game
        self.cells = cells
        self.size = size
        self.names = names
        self.min_confidence = min_confidence

    @classmethod
    def for_game(cls, game: str, position: Mapping[str, Any] | None = None,
                 options: Mapping[str, Any] | None = None, size: tuple[float, float] | None = None,
                 names: tuple[str, ...] | None = None) -> BoardMapper:
        cells = None
        if game != "the-game":
            from vision.detect_cells import board_cells

            cells = board_cells(game, {"position": dict(position or {}),
                                       "position_source": {"options": dict(options or {})}})
        return cls(game, cells, size, names)

    def map(self, det: Detections, geometry: Geometry, board_polygon: np.ndarray | None = None,
            image_size: tuple[int, int] | None = None, image: np.ndarray | None = None,
            markers: Sequence[np.ndarray] = ()) -> SeenBoard:
        """The seen board of one frame's detections. The Game, given the frame's
        ``image_size`` (width, height): each piece where the prism casting its box stands,
        not where its box centre meets the ground (:func:`tabletop.outdoor.readings.lift_boxes`),
        its front dot put on the dot's colour in the ``image`` when given, and its side checked
        against the colour of that dot (:func:`tabletop.outdoor.dots.sides_by_dot`).
        ``markers``: the image corners of the kit's printed markers; a die boxed on one is the
        marker (:func:`vision.dice_finder.on_markers`), left out."""
        names = _class_names(det, self.names)
        keep = det.confidence >= self.min_confidence
        if self.game == "the-game" and len(det):  # one piece boxed once per side: one box stays
            from tabletop.outdoor.readings import box_dots, one_box_per_piece

            boxed = [i for i, n in enumerate(names) if keep[i] and n != "hand"]
            once = set(one_box_per_piece(np.asarray(det.xyxy, float), np.asarray(det.confidence, float), boxed,
                                         dots=box_dots(det), image=image, names=names))
            keep = np.array([bool(k) and (names[i] == "hand" or i in once) for i, k in enumerate(keep)], bool)
            det, names = det[keep], [n for n, k in zip(names, keep) if k]  # lift only the boxes kept
            keep = np.ones(len(det), bool)
            if image is not None and det.keypoints is not None and det.keypoints.shape[1] and len(det):
                from tabletop.outdoor.dots import sides_by_dot

                names = sides_by_dot(image, det.xyxy, box_dots(det), names)
        pieces: list[SeenPiece] = []
        dice: list[str] = []
        dice_at: list[tuple[float, float, float, float]] = []  # each die's box
        face_sure: list[float] = []  # the face reader's confidence in each die's face (NaN: none read it)
        hands: list[tuple[float, float, float, float]] = []
        lifted = None
        if len(det):
            box = det.xyxy
            anchors = det.anchors("center").copy()
            for i, name in enumerate(names):
                if name.startswith(STANDING_PREFIXES):  # a point a little above the foot
                    anchors[i, 1] = box[i, 3] - 0.15 * (box[i, 3] - box[i, 1])
            board_pts = geometry.image_to_board(anchors) if len(anchors) else anchors
            if self.game == "the-game" and image_size is not None:
                lifted = lift_pieces(det, geometry, image_size, image, names)
                if lifted is not None:
                    board_pts = lifted[0]
        marker = np.zeros(len(det), bool)
        if len(markers) and len(det):
            from vision.dice_finder import on_markers

            marker = on_markers(det.xyxy, markers)
        for i, name in enumerate(names):
            if not keep[i]:
                continue
            b = tuple(float(v) for v in det.xyxy[i])
            if name == "hand":
                hands.append(b)  # type: ignore[arg-type]
                continue
            if name.startswith(DICE_PREFIXES):
                if marker[i]:
                    continue
                dice.append(name)
                dice_at.append(b)  # type: ignore[arg-type]
                face_sure.append(np.nan if det.face_confidence is None else float(det.face_confidence[i]))
                continue
            x, y = (float(v) for v in board_pts[i])
            facing = None
            if lifted is not None:
                facing = None if not np.isfinite(lifted[1][i]) else float(lifted[1][i])
            elif det.keypoints is not None and det.keypoints.shape[1] and det.keypoints[i, 0, 2] > 0:
                bx, by = geometry.image_to_board(det.keypoints[i, :1, :2])[0]  # the front dot
                facing = float(np.degrees(np.arctan2(by - y, bx - x)) % 360.0)
            elif det.facing is not None and np.isfinite(det.facing[i]):
                facing = _board_facing(geometry, anchors[i], float(det.facing[i]), (x, y))
            if self.cells is not None:
                cell = self.cells.cell_at((x, y))
                if cell is None:
                    continue  # beside the board: captured or set aside
            else:
                if self.size is not None and not (0 <= x <= self.size[0] and 0 <= y <= self.size[1]):
                    continue
                cell = None
            pieces.append(SeenPiece(name, cell, (x, y), b, float(det.confidence[i]), facing))  # type: ignore[arg-type]
        pieces = _one_read(pieces, self.game)
        over = any(_box_over(h, board_polygon) for h in hands) if board_polygon is not None else bool(hands)
        unsure = [k for k, c in enumerate(face_sure) if c < SURE_FACE]  # NaN compares False: not read by a face reader
        lying = _on_plane(geometry, dice_at)
        order = sorted((k for k in range(len(dice)) if k not in unsure), key=lambda k: dice[k])
        sure = tuple(dice[k] for k in order)
        sure_at = tuple(lying[k] for k in order) if lying else ()
        if not unsure:
            return SeenBoard(self.game, tuple(pieces), sure, tuple(hands), over, 0, sure_at)
        return SeenBoard(self.game, tuple(pieces), (), tuple(hands), over, len(unsure), (),
                         tuple(lying[k] for k in unsure) if lying else (), sure, sure_at)


def _on_plane(geometry: Geometry, boxes: Sequence[tuple[float, float, float, float]]
              ) -> list[tuple[float, float, float, float]]:
    """Each frame box of ``boxes`` on the board's plane, in board units: the box around its
    four corners carried there (a die lying still stays where it lies when the camera moves);
    empty when any corner does not land on the plane: not finite, or beyond the plane's
    horizon. A box across the horizon is carried to a quadrilateral that turns one way at some
    corners and the other way at the rest (a map of the plane keeps every turn's sense on one
    side of its horizon and reverses it beyond); its box would be finite, mirrored, wrong. A
    box wholly beyond turns every way alike, but the other way from the plane in front of the
    camera (:func:`_plane_sense`, for a geometry that can carry board points into the image).
    A box less than a pixel wide or tall (clipped at the frame's edge) is taken a pixel wide or
    tall about its middle: its corners would turn neither way."""
    if not boxes:
        return []
    b = np.asarray(boxes, float).reshape(-1, 4)
    grow = np.maximum(0.0, 1.0 - (b[:, 2:] - b[:, :2])) / 2  # clipped to under a pixel: a pixel
    x1, y1, x2, y2 = np.c_[b[:, :2] - grow, b[:, 2:] + grow].T
    corners = np.stack([np.c_[x1, y1], np.c_[x2, y1], np.c_[x2, y2], np.c_[x1, y2]], axis=1)
    try:
        on = np.asarray(geometry.image_to_board(corners.reshape(-1, 2)), float).reshape(-1, 4, 2)
    except Exception:  # noqa: BLE001 - where the dice lie is a help, never a reason to lose them
        return []
    if not np.isfinite(on).all():
        return []
    turns = _turns(on)
    sense = _plane_sense(geometry)  # how a box's corners turn carried onto the plane in front of the camera
    if not (turns * (np.sign(turns[:, :1]) if sense is None else sense) > 0).all():  # across the horizon, or beyond
        return []
    lo, hi = on.min(axis=1), on.max(axis=1)
    return [(float(a[0]), float(a[1]), float(b[0]), float(b[1])) for a, b in zip(lo, hi)]


def _turns(quads: np.ndarray) -> np.ndarray:
    """The cross product of each pair of consecutive edges of quadrilaterals (N x 4 x 2):
    positive where a corner turns from x towards y."""
    edges = np.roll(quads, -1, axis=-2) - quads
    after = np.roll(edges, -1, axis=-2)
    return edges[..., 0] * after[..., 1] - edges[..., 1] * after[..., 0]


def _plane_sense(geometry: Geometry) -> float | None:
    """The sign (1 or -1) of the turns of a frame box's corners (x1, y1), (x2, y1), (x2, y2),
    (x1, y2) carried onto the board's plane in front of the camera: that of the board's unit
    square at its origin, in the board, seen in the image (the board lies in front of the
    camera); a box beyond the horizon turns the other way. ``None`` for a geometry that
    cannot carry board points into the image."""
    to_image = getattr(geometry, "board_to_image", None)
    if to_image is None:
        return None
    try:
        square = np.asarray(to_image(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])), float).reshape(4, 2)
    except Exception:  # noqa: BLE001 - without it, a box's corners must only turn alike
        return None
    turns = _turns(square[None])[0]
    if not np.isfinite(turns).all():
        return None
    return 1.0 if (turns > 0).all() else -1.0 if (turns < 0).all() else None


def lift_pieces(det: Detections, geometry: Any, image_size: tuple[int, int], image: np.ndarray | None = None,
                names: Sequence[str] = (), config: Any = None) -> tuple[np.ndarray, np.ndarray] | None:
    """The Game's pieces read from their boxes and dots on the field: centres (N x 2, inches)
    and facings (N, degrees; NaN without a dot), by
    :func:`tabletop.outdoor.readings.lift_boxes`; ``None`` when the geometry is no homography.
    A frame seen through a lens (``geometry.dist``) has its boxes and dots undistorted first
    (the box by its corners, with ``geometry.undistort``); the ``image`` then serves no dot
    refinement. The facings a facing reader read (``det.facing_confidence`` finite) are used
    as ``config`` (a :class:`tabletop.outdoor.readings.ReadingConfig`) says."""
    from calibration.pose import BoardPose
    from tabletop.outdoor.readings import ReadingConfig, box_dots, lift_boxes
    from tabletop.outdoor.view import FieldView

    pose, k, dist = getattr(geometry, "pose", None), getattr(geometry, "k", None), getattr(geometry, "dist", None)
    boxes = np.asarray(det.xyxy, float).reshape(-1, 4)
    read = det.read_facings()
    dots = box_dots(det)
    if pose is None:
        h = getattr(geometry, "h", None)
        if h is None:
            return None
        try:
            pose = BoardPose.from_homography(np.linalg.inv(h), "inch", (24.0, 24.0))
        except (np.linalg.LinAlgError, ValueError):
            return None
    undistort = getattr(geometry, "undistort", None)
    if dist is not None and k is not None and undistort is not None and len(boxes):
        corners = undistort(boxes.reshape(-1, 2)).reshape(-1, 4)
        boxes = np.c_[np.minimum(corners[:, 0], corners[:, 2]), np.minimum(corners[:, 1], corners[:, 3]),
                      np.maximum(corners[:, 0], corners[:, 2]), np.maximum(corners[:, 1], corners[:, 3])]
        if dots is not None:
            seen = np.all(np.isfinite(dots), axis=1)
            if seen.any():
                dots[seen] = undistort(dots[seen])
        if read is not None:
            read = _undistorted_directions(undistort, np.asarray(det.xyxy, float).reshape(-1, 4), read)
        image = None
    elif dist is not None:
        return None
    try:
        view = FieldView.from_pose(pose, image_size, k)
        sides = [n.split("-")[0] if n.startswith(("red-", "blue-")) else None for n in names] if names else None
        return lift_boxes(boxes, dots, view, config or ReadingConfig(),
                          image=image if isinstance(image, np.ndarray) else None, sides=sides, read=read)
    except (np.linalg.LinAlgError, ValueError):
        return None


def _undistorted_directions(undistort: Any, boxes: np.ndarray, degrees: np.ndarray) -> np.ndarray:
    """Image directions (degrees, NaN: none) at the centres of ``boxes`` of a frame seen
    through a lens, as they run in the undistorted frame."""
    out = np.full(len(degrees), np.nan)
    seen = np.flatnonzero(np.isfinite(degrees))
    if not len(seen):
        return out
    c = np.c_[(boxes[seen, 0] + boxes[seen, 2]) / 2, (boxes[seen, 1] + boxes[seen, 3]) / 2]
    a = np.radians(degrees[seen])
    tips = c + 3.0 * np.c_[np.cos(a), -np.sin(a)]
    moved = np.asarray(undistort(np.vstack([c, tips])), float)
    d = moved[len(seen):] - moved[:len(seen)]
    out[seen] = np.degrees(np.arctan2(-d[:, 1], d[:, 0])) % 360.0
    return out


def _one_read(pieces: list[SeenPiece], game: str) -> list[SeenPiece]:
    """One reading of each object on its cell (:func:`vision.detect_cells.one_read`: a piece
    boxed twice on a square keeps its surer box). The Game's pieces have no cells:
    :meth:`BoardMapper.map` keeps one box per piece as the outdoor reader does."""
    if len(pieces) < 2:
        return pieces
    keep = one_read(game, [p.cell for p in pieces], [p.cls for p in pieces],
                    np.array([p.confidence for p in pieces]), np.array([p.box for p in pieces], float))
    return [p for p, k in zip(pieces, keep) if k]


def _board_facing(geometry: Geometry, anchor: np.ndarray, image_deg: float, at: tuple[float, float]) -> float:
    """A facing in the image (degrees counter-clockwise from +x, up at 90) in board degrees
    (counter-clockwise from the board's +x towards its +y, as The Game's field turns)."""
    import math

    a = math.radians(image_deg)
    tip = np.array([[anchor[0] + 8 * math.cos(a), anchor[1] - 8 * math.sin(a)]])
    bx, by = geometry.image_to_board(tip)[0]
    return math.degrees(math.atan2(by - at[1], bx - at[0])) % 360.0


def _on_square(p: SeenPiece) -> bool:
    """A piece that takes a square (a Seth token lies on a checker and takes none)."""
    return p.cell is not None and not p.cls.startswith("seth-")


def _emptied(seen: SeenBoard, accepted: SeenBoard) -> int:
    """How many squares ``accepted`` showed a piece on (Seth tokens aside) are empty in ``seen``
    (swapped: how many empty squares were filled)."""
    def held(board: SeenBoard) -> set[str]:
        return {str(p.cell) for p in board.pieces if _on_square(p)}

    return len(held(accepted) - held(seen))


def _box_over(box: tuple[float, float, float, float], polygon: np.ndarray) -> bool:
    """Whether a box touches the board's outline in the image: the box and the outline's convex
    hull share some area. A turned board's bounding box would reach far beyond its corners,
    over the table where a hand (or a book taken for one) lies without hiding anything."""
    import cv2

    poly = np.asarray(polygon, np.float32).reshape(-1, 2)
    x0, y0, x1, y1 = (float(v) for v in box)
    if len(poly) < 3:  # no outline to speak of: its bounding box
        return not (x1 < poly[:, 0].min() or x0 > poly[:, 0].max() or y1 < poly[:, 1].min() or y0 > poly[:, 1].max())
    rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    area, _ = cv2.intersectConvexConvex(rect, cv2.convexHull(poly).reshape(-1, 2))
    return bool(area > 0.0)


def implausible(seen: SeenBoard, accepted: SeenBoard | None, stacking_limit: int = 4,
                known: int | None = None) -> list[str]:
    """What in ``seen`` no legal play could produce, as sentences (empty: nothing wrong).

    Per cell: OneWorld at most ``stacking_limit`` children (Stone, Blade, Fog) of one side in
    a hex; Wormholes one wormhole coin per cell; When Gods Collide (Seth tokens aside) and Battle
    Grounds one piece per square, once more squares of the ``accepted`` position are empty than
    empty ones filled (a piece put on another came from a square it did not fill; else two
    boxes are one piece read twice)."""
    problems: list[str] = []
    if seen.game == "oneworld":
        children = Counter((p.cell, p.cls.split("-")[0]) for p in seen.pieces
                           if p.cell is not None and p.cls.endswith(("-stone", "-blade", "-fog")))
        for (cell, side), n in sorted(children.items()):
            if n > stacking_limit:
                problems.append(f"{n} {side.upper()} counters in {cell} (at most {stacking_limit})")
    elif seen.game == "wormholes":
        coins = Counter(p.cell for p in seen.pieces if p.cell is not None and p.cls.startswith("coin-"))
        problems += [f"{n} coins in {cell} (at most 1)" for cell, n in sorted(coins.items()) if n > 1]
    else:
        limit = MAX_PER_CELL.get(seen.game)
        # a Seth token lies on a checker: it is not a second piece on the square
        per_cell = Counter(p.cell for p in seen.pieces if _on_square(p))
        # a piece put on an occupied square left a square it did not fill elsewhere: with no
        # more squares emptied than newly filled, two boxes on one square are one piece read
        # twice (a weak detector's habit), not a second piece
        # (and a square seen as crowded at the last position too is no news)
        if accepted is None or _emptied(seen, accepted) > _emptied(accepted, seen):
            was = Counter(p.cell for p in (accepted.pieces if accepted is not None else ()) if _on_square(p))
            problems += [f"{n} pieces in {cell} (at most {limit})" for cell, n in sorted(per_cell.items())
                         if limit is not None and n > max(limit, was[cell])]
    # more pieces than there were (OneWorld brings reinforcements), by at least two: one box too
    # many is a doubled or false box; which kinds grew. ``known``: the pieces the engine has on
    # the board (the camera may have missed some of them at the last position)
    was = max(len(accepted.pieces) if accepted is not None else 0, known or 0)
    # (not OneWorld, which brings reinforcements, nor The Game, whose natural pieces lie among
    # stones and leaves of the ground that a detector may take for pieces)
    if accepted is not None and seen.game not in ("oneworld", "the-game") and len(seen.pieces) >= was + 2:
        before = Counter(p.cls for p in accepted.pieces)
        now = Counter(p.cls for p in seen.pieces)
        grew = [f"{n} {cls} where there were {before.get(cls, 0)}" for cls, n in sorted(now.items())
                if n > before.get(cls, 0)]
        problems.append(f"{len(seen.pieces)} pieces where there were {was}"
                        + (f" ({', '.join(grew)})" if grew else ""))
    return problems
