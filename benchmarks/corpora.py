#!/usr/bin/env python3
"""Build pinned git repositories of real code from registry packages.

    python benchmarks/corpora.py            # build every corpus
    python benchmarks/corpora.py click zod  # build some
    python benchmarks/corpora.py --list     # show what would be built

Each corpus is one or more released versions of a package, downloaded from its
registry (PyPI sdist, npm tarball or Debian package), checked against a pinned
sha256, unpacked with its version-directory prefix stripped, and committed into a
fresh git repository under ``benchmarks/.work/corpora/<name>``. Author, committer,
dates, message and git configuration are fixed, so a commit's SHA depends only on
the package bytes: the SHAs below are pinned in the gold suites, and a build that
produces another SHA fails loudly. When a corpus lists several versions, each later
version is committed on top of the previous one (a neighbouring revision, for
re-indexing benchmarks).

Building is idempotent: a repository whose commits already match is left alone.
Downloads are cached in ``benchmarks/.work/downloads``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
CORPORA = WORK / "corpora"
DOWNLOADS = WORK / "downloads"

COMMIT_DATES = [f"2024-01-{day:02d}T00:00:00Z" for day in range(1, 29)]
IDENTITY = {"name": "codegold corpora", "email": "corpora@codegold.invalid"}


@dataclass(frozen=True)
class Release:
    """One released version of a package, and the commit it becomes."""

    version: str
    sha256: str  # of the downloaded artifact
    commit: str  # the expected commit SHA once imported
    # Debian: the .deb version string; PyPI/npm: unused.
    deb_version: str | None = None


@dataclass(frozen=True)
class Corpus:
    name: str
    registry: str  # "pypi" | "npm" | "deb"
    package: str
    releases: tuple[Release, ...]
    # For Debian packages: the directory inside the package that becomes the repo root.
    deb_root: str | None = None
    languages: tuple[str, ...] = ()
    note: str = ""


CORPUS_LIST: tuple[Corpus, ...] = (
    Corpus(
        name="django",
        registry="pypi",
        package="Django",
        releases=(
            Release(
                "5.2.17",
                "9d4d93be539a18ab80d058eb515900e10951e04c537c5a6b394fc49528d3251f",
                "45b805153fee477f2a3b54a5fb62fffef692696f",
            ),
            Release(
                "5.2.19",
                "ad03d8abc51dbff95ebf34b27123cf0c26a3b62db7ba0cd520783686362533d1",
                "3a112a700835dea086569e7947f27206801ce6fc",
            ),
        ),
        languages=("python", "javascript", "html"),
        note="speed benchmarks; second commit is a neighbouring patch release (~1% of files)",
    ),
    Corpus(
        name="click",
        registry="pypi",
        package="click",
        releases=(
            Release(
                "8.2.1",
                "27c491cc05d968d271d5a1db13e3b5a184636d9d930f148c50b038f0d0646202",
                "5b88248081c3e46222ce72a860b3fe872961e241",
            ),
        ),
        languages=("python",),
        note="quality: src, tests and docs; deprecated aliases and compat shims",
    ),
    Corpus(
        name="zod",
        registry="npm",
        package="zod",
        releases=(
            Release(
                "4.1.12",
                "2ef9d7a7d822b059c9bd21f87caa4fdc48220d437353678984df942fb67b43fa",
                "bd2830260c59bb98f1622cf1c758600d1c577679",
            ),
        ),
        languages=("typescript", "javascript"),
        note="quality: TS sources in src/, legacy v3 API, and compiled .js/.d.ts copies",
    ),
    Corpus(
        name="pydantic-core",
        registry="pypi",
        package="pydantic-core",
        releases=(
            Release(
                "2.41.5",
                "08daa51ea16ad373ffd5e7606252cc32f07bc72b28284b6bc9c6df804816476e",
                "43fb5e644520447ffbb11af24633e231758a16b8",
            ),
        ),
        languages=("rust", "python"),
        note="quality: Rust crate (validators, serializers) with Python stubs and tests",
    ),
    Corpus(
        name="cobra",
        registry="deb",
        package="golang-github-spf13-cobra-dev",
        releases=(
            Release(
                "1.6.1",
                "4f5d20855133319beef3c5b49d3c21a0406f270bf94fb4b6f4d406b691283cb2",
                "fd5ea709cbf6f3a337d1ccf822f860952a8f3a4d",
                deb_version="1.6.1-1",
            ),
        ),
        deb_root="usr/share/gocode/src/github.com/spf13/cobra",
        languages=("go",),
        note="quality: Go library with tests, legacy and V2 bash completions",
    ),
    Corpus(
        name="jpype",
        registry="pypi",
        package="JPype1",
        releases=(
            Release(
                "1.6.0",
                "2d46b2a14f8f0e6f17d8aa22b4fc3a64b2790851ebf1409ad79a37c698fd6e9a",
                "8a33597b0cf7ba4525b7d45a44694c9ce35e98f2",
            ),
        ),
        languages=("java", "cpp", "python"),
        note="quality: Java + C++ + Python bridge, with prebuilt .class/.jar files",
    ),
    Corpus(
        name="attrs",
        registry="pypi",
        package="attrs",
        releases=(
            Release(
                "25.4.0",
                "16d5969b87f0859ef33a48b35d55ac1be6e42ae49d5e853b597db70c35c57e11",
                "a3e44bc6da2af39d70954d0af257ff864b61c1c9",
            ),
        ),
        languages=("python",),
        note="quality: src, tests, docs and .pyi stubs; attr/attrs namespaces, old and new APIs",
    ),
    Corpus(
        name="go-cmp",
        registry="deb",
        package="golang-github-google-go-cmp-dev",
        releases=(
            Release(
                "0.5.9",
                "b68bd919daa7c1bdf02abfb68894e29e532f19b03b68c8615f50626c48f553b6",
                "1789ddf973d84491f60ffc3951f8ad0de110c0a0",
                deb_version="0.5.9-1",
            ),
        ),
        deb_root="usr/share/gocode/src/github.com/google/go-cmp",
        languages=("go",),
        note="quality: Go library with tests; purego/unsafe build-tag twins, golden diffs",
    ),
)
CORPORA_BY_NAME = {c.name: c for c in CORPUS_LIST}


class BuildError(RuntimeError):
    pass


# --------------------------------------------------------------------------- download


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _run(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        output = proc.stdout[-2000:] + proc.stderr[-2000:]
        raise BuildError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{output}")
    return proc.stdout


def _only_new_file(directory: Path, before: set[Path]) -> Path | None:
    new = sorted(set(directory.iterdir()) - before)
    return new[0] if len(new) == 1 else None


def _download_pypi(package: str, version: str, dest: Path) -> Path:
    """An sdist via ``pip download``; for sdists whose metadata pip cannot prepare
    offline (Rust/maturin builds need crates.io), from PyPI's simple index (PEP 691)."""
    with tempfile.TemporaryDirectory(dir=DOWNLOADS) as tmp:
        tmpdir = Path(tmp)
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary",
                ":all:",
                "--dest",
                str(tmpdir),
                f"{package}=={version}",
            ],
            capture_output=True,
            text=True,
        )
        got = _only_new_file(tmpdir, set()) if proc.returncode == 0 else None
        if got is None:
            got = _download_pypi_simple(package, version, tmpdir)
        target = dest / got.name
        shutil.move(str(got), target)
        return target


def _download_pypi_simple(package: str, version: str, tmpdir: Path) -> Path:
    norm = package.lower().replace("_", "-").replace(".", "-")
    req = urllib.request.Request(
        f"https://pypi.org/simple/{norm}/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        index = json.load(resp)
    stems = {f"{n}-{version}" for n in (package, norm, norm.replace("-", "_"), package.lower())}
    for entry in index.get("files", []):
        name = str(entry["filename"])
        if name.endswith(".tar.gz") and name[: -len(".tar.gz")] in stems:
            out = tmpdir / name
            with urllib.request.urlopen(entry["url"], timeout=300) as resp, out.open("wb") as fh:
                shutil.copyfileobj(resp, fh)
            return out
    raise BuildError(f"no sdist for {package}=={version} on PyPI")


def _download_npm(package: str, version: str, dest: Path) -> Path:
    with tempfile.TemporaryDirectory(dir=DOWNLOADS) as tmp:
        tmpdir = Path(tmp)
        _run(["npm", "pack", f"{package}@{version}", "--silent", "--pack-destination", str(tmpdir)])
        got = _only_new_file(tmpdir, set())
        if got is None:
            raise BuildError(f"npm pack {package}@{version} produced no single tarball")
        target = dest / got.name
        shutil.move(str(got), target)
        return target


def _download_deb(package: str, deb_version: str, dest: Path) -> Path:
    with tempfile.TemporaryDirectory(dir=DOWNLOADS) as tmp:
        tmpdir = Path(tmp)
        os.chmod(tmpdir, 0o777)  # apt drops to the _apt user when it can
        spec = f"{package}={deb_version}"
        try:
            try:
                _run(["apt-get", "download", spec], cwd=tmpdir)
            except BuildError:
                if os.geteuid() != 0:
                    raise
                # A fresh machine may not have read the package lists yet.
                _run(["apt-get", "update", "-qq"])
                _run(["apt-get", "download", spec], cwd=tmpdir)
        except BuildError as exc:
            raise BuildError(
                f"{exc}\n(is the version still in the apt lists? try 'apt-get update'; "
                f"'apt-cache policy {package}' shows what is served)"
            ) from None
        got = _only_new_file(tmpdir, set())
        if got is None:
            raise BuildError(f"apt-get download {package}={deb_version} produced no single .deb")
        target = dest / got.name
        shutil.move(str(got), target)
        return target


def fetch(corpus: Corpus, release: Release) -> Path:
    """The verified artifact for a release, from the cache or the registry."""
    cache = DOWNLOADS / corpus.name / release.version
    cache.mkdir(parents=True, exist_ok=True)
    existing = [p for p in cache.iterdir() if p.is_file()]
    for path in existing:
        if _sha256(path) == release.sha256:
            return path
        path.unlink()  # a corrupt or foreign download: fetch again
    if corpus.registry == "pypi":
        path = _download_pypi(corpus.package, release.version, cache)
    elif corpus.registry == "npm":
        path = _download_npm(corpus.package, release.version, cache)
    elif corpus.registry == "deb":
        assert release.deb_version
        path = _download_deb(corpus.package, release.deb_version, cache)
    else:
        raise BuildError(f"unknown registry {corpus.registry!r}")
    digest = _sha256(path)
    if digest != release.sha256:
        raise BuildError(
            f"{corpus.name} {release.version}: {path.name} has sha256 {digest}, "
            f"pinned {release.sha256}"
        )
    return path


# --------------------------------------------------------------------------- unpack


def _safe_rel(name: str, strip: str) -> str | None:
    """The repository-relative path of an archive member, or None to skip it."""
    parts = [x for x in PurePosixPath(name).parts if x not in ("", ".", "/")]
    strip_parts = [x for x in PurePosixPath(strip).parts if x not in ("", ".")] if strip else []
    if parts[: len(strip_parts)] != strip_parts:
        return None
    parts = parts[len(strip_parts) :]
    if not parts or any(x == ".." for x in parts) or parts[0] == ".git":
        return None
    return "/".join(parts)


def _extract_tar(fileobj: io.BufferedIOBase | io.BytesIO, dest: Path, strip: str | None) -> int:
    count = 0
    with tarfile.open(fileobj=fileobj, mode="r:*") as tar:
        members = tar.getmembers()
        if strip is None:  # strip the single top-level directory
            tops = {
                PurePosixPath(m.name.removeprefix("./")).parts[0]
                for m in members
                if m.name not in (".", "./")
            }
            if len(tops) != 1:
                raise BuildError(f"expected one top-level directory, found {sorted(tops)[:5]}")
            strip = tops.pop()
        for m in members:
            if not (m.isfile() or m.islnk()):
                continue  # directories are implied; symlinks and devices are not source
            rel = _safe_rel(m.name, strip)
            if rel is None:
                continue
            out = dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(m)
            assert src is not None
            with out.open("wb") as fh:
                shutil.copyfileobj(src, fh)
            out.chmod(0o755 if m.mode & 0o100 else 0o644)
            count += 1
    return count


def _deb_data_tar(path: Path) -> io.BytesIO:
    """The data.tar.* member of a .deb (an ar archive), without dpkg."""
    data = path.read_bytes()
    if not data.startswith(b"!<arch>\n"):
        raise BuildError(f"{path.name} is not an ar archive")
    pos = 8
    while pos + 60 <= len(data):
        header = data[pos : pos + 60]
        name = header[:16].decode().strip().rstrip("/")
        size = int(header[48:58].decode().strip())
        body = data[pos + 60 : pos + 60 + size]
        if name.startswith("data.tar"):
            return io.BytesIO(body)
        pos += 60 + size + (size % 2)
    raise BuildError(f"{path.name} has no data.tar member")


def unpack(corpus: Corpus, artifact: Path, dest: Path) -> int:
    if corpus.registry == "deb":
        assert corpus.deb_root
        return _extract_tar(_deb_data_tar(artifact), dest, corpus.deb_root)
    with artifact.open("rb") as fh:
        # sdists have "<name>-<version>/", npm tarballs "package/": strip whichever it is
        return _extract_tar(fh, dest, None)


# --------------------------------------------------------------------------- git


def _git_env(when: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME=IDENTITY["name"],
        GIT_AUTHOR_EMAIL=IDENTITY["email"],
        GIT_COMMITTER_NAME=IDENTITY["name"],
        GIT_COMMITTER_EMAIL=IDENTITY["email"],
        GIT_AUTHOR_DATE=when,
        GIT_COMMITTER_DATE=when,
        TZ="UTC",
        LC_ALL="C",
    )
    return env


_GIT_OPTS = [
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.filemode=true",
    "-c",
    "core.symlinks=true",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "init.defaultBranch=main",
]


def git(repo: Path, *args: str, when: str = COMMIT_DATES[0]) -> str:
    return _run(["git", *_GIT_OPTS, "-C", str(repo), *args], env=_git_env(when)).strip()


def _existing_commits(repo: Path) -> list[str]:
    if not (repo / ".git").exists():
        return []
    try:
        out = git(repo, "rev-list", "--first-parent", "--reverse", "HEAD")
    except BuildError:
        return []
    return out.split()


def build(corpus: Corpus, *, force: bool = False, verify: bool = True) -> list[str]:
    """Build (or confirm) a corpus; return its commit SHAs, oldest first."""
    repo = CORPORA / corpus.name
    expected = [r.commit for r in corpus.releases]
    have = _existing_commits(repo)
    if have and have == expected and not force:
        return have
    if repo.exists():
        shutil.rmtree(repo)
    CORPORA.mkdir(parents=True, exist_ok=True)
    tmp_repo = Path(tempfile.mkdtemp(prefix=f".{corpus.name}-", dir=CORPORA))
    try:
        git(tmp_repo, "init", "--quiet")
        shas: list[str] = []
        for i, release in enumerate(corpus.releases):
            artifact = fetch(corpus, release)
            for child in tmp_repo.iterdir():
                if child.name != ".git":
                    shutil.rmtree(
                        child
                    ) if child.is_dir() and not child.is_symlink() else child.unlink()
            unpack(corpus, artifact, tmp_repo)
            when = COMMIT_DATES[i]
            git(tmp_repo, "add", "--all", "--force", ".", when=when)
            message = (
                f"Import {corpus.package} {release.version} from {corpus.registry}\n\n"
                f"artifact: {artifact.name}\nsha256: {release.sha256}\n"
            )
            git(
                tmp_repo,
                "commit",
                "--quiet",
                "--allow-empty",
                "--no-verify",
                "-m",
                message,
                when=when,
            )
            sha = git(tmp_repo, "rev-parse", "HEAD")
            git(tmp_repo, "tag", "--force", f"v{release.version}", sha)
            shas.append(sha)
        git(tmp_repo, "gc", "--quiet")
        tmp_repo.rename(repo)
    except BaseException:
        shutil.rmtree(tmp_repo, ignore_errors=True)
        raise
    if verify and shas != expected:
        pairs = ", ".join(
            f"{r.version}: got {s} pinned {r.commit}"
            for r, s in zip(corpus.releases, shas, strict=True)
        )
        raise BuildError(f"{corpus.name}: commit SHAs differ from the pinned ones ({pairs})")
    return shas


# --------------------------------------------------------------------------- stats

_LANG_BY_EXT = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".cc": "cpp",
    ".rst": "docs",
    ".md": "docs",
    ".txt": "text",
    ".html": "html",
    ".css": "css",
}


def stats(repo: Path, sha: str) -> tuple[int, int, Counter[str]]:
    """(files, text lines, lines per language) of a commit."""
    files = git(repo, "ls-tree", "-r", "--name-only", sha).splitlines()
    per_file = git(repo, "grep", "-I", "-c", "", sha, "--").splitlines()
    lines = 0
    langs: Counter[str] = Counter()
    for row in per_file:
        path, _, count = row.removeprefix(f"{sha}:").rpartition(":")
        n = int(count)
        lines += n
        langs[_LANG_BY_EXT.get(PurePosixPath(path).suffix.lower(), "other")] += n
    return len(files), lines, langs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpora to build (default: all)")
    parser.add_argument("--force", action="store_true", help="rebuild even if already built")
    parser.add_argument("--no-verify", action="store_true", help="do not fail on unpinned SHAs")
    parser.add_argument("--list", action="store_true", help="list the corpora and exit")
    parser.add_argument("--json", action="store_true", help="print one JSON object per corpus")
    args = parser.parse_args(argv)
    if args.list:
        for c in CORPUS_LIST:
            versions = " -> ".join(f"{r.version} ({r.commit[:12]})" for r in c.releases)
            print(f"{c.name:14} {c.registry:5} {c.package:32} {versions}  {c.note}")
        return 0
    unknown = [n for n in args.names if n not in CORPORA_BY_NAME]
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; known: {', '.join(CORPORA_BY_NAME)}")
    selected = [CORPORA_BY_NAME[n] for n in args.names] if args.names else list(CORPUS_LIST)
    failed = 0
    for corpus in selected:
        try:
            shas = build(corpus, force=args.force, verify=not args.no_verify)
        except BuildError as exc:
            print(f"{corpus.name}: FAILED: {exc}", file=sys.stderr)
            failed += 1
            continue
        repo = CORPORA / corpus.name
        for release, sha in zip(corpus.releases, shas, strict=True):
            n_files, n_lines, langs = stats(repo, sha)
            top = ", ".join(f"{k} {v}" for k, v in langs.most_common(5))
            if args.json:
                print(
                    json.dumps(
                        {
                            "name": corpus.name,
                            "package": corpus.package,
                            "version": release.version,
                            "sha": sha,
                            "files": n_files,
                            "lines": n_lines,
                            "linesByLanguage": dict(langs.most_common()),
                            "path": str(repo),
                        },
                        sort_keys=True,
                    )
                )
            else:
                print(
                    f"{corpus.name:14} {release.version:8} {sha}  {n_files:6} files "
                    f"{n_lines:8} lines  ({top})"
                )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
