"""Training and validation data: the detector's scene list (``vision.train --also``) adds training scenes only,
``vision.synth --stretch`` keeps each label on its index, and the whole recipe (``vision.train all``) runs in
order and resumes after its last finished step."""

import json
from pathlib import Path
from shlex import join as shlex_join
from types import SimpleNamespace

import pytest

from vision.train import Step, _data_yaml, recipe, run_recipe


def _scene_set(root: Path) -> Path:
    (root / "images" / "train").mkdir(parents=True)
    (root / "data.yaml").write_text(f"path: {root}\ntrain: images/train\nval: images/val\nnames:\n  0: 'A'\n  1: '2'\n")
    return root


def test_also_adds_training_scenes_and_keeps_validation(tmp_path):
    base, more = _scene_set(tmp_path / "det1"), _scene_set(tmp_path / "jokers")
    yaml = _data_yaml(SimpleNamespace(data=base, also=[more]), tmp_path / "runs" / "det5").read_text()
    assert f"train: [{base.resolve()}/images/train, {more.resolve()}/images/train]" in yaml
    assert f"val: {base.resolve()}/images/val" in yaml and f"path: {base.resolve()}" in yaml
    assert yaml.endswith("names:\n  0: 'A'\n  1: '2'\n")


def test_val_validates_on_another_set_s_scenes(tmp_path):
    """A schedule on other training scenes (the pair model's) is validated on the scenes the earlier schedules
    were (det1's), so their figures compare."""
    pairs, det1 = _scene_set(tmp_path / "pairs-general"), _scene_set(tmp_path / "det1")
    yaml = _data_yaml(SimpleNamespace(data=pairs, also=[], val=det1), tmp_path / "runs" / "det-clean").read_text()
    assert f"train: [{pairs.resolve()}/images/train]" in yaml
    assert f"val: {det1.resolve()}/images/val" in yaml


def test_without_also_the_set_trains_on_its_own_list(tmp_path):
    base = _scene_set(tmp_path / "det1")
    assert _data_yaml(SimpleNamespace(data=base, also=[]), tmp_path / "run") == base / "data.yaml"


def test_a_stretched_scene_keeps_its_labels_on_the_indices():
    """``vision.synth --stretch``: the picture is resized to another aspect ratio and every labelled box
    moves with it (a mark drawn inside a box is still inside it), the longer side keeps its length, and
    the stretch stays within the factor asked for."""
    import cv2
    import numpy as np

    from vision.synth import stretch

    img = np.zeros((480, 640, 3), np.uint8)
    labels = [{"rank": "K", "box": [100.0, 50.0, 130.0, 90.0]}, {"rank": "7", "box": [500.0, 400.0, 520.0, 430.0]}]
    for lab in labels:
        x0, y0, x1, y1 = (int(v) for v in lab["box"])
        cv2.rectangle(img, (x0 + 8, y0 + 8), (x1 - 8, y1 - 8), (255, 255, 255), -1)
    ratios = []
    for seed in range(20):
        out, moved = stretch(np.random.default_rng(seed), img, labels, 1.8)
        h, w = out.shape[:2]
        assert max(h, w) == 640
        ratios.append((w / h) / (640 / 480))
        assert [m["rank"] for m in moved] == ["K", "7"]
        for m in moved:
            x0, y0, x1, y1 = m["box"]
            cx, cy = int((x0 + x1) / 2), int((y0 + y1) / 2)
            assert out[cy, cx].min() > 200, (seed, m["box"])
    assert all(1 / 1.81 <= r <= 1.81 for r in ratios)
    assert min(ratios) < 0.8 and max(ratios) > 1.25  # both ways


# ---------------------------------------------------------------- the whole recipe in one command


class _Runner:
    """Stands in for subprocess.run: records each step's module (and subcommand) and fails (exit 2) the
    steps of module ``fail``."""

    def __init__(self, fail: str | None = None):
        self.fail, self.ran = fail, []

    def __call__(self, cmd):
        step = " ".join(cmd[2:4]) if cmd[2] == "vision.train" else cmd[2]
        self.ran.append(step)
        return SimpleNamespace(returncode=2 if step == self.fail else 0)


def test_the_recipe_trains_the_detector_before_cutting_crops_with_it(tmp_path):
    """One command runs every step of the shipped recipe in order: scenes, three detector schedules each
    from the last one's best weights, its export, then crops cut by that exported detector and two
    classifier schedules, font-deck crops and a third schedule on them, more font-deck crops and mined font-deck
    scenes and a fourth schedule, and the classifier: the mean of the last three schedules' exports, beside
    the detector (not into models/); then the pair model's scenes, its strips and the pair model; then the
    fourth schedule trained further on crops cut by the corrected boxes, in its place in the mean, the detector
    trained further on the pair model's scenes, and last the gate, fitted to those three models on scenes of its
    own."""
    steps = recipe(tmp_path / "data", tmp_path / "runs", tmp_path / "cand")
    names = [s.name for s in steps]
    assert names == ["scenes-train", "scenes-val", "det", "det2", "det3", "det-export", "crops-train", "crops-val",
                     "mine-val", "mine-train", "cls", "cls2", "font-crops", "cls-font", "font-crops2",
                     "font-scenes", "mine-font", "cls-more", "cls-effnet2-export", "cls-font-export",
                     "cls-more-export", "cls-ensemble",
                     "pair-scenes-spread", "pair-scenes-general", "pair-scenes-reveal", "pair-scenes-tight",
                     "pair-scenes-mixed", "pair-scenes-spread2", "pair-strips-1", "pair-strips-2", "pair-strips-3",
                     "pair", "clean-crops", "clean-font-crops", "clean-crops-val", "clean-scenes", "clean-scenes-val",
                     "clean-mine", "clean-mine-val", "cls-clean", "cls-clean-export", "cls-clean-ensemble",
                     "det-clean", "det-more", "det-more-export", "gate-scenes-font-reveal", "gate-scenes-font",
                     "gate-scenes-general", "gate-scenes-photo", "gate-scenes-reveal", "gate-scenes-spread",
                     "gate-scenes-webcam", "gate-scenes-webcam-spread", "gate-scenes-print", "gate-scenes-print-spread",
                     "gate"]
    by = {s.name: s.args for s in steps}
    strips = [str(tmp_path / f"runs/pair-strips-{k}.npz") for k in (1, 2, 3)]
    assert [by[f"pair-strips-{k}"][by[f"pair-strips-{k}"].index("--out") + 1] for k in (1, 2, 3)] == strips
    assert by["pair"][:4] == ("--data", *strips)
    assert by["pair"][by["pair"].index("--out") + 1] == str(tmp_path / "cand/index-pair.onnx")
    assert all("--split" not in by[f"pair-scenes-{n}"] for n in ("spread", "general", "reveal", "tight", "mixed", "spread2"))
    assert by["det2"][by["det2"].index("--init") + 1] == str(tmp_path / "runs/det/weights/best.pt")
    assert by["det3"][by["det3"].index("--init") + 1] == str(tmp_path / "runs/det2/weights/best.pt")
    assert by["mine-train"][-1] == str(tmp_path / "cand/index-det.onnx")
    assert by["cls2"][by["cls2"].index("--init") + 1] == str(tmp_path / "runs/cls-effnet/best.pt")
    assert by["cls-font"][by["cls-font"].index("--init") + 1] == str(tmp_path / "runs/cls-effnet2/best.pt")
    assert by["font-crops"][by["font-crops"].index("--font-decks") + 1] == "1.0"
    assert by["cls-more"][by["cls-more"].index("--init") + 1] == str(tmp_path / "runs/cls-font/best.pt")
    # the font-deck scenes' crops do not overwrite those mined from the general scenes (names repeat)
    assert by["mine-font"][by["mine-font"].index("--prefix") + 1] != "m"
    assert by["cls-font-export"][by["cls-font-export"].index("--out") + 1] == str(tmp_path / "runs/cls-font")
    members = [str(tmp_path / f"cand/cls-members/{run}.onnx") for run in ("cls-effnet2", "cls-font", "cls-more")]
    assert [by[f"{run}-export"][by[f"{run}-export"].index("--export") + 1]
            for run in ("cls-effnet2", "cls-font", "cls-more")] == members
    assert by["cls-ensemble"] == ("--out", str(tmp_path / "cand/index-cls.onnx"), *members)
    # the corrected-label steps: the fourth schedule continued, in its place in the mean
    assert by["cls-clean"][by["cls-clean"].index("--init") + 1] == str(tmp_path / "runs/cls-more/best.pt")
    clean_members = [str(tmp_path / f"cand/cls-members/{run}.onnx") for run in ("cls-effnet2", "cls-font", "cls-clean")]
    assert by["cls-clean-ensemble"] == ("--out", str(tmp_path / "cand/index-cls.onnx"), *clean_members)
    assert by["clean-mine"][-1] == str(tmp_path / "cand/index-det.onnx")  # cut by det3, before det-clean's export
    assert names.index("clean-mine-val") < names.index("det-more-export")
    assert by["det-clean"][by["det-clean"].index("--init") + 1] == str(tmp_path / "runs/det3/weights/best.pt")
    assert by["det-clean"][by["det-clean"].index("--val") + 1] == str(tmp_path / "data/det1")
    assert by["det-clean"][by["det-clean"].index("--data") + 1] == str(tmp_path / "data/pairs/general")
    # det-more continues det-clean on the same scenes, and it is the detector exported
    assert by["det-more"][by["det-more"].index("--init") + 1] == str(tmp_path / "runs/det-clean/weights/best.pt")
    assert by["det-more"][by["det-more"].index("--also"):by["det-more"].index("--val")] == \
        by["det-clean"][by["det-clean"].index("--also"):by["det-clean"].index("--val")]
    assert by["det-more-export"][by["det-more-export"].index("--name") + 1] == "det-more"
    # the gate: scenes of held-out designs with seeds of their own, fitted to the models as they ship
    gate_scenes = [s for s in steps if s.name.startswith("gate-scenes-")]
    assert all(s.args[s.args.index("--split") + 1] == "val" for s in gate_scenes)
    seeds = [s.args[s.args.index("--seed") + 1] for s in steps if "--seed" in s.args and s.module == "vision.synth"]
    assert all(seeds.count(s.args[s.args.index("--seed") + 1]) == 1 for s in gate_scenes)
    assert by["gate"][:4] == ("--models", str(tmp_path / "cand"), "--out", str(tmp_path / "cand/index-gate.onnx"))
    assert names[-1] == "gate" and names.index("det-more-export") < names.index("gate")
    assert Step("x", "vision.synth", ("--count", "3")).command("py") == ["py", "-m", "vision.synth", "--count", "3"]


def test_running_the_recipe_again_resumes_after_the_last_finished_step(tmp_path, capsys):
    steps = recipe(tmp_path / "data", tmp_path / "runs", tmp_path / "cand")
    marks = tmp_path / "runs" / "marks"
    first = _Runner(fail="vision.crops")
    with pytest.raises(SystemExit, match="'crops-train' failed \\(exit 2\\).*run `again` again to resume"):
        run_recipe(steps, marks, run=first, resume_hint="again")
    assert first.ran == ["vision.synth", "vision.synth", "vision.train det", "vision.train det", "vision.train det",
                         "vision.train export", "vision.crops"]
    assert sorted(p.stem for p in marks.glob("*.done")) == sorted(["scenes-train", "scenes-val", "det", "det2",
                                                                   "det3", "det-export"])
    # the plan names only what is left, and runs nothing
    assert run_recipe(steps, marks, run=_Runner(fail="vision.synth"), only_plan=True)[0] == "crops-train"
    second = _Runner()
    assert run_recipe(steps, marks, run=second) == [s.name for s in steps[6:]]
    # the general scenes were made before: the only scenes made now are the font-deck ones, the pair
    # model's six sets, the corrected-label classifier's two and the gate's ten, later on
    assert second.ran[0] == "vision.crops" and second.ran.count("vision.synth") == 1 + 6 + 2 + 10
    assert run_recipe(steps, marks, run=_Runner(fail="vision.crops")) == []  # all done: nothing runs
    assert "done before, skipped" in capsys.readouterr().err


def test_a_fans_neighbours_lie_beside_the_index_and_never_over_it():
    """In a fan crop (``vision.crops --fans``) the cards over the one read lie to its right along its own
    width, far enough that their left edge stops short of its index; the cards under it lie to its left."""
    import numpy as np

    from vision.crops import _fan_centres

    card = np.zeros((350, 250, 4), np.uint8)
    box = (0.05, 0.03, 0.17, 0.2)  # the index, as shares of the card's width and height
    index_h = 30.0
    s = index_h / ((box[3] - box[1]) * 350)
    index_w, margin = (box[2] - box[0]) * 250 * s, box[0] * 250 * s
    for seed in range(40):
        rng = np.random.default_rng(seed)
        angle = float(rng.uniform(0, 360))
        along = np.array([np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))])
        under, over = _fan_centres(rng, card, box, index_h, angle, (100.0, 100.0))
        assert under or over
        for k, c in enumerate(over, 1):
            step = float((np.array(c) - 100.0) @ along)
            # the over card's left edge: its index centre minus half an index and the margin
            assert step - index_w / 2 - margin >= index_w / 2 + 0.04 * k * index_w
        for c in under:
            assert float((np.array(c) - 100.0) @ along) < -index_w


def test_a_wider_detector_differs_from_pico_only_in_its_width():
    """``vision.train det --width``: the network trained from scratch on a lent GPU keeps the pico
    network's depth and layers; only the channel width changes (the default is the shipped pico)."""
    from vision.train import PICO_WIDTH, PICO_YAML, detector_yaml

    assert detector_yaml() == PICO_YAML == detector_yaml(PICO_WIDTH)
    wide = detector_yaml(0.25)
    assert "p: [0.33, 0.25, 1024]" in wide and "0.1875" not in wide
    assert wide.replace("0.25", "0.1875") == PICO_YAML


def test_a_tight_fan_lays_cards_an_index_strip_apart():
    """``vision.synth --tight``: 8-16 cards in one or two fans or rows, each card's centre a small step
    (7-15% of the card's height) from the last in its row, so that only a strip with its index shows."""
    import numpy as np

    from vision.synth import tight_layout

    for seed in range(20):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(8, 17))
        cards, height = tight_layout(rng, n, 640, 480)
        assert len(cards) == n and 120 <= height <= 480 * 0.6
        centres = np.array([c for c, _ in cards])
        steps = np.linalg.norm(np.diff(centres, axis=0), axis=1) / height
        in_row = steps < 0.5  # the jump to a second row is a card's height
        assert in_row.sum() >= n - 2 and ((steps[in_row] >= 0.07) & (steps[in_row] <= 0.15 + 1e-6)).all()


def test_a_tight_row_can_be_laid_with_wider_steps_and_a_bad_range_is_refused(capsys):
    """``vision.synth --tight --tight-steps 0.07:0.25``: rows whose steps reach a quarter of a card's height, so
    whole indices show as in whole-suit rows on a real table; a range that is no range, or reaches half a card,
    is refused with what is wrong."""
    import numpy as np

    from vision.synth import main, tight_layout

    steps = []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        cards, height = tight_layout(rng, 12, 640, 480, (0.07, 0.25))
        s = np.linalg.norm(np.diff(np.array([c for c, _ in cards]), axis=0), axis=1) / height
        steps.extend(s[s < 0.5])
    steps = np.array(steps)
    assert ((steps >= 0.07) & (steps <= 0.25 + 1e-6)).all() and (steps > 0.15).mean() > 0.3
    for bad, why in (("0.3", "is not LO:HI"), ("0.2:0.1", "LO <= HI"), ("0.1:0.6", "half a card")):
        with pytest.raises(SystemExit):
            main(["--out", "/nonexistent", "--count", "1", "--tight", "--tight-steps", bad])
        assert why in capsys.readouterr().err


def test_tight_scenes_are_of_one_design(tmp_path):
    from vision import synth

    from .conftest import tiny_art_cache

    tiny_art_cache(tmp_path / "art")
    tiny_art_cache(tmp_path / "art2", deck="test:other")
    (tmp_path / "art" / "test__other").symlink_to(tmp_path / "art2" / "test__other")
    index = json.loads((tmp_path / "art" / "index.json").read_text())
    index.update(json.loads((tmp_path / "art2" / "index.json").read_text()))
    (tmp_path / "art" / "index.json").write_text(json.dumps(index))
    out = tmp_path / "tight"
    assert synth.main(["--out", str(out), "--count", "6", "--seed", "3", "--art-cache", str(tmp_path / "art"),
                       "--cache-only", "--tight"]) == 0
    for meta in sorted((out / "meta" / "train").glob("*.json")):
        boxes = json.loads(meta.read_text())["boxes"]
        assert len({b["deck"] for b in boxes}) <= 1


def test_a_face_crop_keeps_clear_of_every_corner_index():
    """``vision.crops --faces``: a NONE crop of a card's face (a pip, a court figure) must never show an index,
    or the classifier would learn to veto real ones; the box, grown by the crop's largest margin, stays off
    the card's index boxes and their mirrored corners, and holds ink."""
    import numpy as np

    from vision import art
    from vision.crops import _face_box

    from .conftest import _plain_card

    rng = np.random.default_rng(4)
    card = _plain_card(rng)
    boxes = [[0.09, 0.07, 0.26, 0.25], [0.74, 0.75, 0.91, 0.93]]
    ink = art._ink_mask(card)
    h, w = card.shape[:2]
    found = 0
    for _ in range(200):
        face = _face_box(rng, card, boxes)
        if face is None:
            continue
        found += 1
        x0, y0, x1, y1 = face
        g = 0.35  # the crop's widest margin a side (vision.crops._cut)
        gx, gy = (x1 - x0) * g, (y1 - y0) * g
        for b in boxes + [[1 - b[2], b[1], 1 - b[0], b[3]] for b in boxes] + [[b[0], 1 - b[3], b[2], 1 - b[1]] for b in boxes]:
            assert x1 + gx <= b[0] or b[2] <= x0 - gx or y1 + gy <= b[1] or b[3] <= y0 - gy
        assert ink[int(y0 * h):int(y1 * h), int(x0 * w):int(x1 * w)].mean() >= 0.05
    assert found > 100
    blank = card.copy()
    blank[40:80, 23:63, :3] = 250  # nothing printed off the indices: no face crop to cut
    assert all(_face_box(rng, blank, boxes) is None for _ in range(20))


def test_face_crops_are_none_and_skip_faces_that_print_a_rank(tmp_path):
    """A face crop is labelled NONE at the classifier's input size; a joker's face (its word) and the courts of
    designs that print their letter large are never cut, since those say a rank or JOKER."""
    import numpy as np

    from vision import synth
    from vision.crops import LETTERED_COURTS, face_sample

    from .conftest import tiny_art_cache

    lettered = sorted(LETTERED_COURTS)[0]
    tiny_art_cache(tmp_path / "art", deck=lettered)
    bank = synth.ArtBank(tmp_path / "art", "train", cache_only=True)
    rng = np.random.default_rng(1)
    cut = [face_sample(rng, bank, [0]) for _ in range(150)]
    kept = [s for s in cut if s is not None]
    assert kept and all(label == "NONE" and crop.shape == (64, 64, 3) for crop, label in kept)
    codes = bank.decks[0][2]
    courts = [c for c in codes if c[:-1] in ("J", "Q", "K")]
    bank.decks[0] = (bank.decks[0][0], bank.decks[0][1], courts, bank.decks[0][3])
    assert all(face_sample(rng, bank, [0]) is None for _ in range(30))


def test_a_gpu_burst_renders_each_scene_family_in_proportion_to_the_recipe():
    """``vision.train families`` gives each rendering process one family's options: every family of
    ``PAIR_SCENES`` is rendered, and none gets fewer processes than a family with a smaller count."""
    from vision.train import PAIR_SCENES, family_shares

    lines = family_shares(16)
    assert len(lines) == 16
    given = {name: lines.count(" ".join(more)) for name, _, _, more in PAIR_SCENES}
    assert all(n >= 1 for n in given.values())
    counts = {name: count for name, count, _, _ in PAIR_SCENES}
    for a in counts:
        for b in counts:
            if counts[a] > counts[b]:
                assert given[a] >= given[b]
    assert len(family_shares(2)) == 2


def test_a_family_given_a_larger_count_gets_more_processes_and_an_unknown_one_is_named():
    """``vision.train families --count tight=4000``: the tight fans, which the reader reads worst, get more
    of the rendering processes and the others still one each; a family that does not exist is refused by
    name, with the names that do."""
    from vision.train import PAIR_SCENES, family_shares, main

    tight = shlex_join(next(more for name, _, _, more in PAIR_SCENES if name == "tight"))
    assert family_shares(16).count(tight) == 1
    more = family_shares(16, {"tight": 6000})
    assert more.count(tight) >= 6 and len(more) == 16
    assert all(more.count(shlex_join(m)) >= 1 for *_, m in PAIR_SCENES)
    with pytest.raises(ValueError, match="no scene family fans: the families are spread, general"):
        family_shares(16, {"fans": 100})
    with pytest.raises(SystemExit, match="NAME=N"):
        main(["families", "--processes", "4", "--count", "tight"])


# ---------------------------------------------------------------- the webcam look


def test_the_webcam_look_washes_out_and_softens_a_scene_of_the_same_size():
    """``vision.synth.webcam``: black print comes out lifted, white paper pulled down, strong colour faded
    toward grey and the finest detail lost, as in a laptop webcam's frames; the size is kept, so every label
    stays where it was."""
    import numpy as np

    from vision.synth import webcam

    img = np.zeros((120, 160, 3), np.float32)
    img[:, 80:] = 255  # black | white
    img[:20, :40] = (0, 0, 255)  # pure red
    for seed in range(10):
        out = webcam(np.random.default_rng(seed), img).astype(float)
        assert out.shape == img.shape
        assert np.median(out[40:, :60]) > 10 and np.median(out[40:, 100:]) < 250
        red = out[5:15, 5:30].mean((0, 1))
        assert red[2] - red[:2].mean() < 255 * 0.9  # faded
    stripes = np.zeros((120, 160, 3), np.float32)
    stripes[:, ::2] = 255  # detail one pixel fine: contrast 127.5 along a row
    for seed in range(10):
        out = webcam(np.random.default_rng(seed), stripes).astype(float)
        assert out[40:80, 40:120].mean(-1).std(1).mean() < 0.4 * 127.5  # seen small: mostly lost


def _same_cards_other_pictures(tmp_path, option: list[str], differ_by: float) -> None:
    """Three scenes of one seed rendered without and with ``option``: the labels are the same, and each picture
    differs from its twin by more than ``differ_by`` grey levels on average."""
    import cv2
    import numpy as np

    from .conftest import tiny_art_cache
    from vision import synth

    art = tiny_art_cache(tmp_path / "art")
    common = ["--count", "3", "--seed", "4", "--art-cache", str(art), "--cache-only"]
    assert synth.main(["--out", str(tmp_path / "plain"), *common]) == 0
    assert synth.main(["--out", str(tmp_path / "with"), *common, *option]) == 0
    for k in range(3):
        name = f"00000{k}"
        assert ((tmp_path / "plain" / "meta" / "train" / f"{name}.json").read_text()
                == (tmp_path / "with" / "meta" / "train" / f"{name}.json").read_text())
        a = cv2.imread(str(tmp_path / "plain" / "images" / "train" / f"{name}.jpg")).astype(int)
        b = cv2.imread(str(tmp_path / "with" / "images" / "train" / f"{name}.jpg")).astype(int)
        assert a.shape == b.shape and np.abs(a - b).mean() > differ_by


def test_webcam_scenes_keep_the_cards_of_the_same_scenes_without_it(tmp_path):
    """``vision.synth --webcam`` draws its look and its pale tables from a stream of its own: the labels are
    those of the same seed without it, and the pictures differ."""
    _same_cards_other_pictures(tmp_path, ["--webcam", "1.0"], 5)


def test_print_on_the_table_lies_under_the_cards_of_the_same_scenes_without_it(tmp_path):
    """``vision.synth --print``: pages, boxes and loose words on the table, drawn from a stream of their own and
    before the cards: the labels are those of the same seed without print, the pictures differ, and on a plain
    grey table ``table_print`` leaves dark type on light paper."""
    import numpy as np

    from vision import synth

    _same_cards_other_pictures(tmp_path, ["--print", "1.0"], 1)
    for seed in range(5):
        table = np.full((240, 320, 3), 128, np.uint8)
        synth.table_print(np.random.default_rng(seed), table, "train")
        grey = table.mean(-1)
        assert (grey < 90).sum() > 30 and ((grey > 140).sum() > 300 or (grey < 90).sum() > 100)


def test_webcam_crops_keep_the_classes_of_the_same_crops_without_it(tmp_path):
    """``vision.crops --webcam``: the classifier's crops seen through the same webcam look, from a stream of
    their own, so every crop keeps its class and only its pixels change (washed out: less contrast)."""
    import cv2
    import numpy as np

    from vision import crops

    from .conftest import tiny_art_cache

    art = tiny_art_cache(tmp_path / "art")
    for png in art.rglob("*.png"):  # vision.crops skips decks drawn under 200 px
        card = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
        cv2.imwrite(str(png), cv2.resize(card, None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST))
    common = ["--count", "12", "--seed", "4", "--art-cache", str(art), "--cache-only"]
    assert crops.main(["--out", str(tmp_path / "plain"), *common]) == 0
    assert crops.main(["--out", str(tmp_path / "cam"), *common, "--webcam", "1.0"]) == 0
    plain = sorted(p.relative_to(tmp_path / "plain") for p in (tmp_path / "plain").rglob("*.png"))
    cam = sorted(p.relative_to(tmp_path / "cam") for p in (tmp_path / "cam").rglob("*.png"))
    assert plain == cam and len(plain) == 12
    spread = [[cv2.imread(str(tmp_path / kind / p)).astype(float).std() for p in plain] for kind in ("plain", "cam")]
    assert np.median(spread[1]) < np.median(spread[0])
