"""Attack: plant a link where ``mcp-notebook serve --client`` writes its client tokens.

``serve --client NAME`` writes each client's token to a file (``--clients-file``, or one in the
cache folder). The file was opened following links: a link placed there (in a shared or
group-writable folder, or a path a script reuses) sent the tokens wherever it pointed, a dangling
one made a new file there, and one to a file of the user's own overwrote it with JSON. Now a
clients file that is a link (or not a plain file, or another user's) is refused before the kernel
starts, naming the file and the way out; the write itself never follows a link either.
"""

from __future__ import annotations

from pathlib import Path

from tests.headless import WHO_CELLS, headless, write_notebook


def test_a_link_to_a_file_of_yours_is_refused_and_the_file_kept(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path, WHO_CELLS)
    precious = tmp_path / "notes.txt"
    precious.write_text("keep me\n")
    planted = tmp_path / "shared" / "clients.json"
    planted.parent.mkdir()
    planted.symlink_to(precious)
    with headless(notebook, "--client", "alice", "--clients-file", str(planted)) as served:
        assert served.line() == ""  # never served
        code = served.process.wait(timeout=60)
    assert code == 2
    assert precious.read_text() == "keep me\n"
    assert str(planted) in served.stderr and "a link" in served.stderr and "--clients-file" in served.stderr


def test_a_dangling_link_makes_no_file_where_it_points(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path, WHO_CELLS)
    readable = tmp_path / "public"
    readable.mkdir(mode=0o755)
    planted = tmp_path / "clients.json"
    planted.symlink_to(readable / "loot.json")
    with headless(notebook, "--client", "alice", "--clients-file", str(planted)) as served:
        assert served.line() == ""
        code = served.process.wait(timeout=60)
    assert code == 2 and not (readable / "loot.json").exists()
