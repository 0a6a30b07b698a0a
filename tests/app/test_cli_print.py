"""``tabletop print``: true-size pages, readable PDFs, scale bars, and boards that the
calibration code reads back at true scale."""

from __future__ import annotations

import itertools
import re
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.markers import KITS as MARKER_KITS
from calibration.markers import MarkerConfig, detect_markers, locate_board, scale_marker_spec
from tabletop import printing
from vision.artwork.draw import apply
from vision.artwork.pages import PAPERS, Page, content_box, scale_bar_boxes

PX_PER_MM = 300 / 25.4
POSTER_MARKERS = {  # the marker kits each game's posters carry
    "oneworld": ["oneworld-map"],
    "when-gods-collide": ["when-gods-collide-mat"],
    "wormholes": ["wormholes-galaxy"],
    "battle-grounds": ["battle-grounds-basic", "battle-grounds-advanced"],
    "the-game": [],
}


def read_pdf(path: Path) -> list[tuple[tuple[float, float], np.ndarray]]:
    """Each page's media box (points) and image (BGR), checking the file's structure:
    header, cross-reference table, page tree, and lossless image streams."""
    data = path.read_bytes()
    assert data.startswith(b"%PDF-1.4\n")
    tail = re.search(rb"startxref\n(\d+)\n%%EOF\n$", data)
    assert tail, "no startxref at the end"
    xref = int(tail.group(1))
    head = re.match(rb"xref\n0 (\d+)\n", data[xref:])
    assert head
    count = int(head.group(1))
    entries = data[xref + head.end() : xref + head.end() + 20 * count]
    offsets = {n: int(entries[20 * n : 20 * n + 10]) for n in range(1, count)}

    def obj(n: int) -> bytes:
        at = offsets[n]
        assert data[at:].startswith(f"{n} 0 obj\n".encode()), f"object {n} is not at its offset"
        return data[at : data.index(b"\nendobj\n", at)]

    trailer = data[data.index(b"trailer", xref) :]
    assert b"/Root 1 0 R" in trailer
    assert b"/Pages 2 0 R" in obj(1)
    tree = obj(2)
    kids = [
        int(k) for k in re.findall(rb"(\d+) 0 R", re.search(rb"/Kids \[([^\]]*)\]", tree).group(1))
    ]
    assert int(re.search(rb"/Count (\d+)", tree).group(1)) == len(kids)
    pages = []
    for kid in kids:
        page = obj(kid)
        box = [float(v) for v in re.search(rb"/MediaBox \[([^\]]*)\]", page).group(1).split()]
        image = obj(int(re.search(rb"/Im0 (\d+) 0 R", page).group(1)))
        w = int(re.search(rb"/Width (\d+)", image).group(1))
        h = int(re.search(rb"/Height (\d+)", image).group(1))
        length = int(re.search(rb"/Length (\d+)", image).group(1))
        start = image.index(b"stream\n") + 7
        rgb = np.frombuffer(zlib.decompress(image[start : start + length]), np.uint8).reshape(
            h, w, 3
        )
        pages.append(((box[2], box[3]), rgb[:, :, ::-1]))
    return pages


def png_dpi(path: Path) -> float:
    data = path.read_bytes()
    at = data.index(b"pHYs")
    ppm_x, ppm_y, unit = struct.unpack(">IIB", data[at + 4 : at + 13])
    assert unit == 1 and ppm_x == ppm_y
    return ppm_x * 0.0254


def marker_ids(image: np.ndarray) -> set[int]:
    half = cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    return set(detect_markers(half).ids.tolist())


# -- every game prints ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(POSTER_MARKERS))
def test_every_game_prints_true_size_letter_pages_with_its_markers(
    cli, tmp_path: Path, game: str
) -> None:
    result = cli("print", game, "--out", str(tmp_path), "--format", "pdf")
    assert result.code == 0, result.err
    assert f"{game}-letter.pdf" in result.out and "Print at 100%" in result.out
    pages = read_pdf(tmp_path / f"{game}-letter.pdf")
    assert len(pages) >= 4
    for box, image in pages:
        assert box == (612.0, 792.0)  # 8.5 x 11 inches
        assert image.shape == (3300, 2550, 3)
    found = set().union(*(marker_ids(image) for _, image in pages))
    expected = {i for name in POSTER_MARKERS[game] for i in MARKER_KITS[name].ids}
    if game == "the-game":
        expected = {40, 41, 42, 43, 44}
    assert found == expected


def test_a4_pages_as_png_and_pdf_hold_the_same_pixels(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("print", "the-game", "--paper", "a4")  # both formats, default folder
    assert result.code == 0, result.err
    folder = tmp_path / "the-game-kit"
    pngs = sorted(folder.glob("the-game-a4-*.png"))
    pages = read_pdf(folder / "the-game-a4.pdf")
    assert len(pngs) == len(pages) >= 3
    for png, (box, image) in zip(pngs, pages):
        assert png_dpi(png) == pytest.approx(300, abs=0.01)
        read = cv2.imread(str(png))
        assert read.shape == (3508, 2480, 3)  # 210 x 297 mm at 300 dpi
        assert box == pytest.approx((595.2, 841.92))
        assert np.array_equal(read, image)  # lossless both ways


# -- scale bars and true size --------------------------------------------------------------------


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_scale_bars_are_100_mm_and_4_inches(paper: str) -> None:
    page = next(printing.iter_pages("the-game", paper))
    ink = (255.0 - page.image[:, :, 1].astype(float)) / 255.0
    for name, length_mm in (("mm", 100.0), ("inch", 101.6)):
        x0, y0, x1, y1 = scale_bar_boxes(PAPERS[paper])[name]
        row = round((y0 + y1) / 2)
        xs = np.arange(int(x0) - 20, int(x1) + 21)
        run = ink[row, xs]
        assert run.sum() == pytest.approx(length_mm * PX_PER_MM, abs=0.05)  # 1181.1 and 1200.0 px
        assert (run * xs).sum() / run.sum() == pytest.approx((x0 + x1) / 2, abs=0.05)
        assert ink[row, xs[0]] == 0 and ink[row, xs[-1]] == 0


@pytest.fixture(scope="module")
def basic_board_pages() -> list[Page]:
    pages = list(
        itertools.takewhile(
            lambda p: p.sheet == "Battle Grounds basic board",
            printing.iter_pages("battle-grounds", "letter"),
        )
    )
    assert len(pages) == 4
    return pages


def test_each_board_page_shows_its_markers_where_its_transform_says(basic_board_pages) -> None:
    spec = MARKER_KITS["battle-grounds-basic"]
    seen = set()
    for page in basic_board_pages:
        h = page.board_to_px
        assert h is not None and h[0, 0] == pytest.approx(40.0 * PX_PER_MM)  # 40 mm squares
        sighting = detect_markers(page.image)
        for marker_id in sighting.ids.tolist():
            expected = apply(h, spec.marker_corners(marker_id))
            assert (
                np.abs(sighting.corners_of(marker_id) - expected).max() < 1.0
            )  # detector bias < 1 px
            seen.add(marker_id)
    assert seen == set(spec.ids)


def test_the_assembled_board_is_read_back_at_true_scale(basic_board_pages) -> None:
    """Lay the pages over each other as the instructions say (each page's board transform
    gives its place), check that the overlaps agree, and calibrate on the result."""
    spec = MARKER_KITS["battle-grounds-basic"]
    cx, cy, cw, ch = content_box(PAPERS["letter"])
    first = basic_board_pages[0].board_to_px
    shifts = [np.round(p.board_to_px[:2, 2] - first[:2, 2]).astype(int) for p in basic_board_pages]  # type: ignore[index]
    for p, s in zip(basic_board_pages, shifts):
        assert np.allclose(p.board_to_px[:2, 2] - first[:2, 2], s)  # type: ignore[index]
    # page k's pixel u lies at u - shift_k in the first page's pixels; put each content box there
    size = -np.min(shifts, axis=0) + [cw, ch]
    board = np.full((size[1], size[0], 3), 255, np.uint8)
    written = np.zeros(board.shape[:2], bool)
    agree = total = 0
    for page, s in zip(basic_board_pages, shifts):
        crop = page.image[cy : cy + ch, cx : cx + cw]
        x, y = int(-s[0]), int(-s[1])
        region = board[y : y + ch, x : x + cw]
        both = written[y : y + ch, x : x + cw]
        agree += int((region[both] == crop[both]).all(axis=1).sum())
        total += int(both.sum())
        region[:] = crop
        written[y : y + ch, x : x + cw] = True
    assert total > 0 and agree / total > 0.99  # only the dashed cut lines differ
    fit = locate_board(board, spec, config=MarkerConfig(min_coverage=0.0))
    assert fit.used == spec.ids
    corners = fit.pose.board_corners_in_image()
    width_px = np.linalg.norm(corners[1] - corners[0])
    height_px = np.linalg.norm(corners[3] - corners[0])
    assert width_px == pytest.approx(6 * 40 * PX_PER_MM, abs=1.0)  # 240 mm
    assert height_px == pytest.approx(7 * 40 * PX_PER_MM, abs=1.0)  # 280 mm


def test_the_scale_marker_page_gives_inches_at_true_scale() -> None:
    page = next(
        p for p in printing.iter_pages("the-game", "letter") if p.sheet == "The Game scale marker"
    )
    fit = locate_board(page.image, scale_marker_spec(), config=MarkerConfig(min_coverage=0.0))
    origin, right, up = fit.pose.to_image([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)])
    assert np.linalg.norm(right - origin) == pytest.approx(300.0, abs=0.5)  # one inch
    assert np.linalg.norm(up - origin) == pytest.approx(300.0, abs=0.5)
    assert right[0] > origin[0] and up[1] < origin[1]  # x to the right, y away from the near edge


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["print", "chess"], "no printable kit for game 'chess'"),
        (["print", "oneworld", "--format", "tiff"], "unknown format tiff"),
        (["print", "oneworld", "--paper", "legal"], "invalid choice: 'legal'"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(cli, argv: list[str], message: str) -> None:
    result = cli(*argv)
    assert result.code == 2
    assert message in result.error_line()


def test_an_unusable_output_folder_gives_one_line_and_exit_2(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder")
    result = cli("print", "the-game", "--out", str(a_file))
    assert result.code == 2 and "is a file, not a folder" in result.error_line()
    result = cli("print", "the-game", "--out", str(a_file / "kit"))
    assert result.code == 2 and "cannot make the output folder" in result.error_line()

    def refuse(self: Path, data: bytes) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "write_bytes", refuse)
    result = cli("print", "the-game", "--out", str(tmp_path / "locked"))
    assert result.code == 2
    assert result.error_line().endswith("cannot write to the output folder: Permission denied")


def test_print_help_names_the_papers_and_formats(cli) -> None:
    result = cli("print", "--help")
    assert result.code == 0
    assert (
        "--paper {a4,letter}" in result.out
        and "pdf,png" in result.out
        and "scale bar" in result.out
    )
