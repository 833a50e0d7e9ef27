"""A damaged index build is refused clearly, and `codegold index` rebuilds over it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo

SOURCE = {
    "src/billing.py": "def charge(amount):\n    return amount * 2\n",
    "src/refund.py": "def refund(amount):\n    return -amount\n",
}


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01
    path.write_bytes(bytes(data))


def _garbage(path: Path) -> None:
    path.write_bytes(b"{not json")


DAMAGE: dict[str, tuple[str, Callable[[Path], None]]] = {
    "truncated-chunks": ("chunks.msgpack", _truncate),
    "flipped-chunks": ("chunks.msgpack", _flip),
    "flipped-lexical-array": ("lexical/weights.npy", _flip),
    "truncated-lexical-vocab": ("lexical/vocab.json", _truncate),
    "flipped-symbols": ("symbols.msgpack", _flip),
    "flipped-inventory": ("inventory.json", _flip),
    "garbage-manifest": ("manifest.json", _garbage),
    "missing-chunks": ("chunks.msgpack", lambda p: p.unlink()),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("integrity")
    repo, _ = make_repo(root, [SOURCE])
    return root, repo


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damaged_build_is_refused_then_rebuilt(
    case: str, built: tuple[Path, Path], tmp_path: Path
) -> None:
    _, repo = built
    index = tmp_path / "idx"
    done = run_cli("index", str(repo), "--out", str(index), "--embedder", "none")
    assert done.returncode == 0, done.stderr
    (build,) = (index / "builds").iterdir()
    name, damage = DAMAGE[case]
    damage(build / name)

    found = run_cli("search", "charge", "--index", str(index))
    assert found.returncode == 3, found.stderr
    lines = found.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in found.stderr
    assert build.name in lines[0] and name in lines[0] and "rebuild" in lines[0]

    again = run_cli("index", str(repo), "--out", str(index), "--embedder", "none")
    assert again.returncode == 0, again.stderr
    healed = run_cli("search", "charge", "--index", str(index))
    assert healed.returncode == 0, healed.stderr
    assert "src/billing.py" in healed.stdout


def test_run_on_a_damaged_build_exits_3(built: tuple[Path, Path], tmp_path: Path) -> None:
    _, repo = built
    index = tmp_path / "idx"
    assert run_cli("index", str(repo), "--out", str(index), "--embedder", "none").returncode == 0
    (build,) = (index / "builds").iterdir()
    _flip(build / "chunks.msgpack")
    suite = tmp_path / "suite.yaml"
    revision = (index / "revisions").glob("*.json").__next__().stem
    suite.write_text(
        f"suite: s\nrepository: {{name: r, revision: {revision}}}\ncases:\n"
        "  - id: c\n    query: how is a charge computed?\n"
        "    accepted: [{file: src/billing.py, symbol: charge}]\n"
    )
    # `run` builds what is missing but never silently serves a damaged build: it
    # rebuilds over it, like `index` does.
    out = tmp_path / "run"
    done = run_cli(
        "run",
        "--cases",
        str(suite),
        "--repo",
        str(repo),
        "--index",
        str(index),
        "--out",
        str(out),
        "--embedder",
        "none",
    )
    assert done.returncode == 0, done.stderr
    # Readers that only open the index (search, diagnose without --repo) refuse it.
    (build2,) = (index / "builds").iterdir()
    _truncate(build2 / "chunks.msgpack")
    refused = run_cli("search", "charge", "--index", str(index))
    assert refused.returncode == 3 and "chunks.msgpack" in refused.stderr
