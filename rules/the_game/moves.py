"""Judging measured moves: how far a piece may go, where it must go, and leaving the field.

An observed piece may move its centre up to ``observed_move`` (6") in any direction. An
unobserved piece (and the last piece of a sequence) moves ``unobserved_move`` (12")
straight towards the nearest edge of the field. A piece whose centre reaches the edge
leaves play. Turning on the spot before and after a move is free, so facings are never
judged. Lengths are judged with ``tolerance`` (0.25"): a move up to the allowance plus
the tolerance is accepted, and a rejected one reports its excess. As for gaps between
pieces, a length within :data:`~rules.the_game.sight.ROUNDING` of a limit counts as on it.

>>> field = Field(24.0, 24.0)
>>> field.nearest(FieldPoint(3.0, 10.0))
('left', 3.0)
>>> field.crossing(FieldPoint(3.0, 10.0), FieldPoint(-1.0, 10.0))
(3.0, 'left', FieldPoint(x=0.0, y=10.0))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rules.core import Verdict
from rules.geometry import FieldPoint
from rules.the_game.model import Piece
from rules.the_game.options import TheGameOptions
from rules.the_game.shapes import unit
from rules.the_game.sight import ROUNDING

__all__ = ["Field", "MovePlan", "plan_move", "plan_exit", "must_move", "representative_moves"]

#: Outward unit normal of each edge of the field.
_NORMALS = {"near": (0.0, -1.0), "far": (0.0, 1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}


@dataclass(frozen=True)
class Field:
    """The playing area: ``0 <= x <= width`` and ``0 <= y <= depth``; the edge at ``y = 0``
    is the near edge, ``y = depth`` the far edge, ``x = 0`` left and ``x = width`` right."""

    width: float
    depth: float

    def edge_distances(self, p: FieldPoint) -> dict[str, float]:
        return {"near": p.y, "far": self.depth - p.y, "left": p.x, "right": self.width - p.x}

    def nearest(self, p: FieldPoint) -> tuple[str, float]:
        """The nearest edge and how far it is (ties: near, far, left, right in that order)."""
        d = self.edge_distances(p)
        name = min(d, key=lambda k: d[k])
        return name, d[name]

    def strictly_inside(self, p: FieldPoint) -> bool:
        return 0.0 < p.x < self.width and 0.0 < p.y < self.depth

    def crossing(self, start: FieldPoint, end: FieldPoint) -> tuple[float, str, FieldPoint]:
        """Where the straight path from ``start`` (inside) to ``end`` (on or outside the
        edge) first meets the edge: the distance travelled, the edge, the point."""
        dx, dy = end.x - start.x, end.y - start.y
        best = (math.inf, "near")
        for name, limit, pos, vel in (
            ("left", 0.0, start.x, dx),
            ("right", self.width, start.x, dx),
            ("near", 0.0, start.y, dy),
            ("far", self.depth, start.y, dy),
        ):
            if vel != 0.0:
                t = (limit - pos) / vel
                if 0.0 <= t < best[0]:
                    best = (t, name)
        t, name = best
        t = 0.0 if math.isinf(t) else min(t, 1.0)
        point = FieldPoint(start.x + t * dx, start.y + t * dy)
        return t * math.hypot(dx, dy), name, point


@dataclass(frozen=True)
class MovePlan:
    """A judged move: where the piece ends (``None`` when it left the field), its facing,
    how far its centre travelled, and the edge it left by."""

    to: FieldPoint | None
    facing: float
    distance: float
    edge: str | None = None
    exit_point: FieldPoint | None = None

    @property
    def leaves(self) -> bool:
        return self.to is None


def _q(x: float) -> str:
    return f'{x:.2f}"'


def must_move(observed: bool, last_piece: bool, opts: TheGameOptions) -> bool:
    """Whether the piece may not be left unmoved this movement phase."""
    return last_piece or (not observed and opts.unobserved_must_move)


def plan_move(
    piece: Piece,
    to: FieldPoint,
    facing: float | None,
    observed: bool,
    last_piece: bool,
    opts: TheGameOptions,
) -> Verdict | MovePlan:
    """Judge a measured move; a :class:`MovePlan` when legal, else the illegal verdict."""
    field = Field(opts.field_width, opts.field_depth)
    end_facing = piece.facing if facing is None else facing % 360.0
    if observed and not last_piece:
        return _observed(piece, to, end_facing, field, opts)
    return _unobserved(piece, to, end_facing, field, last_piece, opts)


def _observed(
    piece: Piece, to: FieldPoint, facing: float, field: Field, opts: TheGameOptions
) -> Verdict | MovePlan:
    allowance, tol = opts.observed_move, opts.tolerance
    if field.strictly_inside(to):
        distance, edge, exit_point = piece.at.distance(to), None, None
    else:
        distance, edge, exit_point = field.crossing(piece.at, to)
    if distance > allowance + tol + ROUNDING:
        excess = distance - allowance
        return Verdict.illegal(
            "too-far",
            f"{piece.id} is observed and may move up to {_q(allowance)}; it moved "
            f"{_q(distance)}, {_q(excess)} too far (tolerance {_q(tol)}).",
            piece=piece.id, distance=round(distance, 4), allowance=allowance,
            excess=round(excess, 4), tolerance=tol,
        )
    if edge is None:
        return MovePlan(to, facing, distance)
    return MovePlan(None, facing, distance, edge, exit_point)


def _unobserved(
    piece: Piece,
    to: FieldPoint,
    facing: float,
    field: Field,
    last_piece: bool,
    opts: TheGameOptions,
) -> Verdict | MovePlan:
    allowance, tol = opts.unobserved_move, opts.tolerance
    full = last_piece or opts.unobserved_full_move
    why = "the last piece" if last_piece else "unobserved"
    edges = field.edge_distances(piece.at)
    nearest = min(edges.values())
    best: Verdict | None = None
    best_lateral = math.inf
    for name, e in edges.items():
        if e > nearest + tol + ROUNDING:
            continue
        nx, ny = _NORMALS[name]
        dx, dy = to.x - piece.at.x, to.y - piece.at.y
        along = dx * nx + dy * ny
        lateral = abs(dx * ny - dy * nx)
        leaves_now = not field.strictly_inside(to)
        if lateral > tol + ROUNDING or along < -tol - ROUNDING:
            how = (f"its move strays {_q(lateral)} to the side" if lateral > tol + ROUNDING
                   else f"it moved {_q(-along)} away from it")
            verdict = Verdict.illegal(
                "not-towards-edge",
                f"{piece.id} is {why} and must move straight towards the nearest edge "
                f"({name}); {how}.",
                piece=piece.id, edge=name, lateral=round(lateral, 4), tolerance=tol,
            )
        else:
            reach = min(e, allowance)
            travelled = min(along, e) if leaves_now else along
            if travelled > allowance + tol + ROUNDING:
                excess = travelled - allowance
                verdict = Verdict.illegal(
                    "too-far",
                    f"{piece.id} is {why} and moves {_q(allowance)} towards the {name} edge; "
                    f"it moved {_q(travelled)}, {_q(excess)} too far (tolerance {_q(tol)}).",
                    piece=piece.id, distance=round(travelled, 4), allowance=allowance,
                    excess=round(excess, 4), tolerance=tol,
                )
            elif full and travelled < reach - tol - ROUNDING:
                short = reach - travelled
                goal = "to the edge" if e <= allowance else _q(allowance)
                verdict = Verdict.illegal(
                    "too-short",
                    f"{piece.id} is {why} and must move the whole way {goal} towards the "
                    f"{name} edge; it stopped {_q(short)} short (tolerance {_q(tol)}).",
                    piece=piece.id, distance=round(travelled, 4), required=round(reach, 4),
                    shortfall=round(short, 4), tolerance=tol,
                )
            elif not full and not leaves_now and opts.unobserved_must_move and travelled <= tol:
                verdict = Verdict.illegal(
                    "must-move",
                    f"{piece.id} is {why} and must move towards the {name} edge; it moved only "
                    f"{_q(max(travelled, 0.0))} (tolerance {_q(tol)}): turning where it stands is not a move.",
                    piece=piece.id, distance=round(max(travelled, 0.0), 4), tolerance=tol,
                )
            else:
                # a full move leaves whenever the nearest edge is in reach, whichever of
                # the equally near edges the piece heads for
                if leaves_now or (full and nearest <= allowance + ROUNDING):
                    exit_point = _edge_point(piece.at, name, e)
                    return MovePlan(None, facing, min(e, max(travelled, 0.0)), name, exit_point)
                return MovePlan(to, facing, max(along, 0.0))
        if lateral < best_lateral:
            best, best_lateral = verdict, lateral
    assert best is not None  # the nearest edge is always a candidate
    return best


def _edge_point(at: FieldPoint, edge: str, distance: float) -> FieldPoint:
    nx, ny = _NORMALS[edge]
    return FieldPoint(at.x + nx * distance, at.y + ny * distance)


def plan_exit(
    piece: Piece, observed: bool, last_piece: bool, opts: TheGameOptions
) -> Verdict | MovePlan:
    """Judge a piece walking off the field (no end position measured)."""
    field = Field(opts.field_width, opts.field_depth)
    edge, e = field.nearest(piece.at)
    allowance = opts.observed_move if observed and not last_piece else opts.unobserved_move
    if e > allowance + opts.tolerance + ROUNDING:
        excess = e - allowance
        return Verdict.illegal(
            "edge-out-of-reach",
            f"{piece.id} may move {_q(allowance)} but the nearest edge ({edge}) is {_q(e)} "
            f"away, {_q(excess)} beyond its reach.",
            piece=piece.id, distance=round(e, 4), allowance=allowance, excess=round(excess, 4),
        )
    return MovePlan(None, piece.facing, e, edge, _edge_point(piece.at, edge, e))


def representative_moves(
    piece: Piece, observed: bool, last_piece: bool, opts: TheGameOptions
) -> list[tuple[FieldPoint, float] | None]:
    """One move of each kind the piece may make (``None`` stands for walking off).

    Observed: a step straight ahead (the full allowance, or up to half an inch short of the
    edge; a half-turn on the spot when it stands against the edge) and, when an edge is in
    reach, walking off. Unobserved: the one move it must make (walking off when the nearest
    edge is in reach, else the full allowance towards it).
    """
    field = Field(opts.field_width, opts.field_depth)
    edge, e = field.nearest(piece.at)
    if not observed or last_piece:
        if e <= opts.unobserved_move:
            return [None]
        return [(_edge_point(piece.at, edge, opts.unobserved_move), piece.facing)]
    fx, fy = unit(piece.facing)
    ahead = field.crossing(piece.at, FieldPoint(piece.at.x + fx * 1e4, piece.at.y + fy * 1e4))[0]
    step = min(opts.observed_move, ahead - 0.5)
    out: list[tuple[FieldPoint, float] | None] = []
    if step > 0.1:
        out.append((FieldPoint(piece.at.x + fx * step, piece.at.y + fy * step), piece.facing))
    else:
        out.append((piece.at, (piece.facing + 180.0) % 360.0))
    if e <= opts.observed_move:
        out.append(None)
    return out
