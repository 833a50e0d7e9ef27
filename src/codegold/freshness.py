"""How far an index is behind its branch: an ingestion delay, never a ranking regression.

``codegold freshness`` reads the manifest of the newest build under an index root,
resolves the branch head in the repository, and counts the commits (and the commit
time) the index has not seen. A scheduled job turns that into an exit code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegold._time import human_duration
from codegold.corpus.git import GitRepo
from codegold.errors import InputError
from codegold.index.manifest import IndexManifest
from codegold.index.store import IndexRoot, read_manifest


@dataclass(frozen=True)
class Freshness:
    """The index's revision against the branch head, in commits and in commit time."""

    index: str
    build_id: str
    built_at: str
    index_revision: str
    branch: str
    head: str
    commits_behind: int
    # commits of the index revision the branch does not have (rebased or other branch)
    commits_ahead: int
    index_committed_at: str
    head_committed_at: str
    seconds_behind: int
    max_behind: int | None

    @property
    def on_branch(self) -> bool:
        return self.commits_ahead == 0

    @property
    def stale(self) -> bool:
        return self.max_behind is not None and self.commits_behind > self.max_behind

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "buildId": self.build_id,
            "builtAt": self.built_at,
            "indexRevision": self.index_revision,
            "branch": self.branch,
            "head": self.head,
            "commitsBehind": self.commits_behind,
            "commitsAhead": self.commits_ahead,
            "onBranch": self.on_branch,
            "indexCommittedAt": self.index_committed_at,
            "headCommittedAt": self.head_committed_at,
            "secondsBehind": self.seconds_behind,
            "maxBehind": self.max_behind,
            "stale": self.stale,
        }


def newest_manifest(index_dir: Path) -> IndexManifest:
    """The complete build under an index root (or a build folder) built last; ties
    broken by revision. Raises InputError when there is none."""
    if (index_dir / "manifest.json").is_file():
        manifest = read_manifest(index_dir)
        if manifest is None or not manifest.complete:
            raise InputError(f"index build {index_dir} is incomplete (no complete manifest)")
        return manifest
    root = IndexRoot(index_dir)
    found: list[IndexManifest] = []
    for revision in root.revisions():
        build_id = root.current_build(revision)
        if build_id is None:
            continue
        manifest = read_manifest(root.build_dir(build_id))
        if manifest is not None and manifest.complete:
            found.append(manifest)
    if not found:
        raise InputError(
            f"no complete codegold index at {index_dir} "
            f"(build one with: codegold index REPO --out {index_dir})"
        )
    return max(found, key=lambda m: (m.built_at, m.repository_revision))


def _iso(git: GitRepo, sha: str) -> str:
    return git.commit_time(sha).isoformat()


def check_freshness(
    index_dir: Path, repo: Path, *, branch: str = "HEAD", max_behind: int | None = None
) -> Freshness:
    """Measure the newest build under ``index_dir`` against ``branch`` of ``repo``."""
    manifest = newest_manifest(index_dir)
    with GitRepo(repo) as git:
        head = git.resolve(branch)
        revision = manifest.repository_revision
        try:
            revision = git.resolve(revision)
        except InputError:
            raise InputError(
                f"index {index_dir} was built from {revision}, which repository "
                f"{str(repo)!r} does not have (wrong repository, or fetch it)"
            ) from None
        behind = git.count_commits(revision, head)
        ahead = git.count_commits(head, revision)
        index_time, head_time = git.commit_time(revision), git.commit_time(head)
    seconds = max(0, int((head_time - index_time).total_seconds())) if behind else 0
    return Freshness(
        index=str(index_dir),
        build_id=manifest.build_id,
        built_at=manifest.built_at,
        index_revision=revision,
        branch=branch,
        head=head,
        commits_behind=behind,
        commits_ahead=ahead,
        index_committed_at=index_time.isoformat(),
        head_committed_at=head_time.isoformat(),
        seconds_behind=seconds,
        max_behind=max_behind,
    )


def describe(f: Freshness) -> list[str]:
    """The lines ``codegold freshness`` prints."""
    lines = [
        f"index {f.index}: build {f.build_id} of {f.index_revision[:12]} "
        f"(committed {f.index_committed_at}, built {f.built_at or 'unknown'})",
        f"branch {f.branch}: head {f.head[:12]} (committed {f.head_committed_at})",
    ]
    if f.commits_behind == 0 and f.on_branch:
        lines.append("fresh: the index is at the branch head")
    else:
        lines.append(
            f"behind: {f.commits_behind} commit{'s' if f.commits_behind != 1 else ''}, "
            f"{human_duration(f.seconds_behind)} of commit time"
        )
    if not f.on_branch:
        lines.append(
            f"note: the index revision has {f.commits_ahead} commit(s) the branch lacks "
            "(built from another branch, or the branch was rewritten)"
        )
    if f.max_behind is not None:
        verdict = "STALE" if f.stale else "ok"
        relation = "exceeds" if f.stale else "within"
        lines.append(f"{verdict}: {f.commits_behind} behind {relation} --max-behind {f.max_behind}")
    return lines
