"""Build the example git repository from the files in examples/acme/files/.

    python examples/make_example_repo.py [DEST]     (default: examples/repo)

Two commits with a fixed author, committer and dates, so their SHAs are stable and
examples/acme/suite.yaml can pin them: v1 (refunds capped inside the client) and v2
(refunds moved to src/payments/refund.ts). An existing DEST is deleted and rebuilt; the
SHAs come out the same every time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "acme"
COMMITS = [
    ("v1", "Initial payments service", "2024-01-02T10:00:00+00:00"),
    ("v2", "Move refund cap into refund.ts", "2024-02-03T10:00:00+00:00"),
]
# acme/files holds v2; v1 differs only in where refunds are capped
V1_CAP = """
export function capRefund(requested: number, captured: number): number {
  return Math.min(requested, captured);
}
"""


def _as_v1(dest: Path) -> None:
    payments = dest / "src" / "payments"
    (payments / "refund.ts").unlink()
    index = payments / "index.ts"
    index.write_text(index.read_text().replace('export { capRefund } from "./refund";\n', "\n"))
    client = payments / "client.ts"
    client.write_text(client.read_text() + V1_CAP)


def _git(dest: Path, *args: str, date: str | None = None) -> str:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_AUTHOR_NAME": "Acme Dev",
        "GIT_AUTHOR_EMAIL": "dev@acme.test",
        "GIT_COMMITTER_NAME": "Acme Dev",
        "GIT_COMMITTER_EMAIL": "dev@acme.test",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    out = subprocess.run(
        ["git", "-C", str(dest), *args], env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def build(dest: Path) -> list[str]:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    _git(dest, "init", "-q", "-b", "main")
    shas = []
    for folder, message, date in COMMITS:
        for child in dest.iterdir():
            if child.name != ".git":
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        shutil.copytree(SOURCE / "files", dest, dirs_exist_ok=True)
        if folder == "v1":
            _as_v1(dest)
        _git(dest, "add", "-A")
        _git(dest, "commit", "-q", "-m", message, date=date)
        shas.append(_git(dest, "rev-parse", "HEAD"))
    return shas


def main() -> None:
    dest = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "repo"
    shas = build(dest)
    for (name, message, _), sha in zip(COMMITS, shas, strict=True):
        print(f"{name} {sha} {message}")


if __name__ == "__main__":
    main()
