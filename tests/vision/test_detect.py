"""The detector: ultralytics results converted once at the boundary, shipped weights that
load and find the pieces of a rendered frame of their game, two backends that agree."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import models
from vision.detect import Detector, DetectorError, resolve_weights
from vision.detect_eval import box_iou
from vision.detections import Detections, facing_from_keypoints

SHIPPED = models.available()
SEED = 20261120

#: Per game: of the labelled pieces (hands left out) in the sample frame, the share the
#: shipped model must find as some piece, and as the right piece (IoU >= 0.5): half of what
#: it does on its 200-image held-out set (docs/models.md), as one frame varies.
MIN_FOUND = {  # game: (as some piece, as the right piece)
    "oneworld": (0.33, 0.17),
    "battle-grounds": (0.39, 0.19),
    "when-gods-collide": (0.36, 0.36),
    "wormholes": (0.14, 0.09),
    "the-game": (0.26, 0.25),
}


class FakeTensor:
    """Stands in for a torch tensor: ultralytics results hold these."""

    def __init__(self, values: object) -> None:
        self.values = np.asarray(values, dtype=float)

    def detach(self) -> FakeTensor:
        return self

    def cpu(self) -> FakeTensor:
        return self

    def numpy(self) -> np.ndarray:
        return self.values

    def __len__(self) -> int:
        return len(self.values)


def fake_result(keypoints: object = None) -> SimpleNamespace:
    boxes = SimpleNamespace(xyxy=FakeTensor([[0, 0, 10, 10], [20, 20, 40, 30]]), conf=FakeTensor([0.9, 0.5]),
                            cls=FakeTensor([1, 0]))
    kp = None if keypoints is None else SimpleNamespace(data=FakeTensor(keypoints))
    return SimpleNamespace(boxes=_Sized(boxes, 2), names={0: "red-piece", 1: "blue-piece"}, keypoints=kp)


class _Sized(SimpleNamespace):
    def __init__(self, inner: SimpleNamespace, n: int) -> None:
        super().__init__(**vars(inner))
        self._n = n

    def __len__(self) -> int:
        return self._n


def test_from_ultralytics_converts_boxes_names_keypoints_and_facing() -> None:
    d = Detections.from_ultralytics(fake_result([[[5, 0, 0.9]], [[40, 25, 0.8]]]))
    assert d.xyxy.tolist() == [[0, 0, 10, 10], [20, 20, 40, 30]]
    assert d.confidence.tolist() == [0.9, 0.5] and d.class_id.tolist() == [1, 0]
    assert d.class_name is not None and d.class_name.tolist() == ["blue-piece", "red-piece"]
    assert d.keypoints is not None and d.keypoints.shape == (2, 1, 3)
    assert d.facing is not None and d.facing.tolist() == [90.0, 0.0]  # up the image; to the right
    kept = d[d.confidence > 0.6]
    assert kept.class_name is not None and kept.class_name.tolist() == ["blue-piece"]
    assert kept.keypoints is not None and kept.keypoints.shape == (1, 1, 3)


def test_from_ultralytics_without_keypoints_or_boxes() -> None:
    d = Detections.from_ultralytics(fake_result())
    assert d.keypoints is None and d.facing is None and len(d) == 2
    empty = SimpleNamespace(boxes=_Sized(SimpleNamespace(), 0), names={})
    assert len(Detections.from_ultralytics(empty)) == 0


@pytest.mark.parametrize(("dot", "expected"), [((10, 5), 0.0), ((5, 0), 90.0), ((0, 5), 180.0), ((5, 10), 270.0)])
def test_facing_turns_counter_clockwise_with_up_at_90(dot: tuple[float, float], expected: float) -> None:
    facing = facing_from_keypoints(np.array([[0.0, 0, 10, 10]]), np.array([[[dot[0], dot[1], 2]]], float))
    assert facing.tolist() == [expected]


def test_keypoints_must_match_the_boxes() -> None:
    with pytest.raises(ValueError, match="keypoints"):
        Detections(np.zeros((2, 4)), np.zeros(2), np.zeros(2, int), keypoints=np.zeros((3, 1, 3)))


@pytest.mark.parametrize(
    ("source", "backend", "message"),
    [
        ("no-such-game", "auto", "no shipped weights called 'no-such-game'"),
        ("missing.pt", "auto", "missing.pt: no such weights file"),
        ("oneworld", "tensorflow", "unknown backend 'tensorflow'"),
    ],
)
def test_load_errors_say_what_to_do(source: str, backend: str, message: str) -> None:
    with pytest.raises(DetectorError, match=message):
        Detector.load(source, backend)


def test_a_folder_named_after_the_game_is_not_taken_for_its_weights(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """'tabletop play oneworld --images oneworld' run beside a folder of photos named after
    the game: the game's name still finds its shipped weights; a file that is no .pt or
    .onnx, named as weights, is refused as such."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "oneworld").mkdir()
    (tmp_path / "notes").write_text("not weights\n")
    assert resolve_weights("oneworld") == models.weights_path("oneworld")
    for name in ("notes", "photos"):
        (tmp_path / "photos").mkdir(exist_ok=True)
        with pytest.raises(DetectorError, match=f"{name}: not a weights file \\(give a .pt or .onnx file\\)"):
            resolve_weights(name)


@pytest.mark.parametrize("content", [b"", b"not weights at all\n", "half"])
def test_weights_that_are_not_a_model_are_one_clear_error(tmp_path: Path, content: object) -> None:
    """An empty, foreign or cut-short .pt is a DetectorError naming the file (the CLI's exit
    2), not ultralytics' own exception (which the CLI took for a bug)."""
    from vision.detect import onnx_export

    weights = tmp_path / "mine.pt"
    shipped = Path(__file__).resolve().parents[2] / "models" / "oneworld.pt"
    weights.write_bytes(shipped.read_bytes()[: shipped.stat().st_size // 2] if content == "half" else content)
    with pytest.raises(DetectorError, match="mine.pt is not a model's weights file that can be read"):
        onnx_export(weights, (640, 640), folder=tmp_path / "cache")
    assert not list((tmp_path / "cache").glob(".export-*"))  # the work folder is cleared


@pytest.mark.parametrize("imgsz", [650, 16, 4128])
def test_a_size_given_to_load_is_checked(imgsz: int) -> None:
    with pytest.raises(DetectorError, match="multiple of 32 from 32 to 4096"):
        Detector.load("oneworld", imgsz=imgsz)


def test_loading_is_lazy() -> None:
    import subprocess
    import sys

    code = ("import sys, vision.detect, vision.detections, vision.detect_eval, tabletop.training, tabletop.cli; "
            "print(any(m in sys.modules for m in ('ultralytics', 'torch', 'onnxruntime')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.fixture(scope="module")
def sample_frames() -> dict[str, object]:
    """One rendered 640x480 frame per shipped game (fixed seed), with its labels."""
    from vision.render import Renderer, RenderOptions

    frames = {}
    for game in SHIPPED:
        frames[game] = Renderer(game, seed=SEED, options=RenderOptions(size=(640, 480), hands=0.0)).render(1)
    return frames


@pytest.mark.skipif(not SHIPPED, reason="no weights shipped yet")
@pytest.mark.parametrize("game", SHIPPED)
def test_each_shipped_model_finds_the_pieces_of_a_rendered_frame(game: str, sample_frames: dict) -> None:  # type: ignore[type-arg]
    rendered = sample_frames[game]
    detector = Detector.load(game, "ultralytics")
    assert resolve_weights(game) == models.weights_path(game)
    assert detector.names == tuple(rendered.class_names)
    found = detector.detect(rendered.image)
    labels = [lab for lab in rendered.labels if detector.names[lab.class_id] != "hand"]
    assert labels, "the sample frame shows no pieces"
    boxes = np.array([lab.box for lab in labels], float)
    classes = np.array([lab.class_id for lab in labels])
    pieces = found[found.class_name != "hand"] if found.class_name is not None else found
    any_hit = right_hit = 0
    if len(pieces):
        iou = box_iou(boxes, pieces.xyxy)
        any_hit = int((iou.max(axis=1) >= 0.5).sum())
        iou[classes[:, None] != pieces.class_id[None, :]] = 0
        right_hit = int((iou.max(axis=1) >= 0.5).sum())
    least_any, least_right = MIN_FOUND[game]
    assert any_hit / len(labels) >= least_any, f"{game}: found {any_hit} of {len(labels)} pieces"
    assert right_hit / len(labels) >= least_right, f"{game}: {right_hit} of {len(labels)} pieces read right"
    assert found.class_name is not None and set(found.class_name) <= set(detector.names)


@pytest.mark.skipif(not SHIPPED, reason="no weights shipped yet")
@pytest.mark.parametrize(("backend", "module"), [("onnx", "onnxruntime"), ("openvino", "openvino")])
def test_exported_backends_and_ultralytics_agree(sample_frames: dict, tmp_path_factory: pytest.TempPathFactory,  # type: ignore[type-arg]
                                                 monkeypatch: pytest.MonkeyPatch, backend: str, module: str) -> None:
    pytest.importorskip(module)
    pytest.importorskip("onnx")
    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path_factory.mktemp("cache")))
    game = SHIPPED[0]
    frame = sample_frames[game].image
    a = Detector.load(game, "ultralytics").detect(frame)
    detector = Detector.load(game, backend)
    assert detector.backend == backend
    b = detector.detect(frame)
    assert abs(len(a) - len(b)) <= max(1, len(a) // 10)
    if len(a) and len(b):
        iou = box_iou(a.xyxy, b.xyxy)
        iou[a.class_id[:, None] != b.class_id[None, :]] = 0
        assert (iou.max(axis=1) >= 0.9).mean() >= 0.9


@pytest.mark.skipif(not SHIPPED, reason="no weights shipped yet")
def test_auto_falls_back_to_onnx_runtime_without_openvino_and_a_named_backend_must_be_installed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    pytest.importorskip("onnxruntime")
    monkeypatch.setitem(sys.modules, "openvino", None)  # as if not installed: importing it fails
    assert Detector.load(SHIPPED[0]).backend == "onnx"
    with pytest.raises(DetectorError, match="backend 'openvino' needs openvino and onnx: pip install openvino onnx"):
        Detector.load(SHIPPED[0], "openvino")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    assert Detector.load(SHIPPED[0]).backend == "ultralytics"


@pytest.mark.skipif("the-game" not in SHIPPED, reason="no weights shipped yet")
def test_openvino_measures_the_games_boxes_and_dots_as_onnx_runtime_does(sample_frames: dict) -> None:  # type: ignore[type-arg]
    """``auto`` runs every model on OpenVINO, The Game's too, whose boxes and front dots measure
    inches: on a sample frame each box and dot is within a pixel of ONNX Runtime's (bfloat16
    in the network, the box decoding in 32-bit floats)."""
    pytest.importorskip("openvino")
    pytest.importorskip("onnxruntime")
    frame = sample_frames["the-game"].image
    fast = Detector.load("the-game")
    assert fast.backend == "openvino"
    a, b = Detector.load("the-game", "onnx").detect(frame), fast.detect(frame)
    assert len(a) >= 3 and len(a) == len(b)
    iou = box_iou(a.xyxy, b.xyxy)
    pair = iou.argmax(axis=1)
    assert (iou[np.arange(len(a)), pair] > 0.95).all()
    assert np.abs(a.xyxy - b.xyxy[pair]).max() < 1.0
    assert a.keypoints is not None and b.keypoints is not None
    assert np.abs(a.keypoints[:, :, :2] - b.keypoints[pair][:, :, :2]).max() < 1.0
    # the frame goes in as it is (BGR bytes, height x width x 3), converted inside the network
    from openvino import Type

    port = fast._backend.request.model_inputs[0]
    assert port.get_element_type() == Type.u8 and list(port.get_shape())[1:] == [480, 640, 3]


@pytest.mark.skipif(not SHIPPED, reason="no weights shipped yet")
def test_an_onnx_file_runs_on_either_exported_backend_and_not_on_ultralytics(sample_frames: dict,  # type: ignore[type-arg]
                                                                          tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    from vision.detect import onnx_export, resolve_weights

    game = SHIPPED[0]
    path = onnx_export(resolve_weights(game), (480, 640), tmp_path)
    with pytest.raises(DetectorError, match="ONNX weights need backend 'onnx' or 'openvino'"):
        Detector.load(path, "ultralytics", imgsz=640)
    found = {}
    for backend, module in (("onnx", "onnxruntime"), ("openvino", "openvino")):
        try:
            __import__(module)
        except ImportError:
            continue
        detector = Detector.load(path, backend, imgsz=640)
        assert detector.backend == backend and detector.info.names == Detector.load(game, "ultralytics").info.names
        found[backend] = detector.detect(sample_frames[game].image)
    assert all(len(f) for f in found.values())
    if len(found) == 2:
        iou = box_iou(found["onnx"].xyxy, found["openvino"].xyxy)
        iou[found["onnx"].class_id[:, None] != found["openvino"].class_id[None, :]] = 0
        assert (iou.max(axis=1) >= 0.9).mean() >= 0.9


class _SizedRunner:
    """A network double that finds one 10-pixel piece (and a large hand) in any frame, at
    whatever size it reads it; it logs the sizes it ran at."""

    def __init__(self, size: int, log: list[int]) -> None:
        from vision.detect import ModelInfo

        self.size, self.log = size, log
        self.info = ModelInfo(Path("go.pt"), ("stone", "hand"), "detect", size)

    def run(self, frame: np.ndarray, conf: float, iou: float) -> Detections:
        self.log.append(self.size)
        return Detections(np.array([[100, 100, 110, 110], [200, 100, 400, 300]], float), np.array([0.9, 0.9]),
                          np.array([0, 1]), None, None)


class _SizedRunners:
    def __init__(self) -> None:
        self.log: list[int] = []
        self.made: list[int] = []

    def __call__(self, size: int) -> _SizedRunner:
        self.made.append(size)
        return _SizedRunner(size, self.log)

    def scale(self, size: int, h: int, w: int) -> float:
        return size / max(h, w)


def test_a_frame_is_read_again_at_the_size_its_pieces_need_and_the_next_starts_there() -> None:
    from vision.detect import PieceScale

    at = _SizedRunners()
    detector = Detector(at(640), at(640).info, "onnx", piece_scale=PieceScale(12.0), runner_at=at)
    frame = np.zeros((480, 640, 3), np.uint8)
    detector.detect(frame)  # a 10-pixel piece at 640 is 10 network pixels: read again at 768, where it is 12
    assert at.log == [640, 768] and detector.imgsz == 768
    detector.detect(frame)  # the next frame starts at 768 and stays there
    detector.detect(frame)
    assert at.log == [640, 768, 768, 768] and at.made == [640, 640, 768]  # each size made once
    assert detector.sizes_used == {768: 3}
    small = Detector(at(640), at(640).info, "onnx", piece_scale=PieceScale(40.0), runner_at=at)
    small.detect(frame)  # 40 px would need 2560: the largest size there is
    assert small.imgsz == max(small.piece_scale.sizes) == 832


def test_hands_do_not_decide_the_size_and_a_fixed_size_never_changes() -> None:
    from vision.detect import PieceScale

    at = _SizedRunners()
    # the piece is 10 px; counted with the 200-px hand the median would be 105 px, read at 384
    detector = Detector(at(640), at(640).info, "onnx", piece_scale=PieceScale(10.0), runner_at=at)
    detector.detect(np.zeros((480, 640, 3), np.uint8))
    assert at.log == [640] and detector.imgsz == 640  # the piece alone: 640 is its size
    fixed = Detector(at(640), at(640).info, "onnx")  # no piece scale: every frame at its size
    for _ in range(2):
        fixed.detect(np.zeros((480, 640, 3), np.uint8))
    assert at.log == [640, 640, 640] and fixed.sizes_used == {640: 2} and fixed.piece_scale is None


def test_prepare_makes_every_size_before_the_first_frame_needs_one() -> None:
    """A live stream must not stall the first time pieces look smaller: ``prepare`` makes every
    size the piece scale may choose, once, and reading a frame then makes none."""
    from vision.detect import PieceScale

    at = _SizedRunners()
    detector = Detector(at(640), at(640).info, "onnx", piece_scale=PieceScale(12.0), runner_at=at)
    steps: list[tuple[int, int, int]] = []
    made = detector.prepare(lambda done, total, size: steps.append((done, total, size)))
    others = tuple(n for n in detector.piece_scale.sizes if n != 640)
    assert made == others and at.made == [640, 640, *others]
    assert steps == [(k + 1, len(others), n) for k, n in enumerate(others)]
    assert detector.prepare() == ()  # nothing left to make
    detector.detect(np.zeros((480, 640, 3), np.uint8))
    assert at.log == [640, 768] and at.made == [640, 640, *others]  # read again at 768, made before
    fixed = Detector(at(640), at(640).info, "onnx")  # no piece scale: one size, nothing to prepare
    assert fixed.prepare() == ()


def test_a_frame_made_smaller_for_the_network_is_averaged_not_aliased() -> None:
    """Stripes a pixel wide, read at half size, are their average grey (as a render made at
    that size shows them), not every other stripe; the letterbox's padding is the grey
    ultralytics uses, and a frame made larger keeps its edges."""
    from vision.detect import letterbox

    stripes = np.zeros((960, 1280, 3), np.uint8)
    stripes[:, ::2] = 255
    canvas, r, top, left = letterbox(stripes, (640, 640))
    assert (r, top, left) == (0.5, 80, 0)
    inside = canvas[top:top + 480].astype(int)
    assert np.abs(inside - 127.5).max() <= 1
    assert (canvas[:top] == 114).all() and (canvas[top + 480:] == 114).all()
    edge = np.zeros((100, 100, 3), np.uint8)
    edge[:, 50:] = 200
    big, r, top, left = letterbox(edge, (200, 200))
    assert r == 2.0 and big[:, :98].max() == 0 and big[:, 102:].min() == 200


class _Spotting:
    """A network double that finds each bright square of a frame as it lies in the frame it
    is given (so a mirrored frame's squares come out mirrored), with a front dot at each
    square's right edge; ``faint``: squares of this grey are found only as they lie on the
    right half of the frame it is given (as a real network finds some pieces in one view of
    them and not the other); ``dim``: the same, found less surely (0.3)."""

    def __init__(self, faint: int = 150, dim: int = 90) -> None:
        from vision.detect import ModelInfo

        self.info = ModelInfo(Path("the-game.pt"), ("red-piece", "hand"), "pose", 640, (1, 3))
        self.faint, self.dim = faint, dim
        self.frames: list[np.ndarray] = []

    def run(self, frame: np.ndarray, conf: float, iou: float) -> Detections:
        import cv2

        self.frames.append(frame)
        grey = frame[:, :, 0]
        boxes, kps, sure = [], [], []
        for level in (255, self.faint, self.dim):
            n, _, stats, _ = cv2.connectedComponentsWithStats((grey == level).astype(np.uint8))
            for x, y, w, h, _ in stats[1:n]:
                if level != 255 and x < frame.shape[1] / 2:
                    continue
                boxes.append([x, y, x + w, y + h])
                kps.append([[x + w, y + h / 2, 1.0]])
                sure.append(0.3 if level == self.dim else 0.8)
        xyxy = np.array(boxes, float).reshape(-1, 4)
        kp = np.array(kps, float).reshape(-1, 1, 3)
        return Detections(xyxy, np.array(sure, float), np.zeros(len(xyxy), int), facing_from_keypoints(xyxy, kp), kp)


def test_a_mirrored_second_reading_adds_what_the_first_missed_and_averages_what_both_saw() -> None:
    """With ``mirror``, the frame is read again mirrored left to right: a piece found in both
    readings is found once, where the two readings put it on average, with its front dot;
    a piece only the mirrored reading finds is added where it lies in the frame, if it is
    sure enough."""
    frame = np.zeros((100, 200, 3), np.uint8)
    frame[40:60, 20:40] = 255  # found in both readings
    frame[40:60, 60:80] = 150  # faint, on the left: found only in the mirrored frame
    frame[70:90, 60:80] = 90  # dim, on the left: found only in the mirrored frame, and not surely
    net = _Spotting()
    plain = Detector(net, net.info, "stub").detect(frame)
    assert plain.xyxy.tolist() == [[20, 40, 40, 60]] and len(net.frames) == 1
    detector = Detector(net, net.info, "stub", mirror=True)
    found = detector.detect(frame)
    assert len(net.frames) == 3 and detector.reads_last_frame == 2
    assert (net.frames[2] == frame[:, ::-1]).all()
    order = np.argsort(found.xyxy[:, 0])
    assert found.xyxy[order].tolist() == [[20, 40, 40, 60], [60, 40, 80, 60]]
    # the double's dot is on the right edge of each box it is given: the right edge in one
    # reading, the left in the other, so the averaged dot is in the middle and the added
    # piece's dot on its left
    assert found.keypoints[order, 0, 0].tolist() == [30.0, 60.0]
    assert found.class_name.tolist() == ["red-piece", "red-piece"]


def test_the_game_is_read_mirrored_as_its_recipe_says_and_the_others_are_not() -> None:
    assert models.reads_mirrored("the-game.pt") is True
    assert not any(models.reads_mirrored(f"{g}.pt") for g in SHIPPED if g != "the-game")
    assert Detector.load("the-game").mirror and not Detector.load("the-game", mirror=False).mirror


def test_boxes_in_a_crowd_are_not_averaged_with_the_mirrored_reading() -> None:
    """Two overlapping boxes of one class: which mirrored box belongs to which is unsure, so
    both keep the plain reading's box; a box standing alone is averaged."""
    from vision.detect import merged_with_mirror

    plain = Detections(np.array([[10, 10, 30, 30], [20, 12, 40, 32], [60, 10, 70, 20]], float),
                       np.array([0.8, 0.8, 0.8]), np.zeros(3, int))
    back = np.array([[14, 10, 34, 30], [16, 12, 36, 32], [60, 10, 72, 20]], float)  # where the mirror puts them
    mirrored = Detections(np.c_[100 - back[:, 2], back[:, 1], 100 - back[:, 0], back[:, 3]], np.array([0.8, 0.8, 0.8]),
                          np.zeros(3, int))
    out = merged_with_mirror(plain, mirrored, 100)
    assert out.xyxy.round(6).tolist() == [[10, 10, 30, 30], [20, 12, 40, 32], [60, 10, 71, 20]]
