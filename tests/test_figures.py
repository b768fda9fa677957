"""The committed figures regenerate equal (within a small tolerance), and the CLI writes the same set."""

import subprocess
import sys
from pathlib import Path

import pytest
from matplotlib.testing.compare import compare_images
from PIL import Image

from toolcall_lab.teacher.cli import main
from toolcall_lab.teacher.figures import FIGURES, compare_figures, paris_double_run, write_figures

COMMITTED = Path(__file__).resolve().parents[1] / "figures"
TOL = 2  # RMS difference on a 0-255 scale: fonts and layout must match, not every anti-aliased pixel
NAMES = ["loop_tokens", "caching", "estimated_vs_billed", "paris_sequence"]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("figures")
    written = write_figures(out)
    assert written == [out / f"{name}.png" for name in FIGURES]
    return out


def test_the_registry_names_every_lesson_figure():
    assert list(FIGURES) == NAMES
    for spec in FIGURES.values():
        assert callable(spec.make) and len(spec.describe()) > 100  # a real text alternative


@pytest.mark.parametrize("name", NAMES)
def test_each_figure_regenerates_equal_to_the_committed_one(fresh, name):
    expected = COMMITTED / f"{name}.png"
    assert expected.exists(), f"run `python -m toolcall_lab figures` and commit {expected.name}"
    assert compare_images(str(expected), str(fresh / f"{name}.png"), tol=TOL) is None


@pytest.mark.parametrize("name", NAMES)
def test_files_carry_the_text_alternative_and_no_version_or_date(fresh, name):
    with Image.open(fresh / f"{name}.png") as image:
        info = dict(image.info)
        size = image.size
    assert info["Description"] == FIGURES[name].describe()
    assert "Software" not in info and "Creation Time" not in info
    raw = (fresh / f"{name}.png").read_bytes()
    assert b"matplotlib" not in raw.lower()
    if name != "paris_sequence":
        assert size == (1280, 720)


def test_regenerating_is_byte_identical(fresh, tmp_path):
    again = write_figures(tmp_path, names=["loop_tokens"])
    assert again[0].read_bytes() == (fresh / "loop_tokens.png").read_bytes()


def test_compare_figures_reports_equal_and_missing(fresh, tmp_path):
    assert compare_figures(COMMITTED, fresh, tol=TOL) == dict.fromkeys(NAMES)
    problems = compare_figures(tmp_path, fresh)  # nothing committed in tmp_path
    assert all("is missing" in problems[name] for name in NAMES)


def test_the_double_run_behind_estimated_vs_billed_is_deterministic():
    run = paris_double_run()
    assert run.answer == "It's 18°C and sunny in Paris."
    assert [(s.usage.input_tokens, s.usage.output_tokens) for s in run.steps] == [(397, 21), (454, 14)]
    assert not any(s.usage.estimated for s in run.steps)  # reported by the server, over HTTP


@pytest.mark.slow
def test_cli_writes_the_same_set(fresh, tmp_path):
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "toolcall_lab", "figures", "--out", str(out)],
                            capture_output=True, text=True, check=True)
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{name}.png" for name in NAMES)
    assert result.stdout.count("wrote ") == len(NAMES)
    for name in NAMES:
        assert compare_images(str(fresh / f"{name}.png"), str(out / f"{name}.png"), tol=TOL) is None


def test_cli_check_passes_on_a_good_set_and_fails_on_a_missing_one(fresh, tmp_path, capsys):
    assert main(["figures", "--out", str(fresh), "--check"]) == 0
    assert "loop_tokens: same" in capsys.readouterr().out
    assert main(["figures", "--out", str(tmp_path), "--check"]) == 1
    assert "is missing" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []  # --check writes nothing there


def test_checking_a_folder_draws_only_the_figures_it_holds(fresh, tmp_path, monkeypatch):
    # a missing figure is reported without drawing it (drawing all four took seconds)
    import shutil

    drawn = []
    for name, spec in list(FIGURES.items()):
        counted = spec._replace(make=lambda make=spec.make, name=name: drawn.append(name) or make())
        monkeypatch.setitem(FIGURES, name, counted)
    shutil.copy(fresh / "caching.png", tmp_path / "caching.png")
    problems = compare_figures(tmp_path)
    assert drawn == ["caching"] and problems["caching"] is None
    assert all("is missing" in problems[name] for name in NAMES if name != "caching")


def test_readme_lists_every_figure_and_the_command():
    readme = (COMMITTED / "README.md").read_text(encoding="utf-8")
    assert "python -m toolcall_lab figures" in readme
    for name in NAMES:
        assert f"`{name}.png`" in readme


def test_compare_figures_explains_a_size_mismatch(fresh, tmp_path):
    Image.new("RGB", (64, 36), "white").save(tmp_path / "loop_tokens.png")
    problems = compare_figures(tmp_path, fresh)
    assert "size" in problems["loop_tokens"].lower()


@pytest.mark.parametrize("name", NAMES)
def test_what_a_notebook_shows_is_the_committed_picture(name, tmp_path):
    fig = FIGURES[name].make()
    shown = tmp_path / f"{name}.png"
    shown.write_bytes(fig._repr_png_())  # the image/png a notebook displays for this figure
    assert compare_images(str(COMMITTED / f"{name}.png"), str(shown), tol=TOL) is None
    assert not repr(fig).startswith("<Figure")
    text = fig._repr_mimebundle_(include={"text/plain"})["text/plain"]
    assert text.split() == FIGURES[name].describe().split()  # its text alternative, wrapped
