"""Printed pages: a kit's sheets laid out on paper at 300 dpi, ready to write to files.

Posters (a board or mat with its calibration markers) are split over as many pages as they
need; pieces to cut out are packed row by row. Every page carries a header naming the sheet
and the page, and two scale bars, 100 mm and 4 inches, to check that the printer printed at
100 %. Files are written by :mod:`tabletop.printing`; nothing here touches the disk.

A poster larger than the page becomes a grid of pages that overlap by 12 mm or more. Each
page not in the first column (row) has a dashed cut line down the middle of its left (top)
overlap, and thin registration crosses sit on those lines, printed on both neighbours. To
assemble: cut along the dashed lines, lay each page over its neighbour so that the crosses
and the artwork line up, tape the seams on the back (docs/kits.md).

>>> PAPERS["a4"].size_px
(2480, 3508)
>>> from vision.artwork import get_kit
>>> page = next(iter_pages(get_kit("the-game"), "letter"))
>>> page.image.shape, page.number
((3300, 2550, 3), 1)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from vision.artwork.draw import Colour, apply, paint_rect
from vision.artwork.kit import ArtworkError, Kit, PieceSheet, PosterSheet, PrintItem

__all__ = [
    "DPI",
    "PAPERS",
    "Page",
    "Paper",
    "content_box",
    "iter_pages",
    "paper",
    "scale_bar_boxes",
]

DPI = 300
PX_PER_MM = DPI / 25.4
MARGIN_MM = 8.0
HEADER_MM = 11.0
FOOTER_MM = 24.0
OVERLAP_MM = 12.0
GUTTER_MM = 2.0

_INK = (40, 40, 40)
_GREY = (150, 150, 150)
_CROSS = (160, 40, 170)


@dataclass(frozen=True)
class Paper:
    """A paper size; pages are drawn at :data:`DPI`."""

    name: str
    title: str
    width_mm: float
    height_mm: float

    @property
    def size_px(self) -> tuple[int, int]:
        return round(self.width_mm * PX_PER_MM), round(self.height_mm * PX_PER_MM)


PAPERS: dict[str, Paper] = {
    "letter": Paper("letter", "US Letter", 215.9, 279.4),
    "a4": Paper("a4", "A4", 210.0, 297.0),
}


@dataclass(frozen=True)
class Page:
    """One printed page: BGR at 300 dpi. ``board_to_px`` maps board units to this page's
    pixels on poster pages (``None`` elsewhere); ``part`` names a poster page: rows are letters
    from the top, columns numbers from the left ("B2": second row, second column)."""

    sheet: str
    image: np.ndarray
    number: int
    board_to_px: np.ndarray | None = None
    part: str = ""


def _mm(v: float) -> int:
    return round(v * PX_PER_MM)


def paper(name: str) -> Paper:
    """The paper called ``name`` (``letter`` or ``a4``)."""
    try:
        return PAPERS[name]
    except KeyError:
        raise ArtworkError(f"unknown paper {name!r} (use {' or '.join(PAPERS)})") from None


# -- page furniture -----------------------------------------------------------------------------


def _text(
    img: np.ndarray,
    text: str,
    x: float,
    y: float,
    height_mm: float,
    colour: Colour = _INK,
    bold: bool = False,
    align: str = "left",
) -> float:
    """Write ``text`` with its baseline at (x, y) mm; returns its width in mm."""
    font = cv2.FONT_HERSHEY_DUPLEX
    target = height_mm * PX_PER_MM
    (_, base), _ = cv2.getTextSize("H", font, 1.0, 1)
    scale = target / base
    thick = max(1, round((0.16 if bold else 0.1) * target))
    (w, _), _ = cv2.getTextSize(text, font, scale, thick)
    px = _mm(x) - (w if align == "right" else w // 2 if align == "centre" else 0)
    cv2.putText(img, text, (int(px), _mm(y)), font, scale, colour, thick, cv2.LINE_AA)
    return w / PX_PER_MM


def _wrap(text: str, width_mm: float, height_mm: float) -> list[str]:
    per_char = 0.62 * height_mm  # Hershey duplex: about this wide per character
    limit = max(10, int(width_mm / per_char))
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > limit:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + ([line] if line else [])


def scale_bar_boxes(paper: Paper) -> dict[str, tuple[float, float, float, float]]:
    """Where the two scale bars are on a page: name -> (x0, y0, x1, y1) in pixels (centre
    convention, edges exact): ``"mm"`` is 100 mm long, ``"inch"`` 4 inches."""
    h = paper.height_mm
    x0 = MARGIN_MM
    out = {}
    for name, length, bottom in (
        ("mm", 100.0, h - MARGIN_MM - 8.5),
        ("inch", 101.6, h - MARGIN_MM - 1.0),
    ):
        out[name] = (
            x0 * PX_PER_MM - 0.5,
            (bottom - 2.0) * PX_PER_MM - 0.5,
            (x0 + length) * PX_PER_MM - 0.5,
            bottom * PX_PER_MM - 0.5,
        )
    return out


def _scale_bars(img: np.ndarray, paper: Paper) -> None:
    for name, (x0, y0, x1, y1) in scale_bar_boxes(paper).items():
        paint_rect(img, x0, y0, x1, y1, (0, 0, 0))
        step_mm, n, label = (10.0, 10, "100 mm") if name == "mm" else (12.7, 8, "4 in")
        for k in range(n + 1):
            x = x0 + k * step_mm * PX_PER_MM
            tall = 2.2 if k % (5 if name == "mm" else 2) == 0 else 1.2
            paint_rect(
                img,
                x - 0.15 * PX_PER_MM,
                y0 - tall * PX_PER_MM,
                x + 0.15 * PX_PER_MM,
                y0,
                (0, 0, 0),
            )
        _text(img, label, (x1 + 0.5) / PX_PER_MM + 2.5, (y1 + 0.5) / PX_PER_MM, 2.4, bold=True)
    _text(
        img,
        "check: the bars must measure 100 mm and 4 in",
        MARGIN_MM + 122,
        paper.height_mm - MARGIN_MM - 8.5,
        2.2,
        _GREY,
    )


def _furniture(img: np.ndarray, paper: Paper, title: str, number: int, notes: str) -> None:
    w, h = paper.width_mm, paper.height_mm
    _text(img, title, MARGIN_MM, MARGIN_MM + 4.5, 4.0, bold=True)
    _text(img, f"page {number}", w - MARGIN_MM, MARGIN_MM + 4.5, 3.0, align="right")
    _text(
        img,
        "Print at 100% (actual size, no 'fit to page'); check the scale bars below.",
        MARGIN_MM,
        MARGIN_MM + 9.0,
        2.4,
        _GREY,
    )
    y = h - MARGIN_MM - FOOTER_MM + 4.5
    for line in _wrap(notes, w - 2 * MARGIN_MM, 2.6)[:3]:
        _text(img, line, MARGIN_MM, y, 2.6)
        y += 3.8
    _scale_bars(img, paper)


def content_box(paper: Paper) -> tuple[int, int, int, int]:
    """The content box of a page in pixels: x0, y0, width, height."""
    x0, y0 = _mm(MARGIN_MM), _mm(MARGIN_MM + HEADER_MM)
    x1, y1 = _mm(paper.width_mm - MARGIN_MM), _mm(paper.height_mm - MARGIN_MM - FOOTER_MM)
    return x0, y0, x1 - x0, y1 - y0


def _blank(paper: Paper) -> np.ndarray:
    w, h = paper.size_px
    return np.full((h, w, 3), 255, np.uint8)


# -- posters -------------------------------------------------------------------------------------


def _starts(total: int, window: int, overlap: int) -> list[int]:
    if total <= window:
        return [0]
    n = math.ceil((total - overlap) / (window - overlap))
    step = (total - window) / (n - 1)
    return [round(k * step) for k in range(n)]


def _avoid(boxes: list[tuple[float, float, float, float]], x: float, y: float, r: float) -> bool:
    return any(x + r > a and x - r < c and y + r > b and y - r < d for a, b, c, d in boxes)


def _poster_pages(sheet: PosterSheet, paper: Paper, first: int) -> Iterator[Page]:
    cx, cy, cw, ch = content_box(paper)
    poster = sheet.image
    ph, pw = poster.shape[:2]
    overlap = _mm(OVERLAP_MM)
    xs, ys = _starts(pw, cw, overlap), _starts(ph, ch, overlap)
    keep_out: list[tuple[float, float, float, float]] = []
    if sheet.spec is not None and sheet.board_to_px is not None:
        for marker_id in sheet.spec.ids:
            q = apply(sheet.board_to_px, sheet.spec.marker_corners(marker_id))
            pad = (q[:, 0].max() - q[:, 0].min()) / 6 + _mm(2)
            keep_out.append(
                (q[:, 0].min() - pad, q[:, 1].min() - pad, q[:, 0].max() + pad, q[:, 1].max() + pad)
            )
    marked = poster.copy()
    # registration crosses on the middle of every overlap, the same on both pages
    seams_x = [xs[i] + (min(pw, xs[i - 1] + cw) - xs[i]) / 2 for i in range(1, len(xs))]
    seams_y = [ys[j] + (min(ph, ys[j - 1] + ch) - ys[j]) / 2 for j in range(1, len(ys))]
    r = _mm(3.0)
    spots = [(sx, y) for sx in seams_x for y in np.arange(_mm(25), ph - _mm(10), _mm(55))]
    spots += [(x, sy) for sy in seams_y for x in np.arange(_mm(25), pw - _mm(10), _mm(55))]
    for x, y in spots:
        if not _avoid(keep_out, x, y, r):
            p = (round(x), round(y))
            cv2.circle(marked, p, r // 2, _CROSS, 2, cv2.LINE_AA)
            cv2.line(marked, (p[0] - r, p[1]), (p[0] + r, p[1]), _CROSS, 2, cv2.LINE_AA)
            cv2.line(marked, (p[0], p[1] - r), (p[0], p[1] + r), _CROSS, 2, cv2.LINE_AA)
    number = first
    grid = (len(ys), len(xs))
    for j, y0 in enumerate(ys):
        for i, x0 in enumerate(xs):
            img = _blank(paper)
            crop = marked[y0 : y0 + ch, x0 : x0 + cw]
            ox = cx + (cw - crop.shape[1]) // 2 if len(xs) == 1 else cx
            oy = cy + (ch - crop.shape[0]) // 2 if len(ys) == 1 else cy
            img[oy : oy + crop.shape[0], ox : ox + crop.shape[1]] = crop
            if i > 0:
                _dashed(
                    img,
                    (ox + round(seams_x[i - 1]) - x0, oy),
                    (ox + round(seams_x[i - 1]) - x0, oy + crop.shape[0]),
                )
            if j > 0:
                _dashed(
                    img,
                    (ox, oy + round(seams_y[j - 1]) - y0),
                    (ox + crop.shape[1], oy + round(seams_y[j - 1]) - y0),
                )
            part = f"{chr(ord('A') + j)}{i + 1}" if grid != (1, 1) else ""
            title = sheet.title + (f", part {part} of {grid[0]} x {grid[1]}" if part else "")
            notes = sheet.notes
            if part:
                notes += (
                    " Assemble: cut along the dashed lines, lay each page over its neighbour (A1 "
                    "top left, "
                    "letters down, numbers across) matching the crosses, tape the back."
                )
            _furniture(img, paper, title, number, notes)
            if part:
                _assembly_map(img, paper, grid, (j, i))
            h = None
            if sheet.board_to_px is not None:
                shift = np.array([[1, 0, ox - x0], [0, 1, oy - y0], [0, 0, 1.0]])
                h = shift @ sheet.board_to_px
            yield Page(sheet.title, img, number, h, part)
            number += 1


def _dashed(img: np.ndarray, a: tuple[int, int], b: tuple[int, int]) -> None:

    n = int(max(abs(b[0] - a[0]), abs(b[1] - a[1])))
    dash = _mm(3)
    for s in range(0, n, 2 * dash):
        t0, t1 = s / n, min(n, s + dash) / n
        p0 = (int(a[0] + (b[0] - a[0]) * t0), int(a[1] + (b[1] - a[1]) * t0))
        p1 = (int(a[0] + (b[0] - a[0]) * t1), int(a[1] + (b[1] - a[1]) * t1))
        cv2.line(img, p0, p1, (90, 90, 90), 3, cv2.LINE_AA)


def _assembly_map(
    img: np.ndarray, paper: Paper, grid: tuple[int, int], here: tuple[int, int]
) -> None:

    rows, cols = grid
    cell = 4.0
    x0 = paper.width_mm - MARGIN_MM - cols * cell
    y0 = paper.height_mm - MARGIN_MM - rows * cell
    for j in range(rows):
        for i in range(cols):
            a = (_mm(x0 + i * cell), _mm(y0 + j * cell))
            b = (_mm(x0 + (i + 1) * cell) - 2, _mm(y0 + (j + 1) * cell) - 2)
            cv2.rectangle(img, a, b, (60, 60, 60) if (j, i) == here else (200, 200, 200), -1)
    _text(img, "this page:", x0 - 1.5, paper.height_mm - MARGIN_MM - 0.5, 2.4, align="right")


# -- pieces ----------------------------------------------------------------------------------------


def _cut_outline(item_bgra: np.ndarray) -> np.ndarray:
    """Pixels just outside the item's outline (a cut guide one or two pixels wide)."""
    inside = (item_bgra[:, :, 3] > 127).astype(np.uint8)
    grown = cv2.dilate(inside, np.ones((3, 3), np.uint8), iterations=2)
    return (grown > 0) & (inside == 0)


def _paste(img: np.ndarray, item: np.ndarray, x: int, y: int, cut: bool) -> None:
    h, w = item.shape[:2]
    pad = 3 if cut else 0
    region = img[y - pad : y + h + pad, x - pad : x + w + pad]
    if cut:
        padded = np.zeros((h + 2 * pad, w + 2 * pad, 4), np.uint8)
        padded[pad : pad + h, pad : pad + w] = item
        region[_cut_outline(padded)] = _GREY
        item = padded
    a = item[:, :, 3:4].astype(np.float32) / 255.0
    region[:] = np.round(item[:, :, :3] * a + region * (1.0 - a)).astype(np.uint8)


def _piece_pages(sheet: PieceSheet, paper: Paper, first: int) -> Iterator[Page]:
    cx, cy, cw, ch = content_box(paper)
    gutter = _mm(GUTTER_MM)
    caption_h = _mm(4.5)
    width = cw // 2 - gutter if sheet.fold else cw
    centre = cx + cw // 2
    # per page: (item, x, y), offsets in the content box
    rows: list[list[tuple[PrintItem, int, int]]] = []
    page: list[tuple[PrintItem, int, int]] = []
    x = y = row_h = 0
    for item in sheet.items:
        h, w = item.image.shape[:2]
        h_all = h + (caption_h if item.caption else 0)
        if w > width or h_all > ch:
            raise ArtworkError(
                f"{sheet.title}: a piece of {w / PX_PER_MM:.0f} x {h / PX_PER_MM:.0f} mm "
                f"does not fit on {paper.title} paper"
            )
        if x > 0 and (x + w > width or item.new_row):
            x, y, row_h = 0, y + row_h + gutter, 0
        if y + h_all > ch:
            rows.append(page)
            page, x, y, row_h = [], 0, 0, 0
        page.append((item, x, y))
        x += w + gutter
        row_h = max(row_h, h_all)
    if page:
        rows.append(page)
    for k, placed in enumerate(rows):
        img = _blank(paper)
        used = max(px + item.image.shape[1] for item, px, _ in placed)
        left = (centre - gutter // 2 - used) if sheet.fold else cx + (cw - used) // 2
        for item, px, py in placed:
            h, w = item.image.shape[:2]
            _paste(img, item.image, left + px, cy + py, item.cut_line)
            if item.caption:
                x_mm, y_mm = (left + px + w / 2) / PX_PER_MM, (cy + py + h) / PX_PER_MM + 3.6
                _text(img, item.caption, x_mm, y_mm, 2.6, align="centre")
            if sheet.fold and item.back is not None:
                mx = 2 * centre - (left + px) - w  # where the fold brings the back
                _paste(img, item.back, mx, cy + py, item.cut_line)
        if sheet.fold:
            _dashed(img, (centre, cy - _mm(2)), (centre, cy + ch))
            _text(img, "fold here", centre / PX_PER_MM + 1.5, (cy + ch) / PX_PER_MM, 2.4, _GREY)
        title = sheet.title + (f" ({k + 1} of {len(rows)})" if len(rows) > 1 else "")
        _furniture(img, paper, title, first + k, sheet.notes)
        yield Page(sheet.title, img, first + k)


# -- a kit's pages ------------------------------------------------------------------------------


def iter_pages(kit: Kit, paper_name: str = "letter") -> Iterator[Page]:
    """The pages of ``kit`` on ``paper_name`` (``letter`` or ``a4``), one at a time."""
    sheet_paper = paper(paper_name)
    number = 1
    for sheet in kit.sheets():
        if isinstance(sheet, PosterSheet):
            pages = _poster_pages(sheet, sheet_paper, number)
        else:
            pages = _piece_pages(sheet, sheet_paper, number)
        for page in pages:
            number += 1
            yield page
