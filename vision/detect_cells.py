"""Cells of a grid game's board in a frame: which cell a detection stands on, and every cell
there is, for scoring a detector cell by cell (:mod:`vision.detect_eval`).

A frame's ground truth (a rendered ``truth/*.json``, docs/rendering.md) gives the position
(so the map or the tiles), the camera (intrinsics and lens distortion) and the board
homography (board units -> pixels of the undistorted image). :class:`FrameGeometry` maps
image points to board points and back; :func:`board_cells` lists a game's cells with a
function from a board point to the cell under it, in the engine's own labels (hex
``"0712"``, square ``"3,4"`` or ``"c5"``).

>>> cells = board_cells("battle-grounds", {"position_source": {"options": {"board": "basic"}}})
>>> len(cells.labels), cells.cell_at((0.5, 0.5)), cells.cell_at((2.2, 6.9)), cells.cell_at((-1, 0))
(42, 'a1', 'c7', None)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["APART_IOU", "FLAT_GAMES", "GRID_GAMES", "MERGED_AREA", "MERGED_COVER", "SAME_BOX_IOU", "SURE",
           "BoardCells", "FrameGeometry", "board_cells", "one_read"]

#: Games whose pieces stand on cells (The Game's field is measured in inches instead).
GRID_GAMES = ("oneworld", "when-gods-collide", "wormholes", "battle-grounds")
#: Two boxes on one cell are two objects (not one read twice) only when both are at least this
#: sure and overlap less than :data:`APART_IOU`.
SURE = 0.5
APART_IOU = 0.3
#: OneWorld's stacked counters overlap up to about 0.75 (the sample turns); two boxes of one
#: cell overlapping more are one counter read twice.
SAME_BOX_IOU = 0.8
#: Games whose pieces lie flat on their cells, one beside the other (checkers, coins, and
#: Wormholes' ships on them): a box that two surer boxes of its kind cover, each at least a
#: quarter of it and together :data:`MERGED_COVER` of it, while it is at least
#: :data:`MERGED_AREA` times the larger of them, is those two neighbours boxed once more as
#: one (a detector reading a frame at a larger size did this to two checkers side by side).
#: Not Battle Grounds, whose figures stand in front of one another and differ in size
#: (applied there, the rule lost 2 of its 11 657 held-out cells), nor OneWorld, whose
#: counters stack.
FLAT_GAMES = ("when-gods-collide", "wormholes")
MERGED_COVER = 0.6
MERGED_AREA = 1.3


def one_read(game: str, cells: Sequence[str | None], classes: Sequence[str], confidence: np.ndarray,
             boxes: np.ndarray) -> np.ndarray:
    """Which boxes stand for an object of their cell (a bool mask), as tabletop reads a cell.

    Two boxes of one kind of object on one cell are one object read twice (a weak detector
    often gives one figure two class boxes) unless they are clearly apart and both sure: the
    most confident reading stays. Kinds: When Gods Collide and Battle Grounds, a piece per
    square (a Seth token lies on a checker, apart); Wormholes, a coin and a ship per cell.
    OneWorld's counters stack, one box over the other: only boxes that overlap almost wholly
    are one counter. Boxes on no cell (``None``) and other games' boxes are all kept. Where
    pieces lie flat side by side (:data:`FLAT_GAMES`), a box covering two surer neighbours of
    its kind is the two read as one, whatever cell its anchor falls in.

    >>> one_read("battle-grounds", ["a1", "a1", "b2"], ["north-i", "north-ii", "south-i"],
    ...          np.array([0.6, 0.4, 0.9]), np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 20, 30, 30]]))
    array([ True, False,  True])
    """
    from vision.detect_eval import box_iou

    n = len(cells)
    keep = np.ones(n, bool)
    if game not in GRID_GAMES or n < 2:
        return keep
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    conf = np.asarray(confidence, float)
    iou = box_iou(boxes, boxes)
    groups: dict[tuple[str, str], list[int]] = {}
    kinds: list[str | None] = [None] * n
    for i, (cell, cls) in enumerate(zip(cells, classes)):
        if cell is None:
            continue
        if game == "oneworld":
            kind = ""
        elif game == "wormholes":
            kind = cls.split("-")[0]
        else:
            kind = str(cls.startswith("seth-"))
        groups.setdefault((cell, kind), []).append(i)
        kinds[i] = kind
    if game in FLAT_GAMES:
        keep &= ~_merged(boxes, iou, conf, kinds)
    for group in groups.values():
        kept: list[int] = []
        for i in sorted(group, key=lambda j: -conf[j]):
            if game == "oneworld":
                one = any(iou[i, k] > SAME_BOX_IOU for k in kept)
            else:
                one = bool(kept) and not (conf[i] >= SURE and conf[kept[0]] >= SURE
                                          and all(iou[i, k] < APART_IOU for k in kept))
            if one:
                keep[i] = False
            else:
                kept.append(i)
    return keep


def _merged(boxes: np.ndarray, iou: np.ndarray, conf: np.ndarray, kinds: Sequence[str | None]) -> np.ndarray:
    """Boxes that are two surer boxes of their kind boxed once more as one (:data:`MERGED_COVER`);
    ``iou``: the boxes' IoU table, from which their overlaps follow."""
    area = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-9)
    inter = iou * (area[:, None] + area[None, :]) / (1 + iou)
    cover = inter / area[:, None]  # [i, j]: the share of box i that box j covers
    merged = np.zeros(len(boxes), bool)
    for i, kind in enumerate(kinds):
        if kind is None:
            continue
        by = [j for j in np.flatnonzero(cover[i] >= 0.25) if j != i and kinds[j] == kind and conf[j] > conf[i]
              and area[i] >= MERGED_AREA * area[j]]
        if len(by) >= 2:
            two = sorted(by, key=lambda j: -cover[i, j])[:2]
            merged[i] = cover[i, two].sum() >= MERGED_COVER
    return merged


@dataclass(frozen=True)
class BoardCells:
    """Every cell of a board (engine labels), its centre in board units, and the cell under
    any board point (``None`` off the board)."""

    labels: tuple[str, ...]
    centres: np.ndarray  # len(labels) x 2, board units
    cell_at: Callable[[tuple[float, float]], str | None]


def board_cells(game: str, truth: Mapping[str, Any]) -> BoardCells:
    """The cells of ``game``'s board in the frame described by ``truth``."""
    options = (truth.get("position_source") or {}).get("options") or {}
    if game == "oneworld":
        return _oneworld(options)
    if game == "when-gods-collide":
        return _when_gods_collide(truth.get("position") or {})
    if game == "wormholes":
        return _wormholes()
    if game == "battle-grounds":
        return _battle_grounds(options)
    raise ValueError(f"{game!r} has no grid of cells (grid games: {', '.join(GRID_GAMES)})")


def _oneworld(options: Mapping[str, Any]) -> BoardCells:
    from rules.registry import get_game
    from vision.layout import HexLayout

    board = get_game("oneworld", dict(options)).board
    layout = HexLayout(size=1.0)
    hexes = sorted(board.cells, key=lambda h: h.label())
    labels = {h: h.label() for h in hexes}

    def cell_at(point: tuple[float, float]) -> str | None:
        return labels.get(layout.hex_at(point))

    return BoardCells(tuple(labels.values()), np.array([layout.center(h) for h in hexes]), cell_at)


def _when_gods_collide(position: Mapping[str, Any]) -> BoardCells:
    from vision.artwork.when_gods_collide import WhenGodsCollideKit

    tiles = position.get("tiles") or []
    dx, dy = WhenGodsCollideKit.mat_offset(tiles) if tiles else (8, 8)
    squares = set()
    for t in tiles:
        x, y = (int(v) for v in str(t["at"]).split(","))
        squares.update({(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)})
    ordered = sorted(squares, key=lambda s: (s[1], s[0]))

    def cell_at(point: tuple[float, float]) -> str | None:
        s = (math.floor(point[0]) - dx, math.floor(point[1]) - dy)
        return f"{s[0]},{s[1]}" if s in squares else None

    centres = np.array([(x + dx + 0.5, y + dy + 0.5) for x, y in ordered]).reshape(-1, 2)
    return BoardCells(tuple(f"{x},{y}" for x, y in ordered), centres, cell_at)


def _wormholes() -> BoardCells:
    from rules.wormholes.board import CELLS

    squares = {(c.x, c.y) for c in CELLS}
    ordered = sorted(squares, key=lambda s: (s[1], s[0]))

    def cell_at(point: tuple[float, float]) -> str | None:
        s = (math.floor(point[0]) + 1, math.floor(point[1]) + 1)
        return f"{s[0]},{s[1]}" if s in squares else None

    centres = np.array([(x - 0.5, y - 0.5) for x, y in ordered]).reshape(-1, 2)
    return BoardCells(tuple(f"{x},{y}" for x, y in ordered), centres, cell_at)


def _battle_grounds(options: Mapping[str, Any]) -> BoardCells:
    from rules.registry import get_game

    board = get_game("battle-grounds", dict(options)).table.board
    squares = {(s.x, s.y) for s in board.squares()}
    ordered = sorted(squares, key=lambda s: (s[1], s[0]))

    def label(x: int, y: int) -> str:
        return f"{chr(ord('a') + x)}{y + 1}"

    def cell_at(point: tuple[float, float]) -> str | None:
        s = (math.floor(point[0]), math.floor(point[1]))
        return label(*s) if s in squares else None

    centres = np.array([(x + 0.5, y + 0.5) for x, y in ordered]).reshape(-1, 2)
    return BoardCells(tuple(label(x, y) for x, y in ordered), centres, cell_at)


class FrameGeometry:
    """Image <-> board mapping of one frame: the camera's lens and the board homography.

    ``board_to_image`` maps board units to pixels of the *undistorted* image, as in the
    renderer's ground truth and :class:`calibration.pose.BoardPose`.
    """

    def __init__(self, board_to_image: np.ndarray, intrinsics: np.ndarray | None = None,
                 distortion: np.ndarray | None = None) -> None:
        self.h = np.asarray(board_to_image, float)
        self.h_inv = np.linalg.inv(self.h)
        self.k = None if intrinsics is None else np.asarray(intrinsics, float)
        self.dist = None if distortion is None else np.asarray(distortion, float).reshape(-1)
        if self.dist is not None and not np.any(self.dist):
            self.dist = None

    @classmethod
    def from_truth(cls, truth: Mapping[str, Any]) -> FrameGeometry:
        cam = truth.get("camera") or {}
        return cls(np.array(truth["board"]["board_to_image"]), cam.get("intrinsics"), cam.get("distortion"))

    def undistort(self, points: np.ndarray) -> np.ndarray:
        """Pixels of the image as written (through the lens) -> pixels of the undistorted
        image (unchanged without a lens distortion)."""
        pts = np.asarray(points, float).reshape(-1, 2)
        if len(pts) and self.k is not None and self.dist is not None:
            import cv2

            pts = cv2.undistortPoints(pts.reshape(-1, 1, 2), self.k, self.dist, P=self.k).reshape(-1, 2)
        return pts

    def image_to_board(self, points: np.ndarray) -> np.ndarray:
        """Pixels of the image as written (through the lens) -> board units."""
        pts = self.undistort(points)
        if len(pts) == 0:
            return pts
        q = np.c_[pts, np.ones(len(pts))] @ self.h_inv.T
        return q[:, :2] / q[:, 2:3]

    def board_to_image(self, points: np.ndarray) -> np.ndarray:
        """Board units -> pixels of the image as written (through the lens)."""
        pts = np.asarray(points, float).reshape(-1, 2)
        if len(pts) == 0:
            return pts
        q = np.c_[pts, np.ones(len(pts))] @ self.h.T
        q = q[:, :2] / q[:, 2:3]
        if self.k is not None and self.dist is not None:
            import cv2

            norm = (q - self.k[:2, 2]) / np.array([self.k[0, 0], self.k[1, 1]])
            obj = np.c_[norm, np.ones(len(norm))].reshape(-1, 1, 3)
            q, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), self.k, self.dist)
            q = q.reshape(-1, 2)
        return q

    def camera_on_board(self) -> np.ndarray | None:
        """The board point under the camera (the nadir), from the intrinsics and the
        homography; ``None`` without intrinsics."""
        if self.k is None:
            return None
        m = np.linalg.inv(self.k) @ self.h
        scale = 1.0 / np.linalg.norm(m[:, 0])
        r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
        r3 = np.cross(r1, r2)
        rot = np.stack([r1, r2, r3], axis=1)
        centre = -rot.T @ t
        return centre[:2]
