"""Presentation mode: the shipped lecture's slides, the window's keys and screens, the handouts.

The lecture is traced, stepped and animated for real (one engine, as `jaxviz
present --export` does it); pictures are checked by their pixels.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from jaxviz.model.resources import resources_dir
from jaxviz.views.present.deck import build_slides, load_deck
from jaxviz.views.present.lecture import load_lecture, parse_lecture

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow

LECTURE = resources_dir() / "lectures" / "parallel_jax.toml"


@pytest.fixture(scope="module")
def deck(qapp):
    from jaxviz.cli.runner import run_request
    from jaxviz.ui.theme import style

    style.apply_theme(qapp)
    lecture = load_lecture(LECTURE)
    slides = load_deck(lecture, lambda record: run_request(record, lecture.devices, 120.0))
    return lecture, slides


def _image(slide, size=(1920, 1080), **kw):
    from jaxviz.ui.present.export import slide_image

    return slide_image(slide, size, **kw)


def ink_runs(image: QImage, left: int, top: int, right: int, bottom: int) -> list[int]:
    """Heights of the runs of consecutive pixel rows holding ink (text) in a rectangle:
    a row has ink when some pixel in it is far from the rectangle's background."""
    bg = image.pixelColor(left, top)
    runs, run = [], 0
    for y in range(top, bottom):
        inked = any(abs(image.pixelColor(x, y).lightness() - bg.lightness()) > 90
                    for x in range(left, right, 2))
        if inked:
            run += 1
        elif run:
            runs.append(run)
            run = 0
    if run:
        runs.append(run)
    return runs


def test_the_shipped_lecture_makes_every_slide_without_error(deck):
    lecture, slides = deck
    assert len(slides) >= 40  # device and stepping steps expand to several slides
    assert [s.error for s in slides if s.error] == []
    views = [s.view for s in slides]
    assert views.count("device") >= 15 and views.count("stepping") == 3
    # every slide renders, and draws more than its frame
    for number, slide in enumerate(slides, 1):
        image = _image(slide, (640, 360), number=number, count=len(slides))
        colours = {image.pixel(x, y) for x in range(0, 640, 16) for y in range(60, 330, 9)}
        assert len(colours) > 3, (number, slide.view)


def test_the_diff_slide_tints_rows_in_the_compare_layouts_colour_code(deck):
    from jaxviz.views import palette
    from jaxviz.views.compare.diff_layout import row_category

    _, slides = deck
    slide = next(s for s in slides if s.view == "diff" and s.data.target.function == "convolve")
    image = _image(slide)
    shown = {image.pixelColor(x, y).name().upper()
             for x in range(0, image.width(), 5) for y in range(0, image.height(), 2)}
    categories = {row_category(row) for row in slide.diff.rows} - {"same"}
    tints = {c: palette.diff_colour(c, palette.DIFF_TINT_MIX) for c in palette.DIFF_COLOURS}
    assert categories and {tints[c] for c in categories} <= shown
    others = set(tints) - categories
    assert not {tints[c] for c in others} & shown


def test_captions_come_from_the_data(deck):
    _, slides = deck
    psum = next(s for s in slides if s.view == "stepping" and
                s.stepping.steps[s.step_index].primitive == "psum")
    assert psum.caption.startswith("line 17: psum on 8 devices")
    lanes = psum.stepping.steps[psum.step_index].lanes
    assert len({lane.inputs[0].exact for lane in lanes}) == 8
    assert {lane.outputs[0].exact for lane in lanes} == {28.0}  # eight values became one
    diff = next(s for s in slides if s.view == "diff" and s.data.target.function == "convolve")
    assert diff.caption == f"plain -> vmap: {diff.diff.summary}"
    program = next(s for s in slides if s.view == "program" and s.variant == "pmap"
                   and s.data.target.function == "normalize")
    assert "pmap became jit(shard_map(...))" in program.caption and "1 psum" in program.caption


def test_caption_and_code_on_a_1920x1080_slide_meet_the_room_sizes(deck):
    from jaxviz.ui.present.export import slide_image

    _, slides = deck
    source = next(s for s in slides if s.view == "source" and s.data.target.function
                  == "convolve")
    image = slide_image(source, (1920, 1080))
    from jaxviz.ui.present.paint import SlidePainter

    painter = SlidePainter(source)
    probe = QImage(1920, 1080, QImage.Format.Format_RGB32)
    from PySide6.QtGui import QPainter

    p = QPainter(probe)
    painter.paint(p, 1920, 1080)
    p.end()
    cap = painter.caption_rect
    caption_runs = ink_runs(image, int(cap.left()), int(cap.top()), int(cap.right()),
                            int(cap.bottom()))
    assert caption_runs and max(caption_runs) >= 30, caption_runs
    # the code block: from the caption's foot to the last code row, past the line numbers
    top = int(cap.bottom()) + 30
    code_runs = ink_runs(image, 200, top, 1800, top + 5 * 45)
    assert code_runs and max(code_runs) >= 26, code_runs


def test_a_1280x720_slide_is_the_1920x1080_one_scaled(deck):
    _, slides = deck
    source = next(s for s in slides if s.view == "source")
    big, small = _image(source), _image(source, (1280, 720))
    runs_big = ink_runs(big, 60, 40, 1800, 120)
    runs_small = ink_runs(small, 40, 26, 1200, 80)
    assert abs(max(runs_small) - max(runs_big) * 2 / 3) <= 3


def test_the_pdf_has_one_page_per_slide(deck, tmp_path):
    from jaxviz.ui.present.export import write_pdf

    _, slides = deck
    chosen = slides[:6]
    path = write_pdf(chosen, tmp_path / "deck.pdf", (1280, 720), title="t")
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
    pages = next(line for line in info.stdout.splitlines() if line.startswith("Pages:"))
    assert int(pages.split()[1]) == len(chosen)
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "def async_dispatch" in text.replace("\n", " ") or "matmul" in text


def test_the_window_walks_the_deck_with_the_clicker_keys(deck, qtbot):
    from jaxviz.ui.present.window import PresentationWindow

    lecture, slides = deck
    window = PresentationWindow(lecture, None, slides=slides)
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    seen = []
    window.moved.connect(seen.append)
    for key in (Qt.Key.Key_PageDown, Qt.Key.Key_Right, Qt.Key.Key_Space):
        qtbot.keyClick(window, key)
    assert window.index == 3 and seen == [1, 2, 3]
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    qtbot.keyClick(window, Qt.Key.Key_1)
    qtbot.keyClick(window, Qt.Key.Key_2)
    qtbot.keyClick(window, Qt.Key.Key_Return)
    assert window.index == 11
    qtbot.keyClick(window, Qt.Key.Key_End)
    assert window.index == len(slides) - 1
    qtbot.keyClick(window, Qt.Key.Key_Home)
    assert window.index == 0
    with qtbot.waitSignal(window.left, timeout=2000) as left:
        qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert left.args == [0]


def test_b_gives_a_black_screen_and_w_a_white_one(deck, qtbot):
    from jaxviz.ui.present.window import PresentationWindow

    lecture, slides = deck
    window = PresentationWindow(lecture, None, slides=slides, start=5)
    qtbot.addWidget(window)
    window.resize(960, 540)
    window.show()
    qtbot.keyClick(window, Qt.Key.Key_B)
    black = window.grab().toImage()
    assert {black.pixelColor(x, y).name() for x in range(0, 960, 7)
            for y in range(0, 540, 7)} == {"#000000"}
    qtbot.keyClick(window, Qt.Key.Key_W)
    white = window.grab().toImage()
    assert {white.pixelColor(x, y).name() for x in range(0, 960, 7)
            for y in range(0, 540, 7)} == {"#ffffff"}
    qtbot.keyClick(window, Qt.Key.Key_PageDown)  # leaves the blank screen, stays on 6
    shown = window.grab().toImage()
    assert window.index == 5 and shown.pixelColor(480, 10) != QColor("#000000")
    assert len({shown.pixel(x, 300) for x in range(0, 960, 5)}) > 2


def test_z_shows_a_folded_jaxpr_whole(deck):
    from PySide6.QtGui import QPainter

    from jaxviz.ui.present.paint import SlidePainter

    _, slides = deck
    program = next(s for s in slides if s.view == "program" and s.variant == "shard_map")
    rows = {}
    for whole in (False, True):
        sp = SlidePainter(program, whole=whole)
        image = QImage(1280, 720, QImage.Format.Format_RGB32)
        p = QPainter(image)
        sp.paint(p, 1280, 720)
        p.end()
        rows[whole] = sp.rows
    assert any(r.line < 0 for r in rows[False])  # folded: markers for the rest
    assert all(r.line >= 0 for r in rows[True])  # whole: every line, smaller
    assert {r.line for r in rows[True]} == set(range(len(program.lines)))
    assert set(program.lit) <= {r.line for r in rows[False]}


def test_the_presenter_console_shows_notes_and_the_next_slide(deck, qtbot):
    from jaxviz.ui.present.console import PresenterConsole
    from jaxviz.ui.present.window import PresentationWindow

    lecture, slides = deck
    window = PresentationWindow(lecture, None, slides=slides, start=1)
    console = PresenterConsole(window)
    qtbot.addWidget(window)
    qtbot.addWidget(console)
    console.resize(1280, 800)
    console.show()
    assert console.notes() == " ".join(slides[1].notes.split()) and "jnp.dot" in console.notes()
    qtbot.keyClick(console, Qt.Key.Key_PageDown)  # the console forwards the clicker
    assert window.index == 2 and console.notes() == " ".join(slides[2].notes.split())
    assert console.elapsed() == "0:00"
    image = console.grab().toImage()
    if os.environ.get("JAXVIZ_SHOTS"):
        image.save(os.path.join(os.environ["JAXVIZ_SHOTS"], "console.png"))
    current = {image.pixel(x, y) for x in range(20, 780, 6) for y in range(60, 600, 6)}
    following = {image.pixel(x, y) for x in range(800, 1260, 6) for y in range(80, 400, 6)}
    assert len(current) > 8 and len(following) > 8  # both slides drawn, not blank


def test_with_two_screens_the_console_is_on_the_primary_and_the_slide_on_the_other(tmp_path):
    """A second process: Qt's offscreen platform with two screens (laptop and projector)."""
    config = tmp_path / "screens.json"
    config.write_text(json.dumps({"screens": [
        {"name": "laptop", "x": 0, "y": 0, "width": 1920, "height": 1200, "logicalDpi": 96,
         "dpr": 1},
        {"name": "projector", "x": 1920, "y": 0, "width": 1280, "height": 720,
         "logicalDpi": 96, "dpr": 1}]}))
    script = textwrap.dedent("""
        import sys
        from PySide6.QtWidgets import QApplication
        from jaxviz.views.present.lecture import parse_lecture
        from jaxviz.ui.present.screens import show
        app = QApplication(sys.argv[:1])
        lecture = parse_lecture('title = "T"\\n[[step]]\\nview = "title"\\nnotes = "hi"\\n')
        windows = show(lecture, None, "light", 0, True)
        for _ in range(5):
            app.processEvents()
        for w in windows:
            print(type(w).__name__, w.screen().name(), w.geometry().width(),
                  w.geometry().height())
    """)
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    placed = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert placed["PresentationWindow"].startswith("projector 1280 720")
    assert placed["PresenterConsole"].startswith("laptop")


def test_a_title_only_lecture_needs_no_engine():
    lecture = parse_lecture('title = "Hello room"\n[[step]]\nview = "title"\n')
    slides = build_slides(lecture, {})
    assert [s.heading for s in slides] == ["Hello room"] and not slides[0].error


def test_present_export_writes_pngs_of_the_chosen_size(tmp_path):
    out = tmp_path / "deck"
    lecture = tmp_path / "talk.toml"
    lecture.write_text('title = "t"\n[[step]]\nview = "title"\n[[step]]\nview = "jaxpr"\n'
                       'example = "psum_ones"\nvariant = "pmap"\n')
    done = subprocess.run([sys.executable, "-m", "jaxviz", "present", str(lecture), "--export",
                           f"{out}/", "--size", "1280x720", "--theme", "dark"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    files = sorted(out.glob("slide-*.png"))
    assert [f.name for f in files] == ["slide-01.png", "slide-02.png"]
    image = QImage(str(files[1]))
    assert (image.width(), image.height()) == (1280, 720)
    assert image.pixelColor(5, 5).lightness() < 60  # the dark theme
    assert "wrote 2 slides" in done.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('title = "t"\n[[step]]\nview = "jaxpr"\nexample = "convolve"\nvariant = "x"\n')
    done = subprocess.run([sys.executable, "-m", "jaxviz", "present", str(bad), "--export",
                           f"{out}/"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and f"{bad}:5: variant must be one of" in done.stderr


def test_the_lecture_files_named_by_the_readme_exist():
    assert LECTURE.is_file() and Path(LECTURE).parent.joinpath("recordings").is_dir()


# --------------------------------------------------------------------------- #
# issue 27: the shipped lecture is whole -- titles, its closing summary, the dark theme
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_no_slide_title_of_the_shipped_lecture_is_clipped(deck, size):
    """Every heading drawn whole: its lines, measured with the font the slide drew them in
    (QFontMetrics, not a guess at character widths), fit the heading's box, and together
    they are the heading, every word."""
    from PySide6.QtGui import QFontMetricsF, QPainter

    from jaxviz.ui.present.paint import SlidePainter

    lecture, slides = deck
    headings = {}
    for slide in slides:
        if slide.view != "title":
            headings.setdefault(slide.heading, slide)
    assert len(headings) >= 8  # the lecture's examples' titles, the summary's
    from jaxviz.ui.present.style import HEADING_PX, ui_font

    full = QFontMetricsF(ui_font(HEADING_PX * size[1] / 1080, bold=True))
    room = size[0] - 2 * 44 * size[1] / 1080  # the slide's margins
    assert any(full.horizontalAdvance(h) > room for h in headings), \
        "no heading here is longer than a line: this test would show nothing"
    for heading, slide in headings.items():
        painter = SlidePainter(slide, title=lecture.title)
        image = QImage(*size, QImage.Format.Format_RGB32)
        p = QPainter(image)
        painter.paint(p, *size)
        p.end()
        metrics = QFontMetricsF(painter.heading_font)
        box = painter.heading_rect
        assert " ".join(painter.heading_lines) == heading, (size, heading)
        for line in painter.heading_lines:
            assert metrics.horizontalAdvance(line) <= box.width() + 0.5, (size, line)
        assert box.left() >= 0 and box.right() <= size[0]
        assert painter.heading_font.pixelSize() >= 0.6 * 40 * size[1] / 1080


def test_the_lecture_ends_on_a_summary_of_what_its_slides_showed(deck):
    """The closing slide sums up the lecture, one line per function its slides showed, in
    order; each line is the caption of a slide of that function (so every sentence is
    something the deck showed, computed from its data) -- not convolve's variant list."""
    lecture, slides = deck
    last = slides[-1]
    assert last.view == "summary" and last.heading == lecture.title
    shown = []
    for slide in slides[:-1]:
        if slide.data is not None and slide.data.target is not None and not slide.error \
                and slide.view != "title" and slide.data.title not in shown:
            shown.append(slide.data.title)
    topics = [b.split(" — ", 1)[0] for b in last.bullets]
    assert topics == [t.split(": ", 1)[0] for t in shown] and len(topics) >= 8
    from jaxviz.views.timing.stats import CAPTIONS

    for bullet, title in zip(last.bullets, shown, strict=True):
        captions = [CAPTIONS[s.plot](s.timing) if s.view == "timing" else s.caption
                    for s in slides[:-1] if s.data is not None and s.data.title == title]
        facts = bullet.split(" — ", 1)[1]
        while facts:  # each fact, in turn, opens a caption of one of the function's slides
            fact = next((c for c in captions if facts.startswith(c.split(" — ")[0])), None)
            assert fact is not None, (bullet, facts)
            facts = facts[len(fact.split(" — ")[0]):].removeprefix("; ")
    words = " ".join(last.bullets)
    for topic in ("psum", "vmap", "pmap", "shard_map"):  # what the lecture's steps showed
        assert topic in words, topic


def test_the_dark_theme_is_dark_everywhere_code_boxes_too(deck):
    """A dark export has no light box: the code paper of source, jaxpr, diff and device
    slides is dark (sampled pixels), and its text reads on it."""
    from jaxviz.ui.present.paint import SlidePainter

    _, slides = deck
    for view in ("source", "program", "diff", "stepping"):
        slide = next(s for s in slides if s.view == view and not s.error)
        image = _image(slide, (1280, 720), theme="dark")
        painter = SlidePainter(slide, "dark")
        probe = QImage(1280, 720, QImage.Format.Format_RGB32)
        from PySide6.QtGui import QPainter

        p = QPainter(probe)
        painter.paint(p, 1280, 720)
        p.end()
        light = sum(image.pixelColor(x, y).lightness() > 200
                    for x in range(0, 1280, 8) for y in range(0, 720, 8))
        # only glyphs may be light: under 6% of the samples (a light code box is 30-60%)
        assert light / (160 * 90) < 0.06, (view, light / (160 * 90))
        if view == "source":  # a point inside the code box, left of the text, is dark
            cap = painter.caption_rect
            paper = image.pixelColor(int(cap.left()) + 4, int(cap.bottom()) + 40)
            assert paper.lightness() < 60, (view, paper.name())
