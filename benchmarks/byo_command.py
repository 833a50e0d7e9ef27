"""A command: retriever for benchmarks/byo_adapters.py: BM25 over 40-line windows of the
requested revision, answering minimal chunks (file and excerpt only, no lines, no role).

    python benchmarks/byo_command.py REPO   (one JSON request on stdin)
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile

from rank_bm25 import BM25Okapi

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from byo_factories import EXTS, _words


def main() -> None:
    request = json.load(sys.stdin)
    tar = subprocess.run(
        ["git", "-C", sys.argv[1], "archive", request["repositoryRevision"]],
        capture_output=True,
        check=True,
    ).stdout
    docs = []
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if not member.isfile() or not member.name.endswith(EXTS):
                continue
            handle = archive.extractfile(member)
            assert handle is not None
            lines = handle.read().decode("utf-8", "replace").splitlines()
            for start in range(0, len(lines), 40):
                docs.append((member.name, "\n".join(lines[start : start + 40])))
    bm25 = BM25Okapi([_words(text) for _, text in docs])
    scores = bm25.get_scores(_words(request["query"]))
    order = sorted(range(len(docs)), key=lambda i: (-scores[i], i))[:10]
    ranked = [{"file": docs[i][0], "excerpt": docs[i][1], "score": float(scores[i])} for i in order]
    json.dump({"ranked": ranked}, sys.stdout)


if __name__ == "__main__":
    main()
