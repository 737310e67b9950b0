"""Where exports are written (autograd_viz.core.outpath): checked before the work, and
written all or nothing, so a write that fails part way leaves the old file intact."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from examples import sum_times_y

from autograd_viz.core import _files
from autograd_viz.core.outpath import output_path
from autograd_viz.export import filmstrip, save_gif, save_html, save_svg_animation, save_worksheet

OLD = b"the good old file\n"


def _full_disk(*args, **kwargs):
    raise OSError(28, "No space left on device")


EXPORTS = {
    "drawing.svg": lambda z, p: z.draw().save(p),
    "drawing.png": lambda z, p: z.draw().save(p),
    "page.html": lambda z, p: save_html(z, p),
    "animation.svg": lambda z, p: save_svg_animation(z, p),
    "filmstrip.html": lambda z, p: filmstrip(z).save(p),
    "sheet.html": lambda z, p: save_worksheet(z, p),
}


@pytest.mark.parametrize("name", list(EXPORTS))
def test_a_write_that_fails_part_way_leaves_the_old_file(tmp_path, monkeypatch, name):
    target = tmp_path / name
    target.write_bytes(OLD)
    monkeypatch.setattr(_files.os, "fsync", _full_disk)  # the disk fills at the last step
    with pytest.raises(OSError, match="No space left"):
        EXPORTS[name](sum_times_y(), target)
    assert target.read_bytes() == OLD
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left behind
    monkeypatch.undo()
    EXPORTS[name](sum_times_y(), target)  # and a write that succeeds replaces it
    assert target.read_bytes() != OLD


def test_a_gif_that_fails_part_way_leaves_the_old_file(tmp_path, monkeypatch):
    pytest.importorskip("cairosvg")
    from PIL import Image

    target = tmp_path / "steps.gif"
    target.write_bytes(OLD)
    save = Image.Image.save

    def half_then_fail(self, fp, *args, **kwargs):
        save(self, fp, *args, **kwargs)
        Path(fp).write_bytes(Path(fp).read_bytes()[:100])  # truncated, then the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Image.Image, "save", half_then_fail)
    with pytest.raises(OSError, match="No space left"):
        save_gif(sum_times_y(), target)
    assert target.read_bytes() == OLD
    assert [p.name for p in tmp_path.iterdir()] == ["steps.gif"]


def test_the_new_file_gets_ordinary_permissions(tmp_path):
    target = _files.write_atomically(tmp_path / "a.txt", "x")
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0o600
    target.chmod(0o640)
    _files.write_atomically(target, "y")
    assert target.stat().st_mode & 0o777 == 0o640  # a replaced file keeps its own


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_folder_that_cannot_be_written_is_said_at_once():
    with pytest.raises(PermissionError, match=r"save_html: cannot write in the folder '/proc'"):
        output_path("/proc/lesson.html", "save_html", (".html",))


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_folder_is_said_at_once(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(PermissionError, match="cannot write in the folder"):
            output_path(folder / "lesson.html", "save_html", (".html",))
    finally:
        folder.chmod(0o700)
