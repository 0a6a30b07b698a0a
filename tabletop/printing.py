"""``tabletop print GAME``: a game's kit as true-size pages, written as PDF and PNG.

The pages come from :mod:`vision.artwork.pages` (posters split over pages with cut lines and
registration crosses, pieces packed to cut out, scale bars on every page); this module
writes them: one PNG per page with its 300 dpi recorded, and one PDF in which every page
image sits at exactly 300 dpi, losslessly compressed. docs/kits.md explains the kits.
OpenCV, numpy and the kits are imported when a kit is printed, not when the command line
starts.

>>> import numpy as np
>>> png_bytes(np.full((4, 4, 3), 255, np.uint8))[:8]
b'\\x89PNG\\r\\n\\x1a\\n'
"""

from __future__ import annotations

import argparse
import struct
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tabletop.errors import TabletopError

if TYPE_CHECKING:
    import numpy as np

    from vision.artwork import Kit
    from vision.artwork.pages import Page

__all__ = [
    "DPI",
    "FORMATS",
    "PAPER_NAMES",
    "PrintingError",
    "add_print_parser",
    "iter_pages",
    "kit_pages",
    "png_bytes",
    "print_kit",
    "run_print",
    "write_pdf",
]

DPI = 300  # the same as vision.artwork.pages.DPI
FORMATS = ("pdf", "png")
PAPER_NAMES = ("a4", "letter")


class PrintingError(TabletopError, ValueError):
    """A kit that cannot be printed as asked (unknown game or paper, unwritable folder)."""


def _kit(game: str) -> Kit:
    from vision.artwork import KITS

    if game not in KITS:
        raise PrintingError(f"no printable kit for game {game!r} (kits: {', '.join(KITS)})")
    return KITS[game]


def _check_paper(paper: str) -> None:
    if paper not in PAPER_NAMES:
        raise PrintingError(f"unknown paper {paper!r} (use {' or '.join(PAPER_NAMES)})")


def iter_pages(game: str, paper: str = "letter") -> Iterator[Page]:
    """The pages of ``game``'s kit on ``paper`` (``letter`` or ``a4``), one at a time."""
    from vision.artwork import ArtworkError
    from vision.artwork.pages import iter_pages as pages_of

    kit = _kit(game)
    _check_paper(paper)
    try:
        yield from pages_of(kit, paper)
    except ArtworkError as err:
        raise PrintingError(str(err)) from None


def kit_pages(game: str, paper: str = "letter") -> list[Page]:
    """Every page of ``game``'s kit (see :func:`iter_pages`)."""
    return list(iter_pages(game, paper))


def png_bytes(image: np.ndarray, dpi: int = DPI) -> bytes:
    """``image`` as PNG, with its resolution recorded (a pHYs chunk) so that viewers and
    printers know its true size."""
    import cv2

    ok, buf = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if not ok:
        raise PrintingError("the page could not be encoded as PNG")
    data = buf.tobytes()
    ppm = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_ihdr = 8 + 8 + 13 + 4
    return data[:end_of_ihdr] + chunk + data[end_of_ihdr:]


class _PdfWriter:
    """A minimal PDF 1.4 writer: one page per image, each image losslessly compressed
    (Flate) and placed at exactly ``dpi``."""

    def __init__(self, path: Path, title: str, dpi: int = DPI) -> None:
        self.file = open(path, "wb")  # noqa: SIM115 - closed in close()
        self.dpi = dpi
        self.offsets: dict[int, int] = {}
        self.pages: list[int] = []
        self.next_id = 4  # 1 catalog, 2 page tree, 3 info
        self.file.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        self._obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
        escaped = title.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        safe = escaped.encode("latin-1", "replace")
        self._obj(3, b"<< /Title (" + safe + b") /Producer (tabletop print) >>")

    def _obj(self, number: int, body: bytes, stream: bytes | None = None) -> None:
        self.offsets[number] = self.file.tell()
        self.file.write(f"{number} 0 obj\n".encode() + body)
        if stream is not None:
            self.file.write(b"\nstream\n" + stream + b"\nendstream")
        self.file.write(b"\nendobj\n")

    def add(self, image: np.ndarray) -> None:
        import numpy as np

        h, w = image.shape[:2]
        rgb = np.ascontiguousarray(image[:, :, ::-1])
        data = zlib.compress(rgb.tobytes(), 6)
        pw, ph = w * 72.0 / self.dpi, h * 72.0 / self.dpi
        page, content, xobj = self.next_id, self.next_id + 1, self.next_id + 2
        self.next_id += 3
        self._obj(
            xobj,
            f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceRGB "
            f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>".encode(),
            data,
        )
        draw = f"q {pw:.4f} 0 0 {ph:.4f} 0 0 cm /Im0 Do Q".encode()
        self._obj(content, f"<< /Length {len(draw)} >>".encode(), draw)
        self._obj(
            page,
            (
                f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.4f} {ph:.4f}] "
                f"/Resources << /XObject << /Im0 {xobj} 0 R >> >> /Contents {content} 0 R >>"
            ).encode(),
        )
        self.pages.append(page)

    def close(self) -> None:
        kids = " ".join(f"{p} 0 R" for p in self.pages)
        self._obj(2, f"<< /Type /Pages /Kids [{kids}] /Count {len(self.pages)} >>".encode())
        xref = self.file.tell()
        count = self.next_id
        lines = [f"xref\n0 {count}\n", "0000000000 65535 f \n"]
        for n in range(1, count):
            lines.append(f"{self.offsets[n]:010d} 00000 n \n")
        self.file.write("".join(lines).encode())
        self.file.write(
            f"trailer\n<< /Size {count} /Root 1 0 R /Info 3 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n".encode()
        )
        self.file.close()


def write_pdf(path: Path, images: Sequence[np.ndarray], title: str = "tabletop kit") -> None:
    """Write ``images`` (BGR, 300 dpi) as a PDF, one page each, at true size."""
    writer = _PdfWriter(Path(path), title)
    try:
        for image in images:
            writer.add(image)
    finally:
        writer.close()


def _out_dir(out: str | Path) -> Path:
    path = Path(out)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise PrintingError(f"{path}: is a file, not a folder: give --out a folder") from None
    except OSError as err:
        raise PrintingError(
            f"{path}: cannot make the output folder: {err.strerror or err}"
        ) from None
    probe = path / ".tabletop-print-probe"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise PrintingError(
            f"{path}: cannot write to the output folder: {err.strerror or err}"
        ) from None
    return path


def print_kit(
    game: str, out: str | Path, paper: str = "letter", formats: Sequence[str] = FORMATS
) -> list[Path]:
    """Write ``game``'s kit to the folder ``out``: ``GAME-PAPER.pdf`` (all pages) and/or
    ``GAME-PAPER-NN.png`` (one per page). Returns the files written."""
    from vision.artwork.pages import PAPERS

    kit = _kit(game)
    _check_paper(paper)
    sheet_paper = PAPERS[paper]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise PrintingError(
            f"unknown format {', '.join(bad) or '(none)'} (use pdf, png or both: pdf,png)"
        )
    folder = _out_dir(out)
    written: list[Path] = []
    pdf = None
    if "pdf" in formats:
        pdf_path = folder / f"{game}-{sheet_paper.name}.pdf"
        pdf = _PdfWriter(pdf_path, f"tabletop kit: {kit.title} ({sheet_paper.title}, {DPI} dpi)")
    try:
        for page in iter_pages(game, paper):
            if pdf is not None:
                pdf.add(page.image)
            if "png" in formats:
                png = folder / f"{game}-{sheet_paper.name}-{page.number:02d}.png"
                png.write_bytes(png_bytes(page.image))
                written.append(png)
    finally:
        if pdf is not None:
            pdf.close()
            written.insert(0, pdf_path)
    return written


def _formats(text: str) -> tuple[str, ...]:
    items = tuple(dict.fromkeys(f.strip().lower() for f in text.split(",") if f.strip()))
    bad = [f for f in items if f not in FORMATS]
    if bad or not items:
        raise argparse.ArgumentTypeError(
            f"unknown format {', '.join(bad) or repr(text)} (use pdf, png or pdf,png)"
        )
    return items


def add_print_parser(
    commands: Any, formatter: Callable[[str], argparse.HelpFormatter], exit_text: str = ""
) -> argparse.ArgumentParser:
    """Register ``tabletop print`` on the ``tabletop`` subcommands."""
    cmd = commands.add_parser(
        "print",
        help="print a game's kit: board with calibration markers, pieces, stickers (PDF/PNG)",
        description=(
            "Write a game's printable kit as true-size pages at 300 dpi: the board (or mat) with\n"
            "its calibration markers, split over several pages when it is larger than the paper,\n"
            "and the pieces to cut out. Every page has a 100 mm and a 4 inch scale bar: print at\n"
            "100% (actual size) and check them. docs/kits.md describes each game's kit."
        ),
        formatter_class=formatter,
        epilog="examples:\n  tabletop print oneworld --paper a4 --out kits/oneworld\n"
        "  tabletop print battle-grounds --format png\n\n" + exit_text,
    )
    cmd.add_argument(
        "game", metavar="GAME", help="the game's short name, e.g. oneworld (see 'tabletop games')"
    )
    cmd.add_argument(
        "--paper", choices=PAPER_NAMES, default="letter", help="paper size (default: letter)"
    )
    cmd.add_argument("--out", metavar="DIR", help="output folder (default: ./GAME-kit)")
    cmd.add_argument(
        "--format",
        type=_formats,
        default=FORMATS,
        metavar="pdf,png",
        help="what to write: pdf, png or both (default: pdf,png)",
    )
    cmd.set_defaults(run=run_print)
    return cmd


def run_print(args: argparse.Namespace, out: TextIO) -> int:
    """The ``tabletop print`` command: write the kit and say where it went."""
    from vision.artwork.pages import PAPERS

    kit = _kit(args.game)
    folder = Path(args.out) if args.out else Path(f"{args.game}-kit")
    files = print_kit(args.game, folder, args.paper, args.format)
    pages = sum(1 for f in files if f.suffix == ".png") or None
    paper = PAPERS[args.paper]
    print(f"Wrote the kit of {kit.title} ({paper.title}, {DPI} dpi) to {folder}:", file=out)
    for f in files:
        print(f"  {f.name}", file=out)
    if pages:
        print(f"{pages} pages.", file=out)
    print(
        "Print at 100% (actual size, not 'fit to page') and check the 100 mm scale bar with a "
        "ruler.",
        file=out,
    )
    return 0
