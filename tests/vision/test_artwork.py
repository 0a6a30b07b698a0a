"""The artwork contract: kits, board images with their markers and transforms, piece faces."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from calibration.markers import KITS as MARKER_KITS
from calibration.markers import locate_board
from calibration.pose import UNITS
from rules.battle_grounds.board import Board
from rules.battle_grounds.board import Colour as SquareColour
from rules.geometry import Hex
from rules.oneworld.board import Terrain
from rules.registry import game_names
from rules.wormholes.board import CELLS
from vision.artwork import KITS, PRINT_PX_PER_MM, ArtworkError, PieceKind, get_kit
from vision.artwork.battle_grounds import SQUARE_COLOURS
from vision.artwork.dice import around, die_side
from vision.artwork.draw import apply
from vision.layout import HexLayout

BOARDS = [  # (game, layout, marker kit)
    ("oneworld", None, "oneworld-map"),
    ("when-gods-collide", None, "when-gods-collide-mat"),
    ("wormholes", None, "wormholes-galaxy"),
    ("battle-grounds", "basic", "battle-grounds-basic"),
    ("battle-grounds", "advanced", "battle-grounds-advanced"),
    ("the-game", None, "the-game-field"),
]


def _colour_at(image: np.ndarray, h: np.ndarray, point: tuple[float, float]) -> np.ndarray:
    x, y = apply(h, [point])[0]
    return image[round(y), round(x)].astype(int)


def _close(a: np.ndarray, b: tuple[int, int, int], tol: int = 6) -> bool:
    return bool(np.abs(a - np.asarray(b)).max() <= tol)


# -- the kits ---------------------------------------------------------------------------------


def test_every_game_has_a_kit_with_units_of_its_marker_spec() -> None:
    assert set(KITS) == set(game_names())
    for game, kit in KITS.items():
        assert kit.game == game and get_kit(game) is kit
        assert kit.units in UNITS
        spec = kit.marker_spec()
        assert (kit.units, kit.mm_per_unit) == (spec.units, spec.unit_mm)
        assert kit.board_size() == spec.size
        assert kit.pieces and all(
            name == k.name and isinstance(k, PieceKind) for name, k in kit.pieces.items()
        )


@pytest.mark.parametrize(
    ("game", "expected"),
    [
        (
            "oneworld",
            {"borg-stone", "borg-blade", "borg-fog", "borg-tower", "borg-god", "chez-god"},
        ),
        (
            "when-gods-collide",
            {
                "babylonian",
                "norse",
                "odin",
                "amun-ra",
                "seth-greek",
                "chess-knight",
                "hero-princess",
                "d6-6",
            },
        ),
        (
            "wormholes",
            {"pawn-suns", "coin-arms", "coin-null", "coin-5", "die-moons-ace", "die-crowns-null"},
        ),
        ("battle-grounds", {"north-sa", "south-i", "south-ii", "north-iii", "south-cosmic"}),
        ("the-game", {"red-piece", "blue-piece"}),
    ],
)
def test_piece_classes_cover_what_the_detectors_read(game: str, expected: set[str]) -> None:
    assert expected <= set(get_kit(game).pieces)


def test_piece_counts_per_game() -> None:
    counts = {game: len(kit.pieces) for game, kit in KITS.items()}
    # OneWorld 2 x 5; WGC 4 armies + 4 gods + 4 Seth tokens + 18 die faces; Wormholes 4 pawns +
    # 4 suit + 6 value coin sides + 24 die faces; Battle Grounds 2 sides x 5 levels; The Game 2.
    assert counts == {
        "oneworld": 10,
        "when-gods-collide": 30,
        "wormholes": 38,
        "battle-grounds": 10,
        "the-game": 2,
    }


def test_bad_requests_raise_artwork_errors() -> None:
    with pytest.raises(ArtworkError, match="no printable kit for game 'chess'"):
        get_kit("chess")
    kit = get_kit("oneworld")
    with pytest.raises(ArtworkError, match="no piece 'borg-king'"):
        kit.piece_face("borg-king", 3.0)
    with pytest.raises(ArtworkError, match="no face 'side'"):
        kit.piece_face("borg-stone", 3.0, "side")
    with pytest.raises(ArtworkError, match="px_per_mm must be between"):
        kit.board_image(0.0)
    with pytest.raises(ArtworkError, match="must be a number"):
        kit.piece_face("borg-stone", "big")  # type: ignore[arg-type]
    with pytest.raises(ArtworkError, match="no bundled OneWorld map 'moon'"):
        kit.board_image(1.0, "moon")
    with pytest.raises(ArtworkError, match="'basic' or 'advanced'"):
        get_kit("battle-grounds").board_size("huge")
    with pytest.raises(ArtworkError, match="even coordinates"):
        get_kit("when-gods-collide").board_image(1.0, [(1, 0)])
    with pytest.raises(ArtworkError, match="off the 16 x 16 mat"):
        get_kit("when-gods-collide").board_image(1.0, [(16, 0)])
    with pytest.raises(ArtworkError, match="'galaxy'"):
        get_kit("wormholes").board_image(1.0, "spiral")
    with pytest.raises(ArtworkError, match="width, depth"):
        get_kit("the-game").board_size("wide")
    with pytest.raises(ArtworkError, match="PieceKind|shape"):
        PieceKind("x", (1.0, 1.0), 1.0, False, "hexagon")


# -- board images: transforms, colours, markers ----------------------------------------------


@pytest.mark.parametrize(("game", "layout", "marker_kit"), BOARDS)
def test_board_markers_are_read_back_where_the_transform_puts_them(
    game: str, layout: object, marker_kit: str
) -> None:
    kit = get_kit(game)
    image, h = kit.board_image(2.5, layout)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    spec = MARKER_KITS[marker_kit]
    assert kit.marker_spec(layout) == spec
    fit = locate_board(image, spec)
    assert fit.used == spec.ids and not fit.hidden
    # The detector's sub-pixel corners wander by up to ~0.75 px with the phase of a marker's
    # edge in the pixel grid, even on exactly drawn markers; the fitted pose averages it out.
    assert fit.pose.quality.residual_px < 0.8
    x0, y0, x1, y1 = spec.area
    probe = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), ((x0 + x1) / 2, (y0 + y1) / 2)]
    assert np.abs(fit.pose.to_image(probe) - apply(h, probe)).max() < 0.5
    # the transform honours mm_per_unit: one board unit is mm_per_unit millimetres
    assert abs(np.hypot(h[0, 0], h[1, 0]) - 2.5 * kit.mm_per_unit) < 1e-9


@pytest.mark.parametrize(("game", "layout", "marker_kit"), BOARDS)
def test_markers_are_drawn_exactly_where_the_spec_puts_them(
    game: str, layout: object, marker_kit: str
) -> None:
    """Each marker's black border, measured by its ink along a line through it, has the
    specified length and centre to a few hundredths of a pixel."""
    kit = get_kit(game)
    px_per_mm = 2.7
    image, h = kit.board_image(px_per_mm, layout)
    spec = MARKER_KITS[marker_kit]
    ink = (255.0 - image[:, :, 1].astype(float)) / 255.0
    for marker_id in spec.ids:
        c = apply(h, spec.marker_corners(marker_id))
        (xa, ya), (xb, yb) = c.min(axis=0), c.max(axis=0)
        side = spec.marker_mm * px_per_mm
        cell = side / 6
        row = round(ya + cell / 2)  # through the top border, all black
        xs = np.arange(int(xa - cell / 2), int(xb + cell / 2) + 1)
        run = ink[row, xs]
        assert abs(run.sum() - side) < 0.03
        assert abs((run * xs).sum() / run.sum() - (xa + xb) / 2) < 0.03
        col = round(xa + cell / 2)  # down the left border
        ys = np.arange(int(ya - cell / 2), int(yb + cell / 2) + 1)
        run = ink[ys, col]
        assert abs(run.sum() - side) < 0.03
        assert abs((run * ys).sum() / run.sum() - (ya + yb) / 2) < 0.03


def test_a_board_at_print_scale_is_true_size() -> None:
    kit = get_kit("battle-grounds")
    image, h = kit.board_image(PRINT_PX_PER_MM, "basic")
    assert h[0, 0] == pytest.approx(40.0 * 300 / 25.4)  # a 40 mm square is 472.4 px at 300 dpi
    spec = kit.marker_spec("basic")
    fit = locate_board(image, spec)
    corners = fit.pose.to_image(spec.marker_corners(12))
    side_px = np.linalg.norm(corners[1] - corners[0])
    assert abs(side_px - spec.marker_mm * 300 / 25.4) < 1.0  # 30 mm = 354.3 px at 300 dpi
    square_px = np.linalg.norm(fit.pose.to_image([(1.0, 0.0)]) - fit.pose.to_image([(0.0, 0.0)]))
    assert abs(square_px - 40.0 * 300 / 25.4) < 0.3  # 472.4 px: 0.06 % of a square


@pytest.mark.parametrize("layout", ["basic", "advanced"])
def test_battle_grounds_squares_are_drawn_where_the_transform_says(layout: str) -> None:
    kit = get_kit("battle-grounds")
    image, h = kit.board_image(2.0, layout)
    board = Board.standard(layout)
    for sq in board.squares():
        colour = board.colour(sq)
        if colour is SquareColour.MULTI:  # six wedges: red at the top, purple at the top left
            assert _close(
                _colour_at(image, h, (sq.x + 0.6, sq.y + 0.1)), SQUARE_COLOURS[SquareColour.RED]
            )
            assert _close(
                _colour_at(image, h, (sq.x + 0.4, sq.y + 0.1)), SQUARE_COLOURS[SquareColour.PURPLE]
            )
        else:
            assert _close(_colour_at(image, h, (sq.x + 0.5, sq.y + 0.5)), SQUARE_COLOURS[colour]), (
                sq,
                colour,
            )


def test_battle_grounds_custom_colours_are_drawn() -> None:
    kit = get_kit("battle-grounds")
    board = Board.standard("basic", ("GGGGGG",) * 7)
    image, h = kit.board_image(1.0, board)
    assert _close(_colour_at(image, h, (0.5, 0.5)), SQUARE_COLOURS[SquareColour.GREEN])


def test_oneworld_terrain_runelines_and_chaos_are_where_the_map_says() -> None:
    from vision.artwork import oneworld as ow

    kit = get_kit("oneworld")
    image, h = kit.board_image(4.0)
    m = kit.map_of()  # type: ignore[attr-defined]
    layout = HexLayout(1.0)
    fills = {Terrain.FLATLAND: ow._FLATLAND, Terrain.PYLON: ow._PYLON, Terrain.TOWER: ow._TOWER}
    for hx, terrain in m.cells.items():
        cx, cy = layout.center(hx)
        assert _close(_colour_at(image, h, (cx - 0.7, cy)), fills[terrain]), (hx.label(), terrain)
    chaos = [
        Hex.from_offset(c, r)
        for c in range(1, m.columns + 1)
        for r in range(1, m.rows + 1)
        if not m.on_map(Hex.from_offset(c, r))
    ]
    assert len(chaos) == 28
    for hx in chaos:
        assert _colour_at(image, h, layout.center(hx)).sum() < 250  # the dark void
    for side in m.runelines:
        mid = np.mean([layout.center(side.a), layout.center(side.b)], axis=0)
        assert _close(_colour_at(image, h, tuple(mid)), ow._RUNE_CORE, 30)
    for side in m.faults:  # black zigzag on a violet glow: never green there
        mid = np.mean([layout.center(side.a), layout.center(side.b)], axis=0)
        assert not _close(_colour_at(image, h, tuple(mid)), ow._FLATLAND, 40)


def test_when_gods_collide_tiles_lie_on_the_mat_as_laid() -> None:
    from vision.artwork import when_gods_collide as wgc

    kit = get_kit("when-gods-collide")
    tiles = [(4, 4), (6, 4), (6, 6)]
    image, h = kit.board_image(2.0, tiles)
    covered = {(x + dx, y + dy) for x, y in tiles for dx in (0, 1) for dy in (0, 1)}
    for x, y in itertools.product(range(3, 10), range(3, 10)):
        colour = _colour_at(image, h, (x + 0.5, y + 0.5))
        if (x, y) in covered:
            assert _close(colour, wgc._LIGHT_SQ if (x + y) % 2 == 0 else wgc._DARK_SQ), (x, y)
        else:
            assert _close(colour, wgc._MAT), (x, y)


def test_when_gods_collide_engine_tiles_fit_the_mat() -> None:
    from vision.artwork.when_gods_collide import WhenGodsCollideKit

    engine_tiles = [{"at": "0,0", "owner": "greek"}, {"at": "2,0"}, {"at": "-2,2"}, {"at": "0,-4"}]
    dx, dy = WhenGodsCollideKit.mat_offset(engine_tiles)
    assert dx % 2 == 0 and dy % 2 == 0
    kit = get_kit("when-gods-collide")
    kit.board_image(
        1.0,
        [(int(t["at"].split(",")[0]) + dx, int(t["at"].split(",")[1]) + dy) for t in engine_tiles],
    )
    with pytest.raises(ArtworkError, match="16 x 16"):
        WhenGodsCollideKit.mat_offset([(0, 0), (18, 0)])
    assert len(kit.default_tiles()) == 24  # type: ignore[attr-defined]


def test_wormholes_cells_are_under_tiles_and_gaps_show_the_mat() -> None:
    from vision.artwork import wormholes as wh

    kit = get_kit("wormholes")
    image, h = kit.board_image(2.0)
    for x, y in itertools.product(range(1, 11), range(1, 19)):
        cx, cy = kit.cell_centre(x, y)  # type: ignore[attr-defined]
        colour = _colour_at(image, h, (cx - 0.25, cy - 0.25))
        expected = wh._TILE if any(c.x == x and c.y == y for c in CELLS) else wh._MAT
        assert _close(colour, expected), (x, y)


def test_the_game_field_is_a_mat_in_inches_with_y_away_from_the_near_edge() -> None:
    from vision.artwork import the_game as tg

    kit = get_kit("the-game")
    image, h = kit.board_image(1.0, (36, 24))
    assert kit.board_size((36, 24)) == (36.0, 24.0)
    near, far = apply(h, [(18, 1), (18, 23)])
    assert far[1] < near[1]  # the far edge is at the top of the image
    assert _close(_colour_at(image, h, (18, 12)), tg._MAT)
    assert kit.dot_sticker("red", 4.0).shape == (48, 48, 4)  # type: ignore[attr-defined]
    with pytest.raises(ArtworkError, match="no dot colour"):
        kit.dot_sticker("green", 4.0)  # type: ignore[attr-defined]


def test_drawings_come_back_as_fresh_copies() -> None:
    kit = get_kit("battle-grounds")
    a, h = kit.board_image(1.0)
    a[:] = 0
    h[:] = 0
    b, h2 = kit.board_image(1.0)
    assert b.max() == 255 and h2[2, 2] == 1.0
    face = kit.piece_face("north-i", 2.0)
    face[:] = 0
    assert kit.piece_face("north-i", 2.0)[:, :, 3].max() == 255


# -- piece faces ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(KITS))
@pytest.mark.parametrize("px_per_mm", [2.0, 5.3])
def test_piece_faces_are_bgra_of_the_right_size(game: str, px_per_mm: float) -> None:
    kit = get_kit(game)
    for name, kind in kit.pieces.items():
        for face in kit.faces(name):
            img = kit.piece_face(name, px_per_mm, face)
            w, h = kind.size_px(px_per_mm, face)
            assert img.shape == (h, w, 4) and img.dtype == np.uint8, (name, face)
            alpha = img[:, :, 3]
            assert alpha.max() == 255, (name, face)
            if kind.shape == "disc" and face == "top":
                assert alpha[0, 0] == 0 and alpha[h // 2, w // 2] == 255, name
            if kind.shape in ("square", "die"):
                assert (alpha[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4] == 255).all(), name
            if kind.shape == "natural":  # only the front dot: at the top of the image
                assert alpha[h // 5, w // 2] == 255 and alpha[4 * h // 5, w // 2] == 0


def test_face_edges_keep_the_piece_colour() -> None:
    """Anti-aliased edge pixels carry the piece's own colour (their alpha does the blending),
    so a face pasted on any table gets no dark fringe."""
    from vision.artwork.when_gods_collide import _ARMY

    face = get_kit("when-gods-collide").piece_face("greek", 3.0)
    alpha = face[:, :, 3]
    edge = (alpha > 20) & (alpha < 235)
    assert edge.sum() > 20
    assert np.abs(face[edge][:, :3].astype(int) - np.asarray(_ARMY["greek"][0])).mean() < 12


def test_standing_pieces_have_a_front_taller_than_wide() -> None:
    for kit in KITS.values():
        for name, kind in kit.pieces.items():
            if kind.standing:
                front = kit.piece_face(name, 3.0, "front")
                assert front.shape[0] == round(kind.height_mm * 3.0) > front.shape[1] // 2


def _signature(face: np.ndarray, blur_px: float, size: int, colour: bool = True) -> np.ndarray:
    """The face as a camera far away sees it: on grey, blurred, shrunk to ``size`` pixels."""
    a = face[:, :, 3:4] / 255.0
    img = np.uint8(face[:, :, :3] * a + 128 * (1 - a))
    if not colour:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    img = cv2.GaussianBlur(img.astype(float), (0, 0), blur_px)
    return cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize(
    ("game", "least"),
    [("oneworld", 15.0), ("when-gods-collide", 5.0), ("wormholes", 2.5), ("battle-grounds", 4.0)],
)
def test_faces_of_one_game_stay_distinct_when_blurred(game: str, least: float) -> None:
    """Drawn at 8 px/mm, blurred by half a millimetre and seen 24 pixels across, the two most
    alike faces of a game still differ by ``least`` grey levels on average (numerals on small
    piecepack coins and dice are the closest: a 3 and a 5)."""
    kit = get_kit(game)
    sigs = {n: _signature(kit.piece_face(n, 8.0), 4.0, 24) for n in kit.pieces}
    closest = min(
        (np.abs(sigs[a] - sigs[b]).mean(), a, b)
        for a, b in itertools.combinations(sigs, 2)
        if sigs[a].shape == sigs[b].shape
    )
    assert closest[0] > least, closest


def test_oneworld_counters_keep_their_shapes_through_a_heavy_blur() -> None:
    """Grey only, blurred by a whole millimetre and 12 pixels across (a counter far off in a
    640x480 frame): every counter of a side still differs from every other by shape."""
    kit = get_kit("oneworld")
    for side in ("borg", "chez"):
        sigs = [
            _signature(kit.piece_face(f"{side}-{a}", 8.0), 8.0, 12, colour=False)
            for a in ("stone", "blade", "fog", "tower", "god")
        ]
        for a, b in itertools.combinations(range(5), 2):
            assert np.abs(sigs[a] - sigs[b]).mean() > 10.0, (side, a, b)


# -- dice ------------------------------------------------------------------------------------------


def test_the_faces_around_a_top_are_its_four_neighbours() -> None:
    faces = ["1", "2", "3", "4", "5", "6"]
    for top in faces:
        ring = around(faces, top)
        opposite = str(7 - int(top))
        assert sorted(ring) == sorted(f for f in faces if f not in (top, opposite))
        for a, b in zip(ring, ring[1:] + ring[:1]):  # neighbours in the ring are never opposite
            assert int(a) + int(b) != 7
    assert die_side(faces, "6", "side") == around(faces, "6")[0]


def test_a_die_side_face_is_the_top_face_of_that_value() -> None:
    kit = get_kit("when-gods-collide")
    for k in range(1, 5):
        value = around(["1", "2", "3", "4", "5", "6"], "3")[k - 1]
        assert np.array_equal(
            kit.piece_face("d6-3", 4.0, f"side-{k}"), kit.piece_face(f"d6-{value}", 4.0)
        )
    hero = kit.piece_face("hero-imp", 4.0, "side")
    assert any(
        np.array_equal(hero, kit.piece_face(f"hero-{f}", 4.0))
        for f in ("double-knight", "winged-sandals")
    )
