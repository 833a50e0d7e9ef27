"""The page as a real browser renders it (headless Chromium), offline.

CI needs the Debian package: apt-get install -y --no-install-recommends chromium
"""

from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

from codegold.evaluate.records import CaseResult
from tests.report.helpers import display_pct, parse_tables

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="headless browser test: /usr/bin/chromium is missing "
    "(apt-get install -y --no-install-recommends chromium)",
)


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        *args,
    ]
    proc = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


@pytest.fixture
def report_file(tmp_path: Path, page: str) -> Path:
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


def test_rendered_dom_holds_the_tables_and_numbers(
    tmp_path: Path, report_file: Path, run_summary: dict[str, Any], run_records: list[CaseResult]
) -> None:
    proc = _chromium(tmp_path, "--dump-dom", report_file.as_uri())
    dom = parse_tables(proc.stdout)
    (row,) = dom.rows("metrics-overall")
    overall = run_summary["overall"]
    assert display_pct(row["passRate"]["text"]) == pytest.approx(overall["passRate"], abs=5e-4)
    assert float(row["mrr"]["text"]) == pytest.approx(overall["mrr"], abs=5e-4)
    assert int(row["cases"]["text"]) == overall["cases"]
    assert int(row["valid"]["text"]) == overall["valid"]
    for name, agg in run_summary["slices"].items():
        kind, _, value = name.partition(":")
        rows = {r["slice"]["data-value"]: r for r in dom.rows(f"metrics-{kind}")}
        assert int(rows[value]["cases"]["text"]) == agg["cases"]
        assert rows[value]["passRate"]["data-value"] == repr(agg["passRate"])
    assert dom.case_ids == sorted(r.case_id for r in run_records if not r.passed)
    assert dom.svg_count >= 3
    assert len(dom.rows("records-table")) == len(run_records)


def test_screenshot_renders(tmp_path: Path, report_file: Path) -> None:
    shot = tmp_path / "report.png"
    _chromium(
        tmp_path,
        "--hide-scrollbars",
        "--window-size=1280,2400",
        f"--screenshot={shot}",
        report_file.as_uri(),
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 2400)
    assert len(data) > 50_000  # a blank page compresses to a few kilobytes


# Annotates every element the first-screen test asks about with its box, as laid out
# in a 1280 x 800 window; --dump-dom then serialises the annotations.
_PROBE = """<script>
window.addEventListener('load', function () {
  ['failures-table', 'identity', 'metrics-overall', 'failed'].forEach(function (id) {
    var el = document.getElementById(id);
    if (!el) { return; }
    var box = el.getBoundingClientRect();
    el.setAttribute('data-top', Math.round(box.top));
    el.setAttribute('data-width', Math.round(box.width));
  });
  document.querySelectorAll('#failures-table tbody tr').forEach(function (tr) {
    tr.setAttribute('data-bottom', Math.round(tr.getBoundingClientRect().bottom));
  });
  document.querySelectorAll('details').forEach(function (d) {
    d.setAttribute('data-shown', String(d.open));
  });
  document.body.setAttribute('data-scroll-width', document.documentElement.scrollWidth);
});
</script>"""


def test_the_first_screen_shows_what_failed_why_and_who_owns_it(
    tmp_path: Path, page: str, run_records: list[CaseResult]
) -> None:
    import re

    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    proc = _chromium(
        tmp_path,
        "--window-size=1280,800",
        "--virtual-time-budget=2000",
        "--dump-dom",
        probed.as_uri(),
    )
    dom = proc.stdout

    def attr(element_id: str, name: str) -> int:
        m = re.search(rf'id="{element_id}"[^>]*{name}="(-?\d+)"', dom) or re.search(
            rf'{name}="(-?\d+)"[^>]*id="{element_id}"', dom
        )
        assert m, f"{element_id} has no {name}"
        return int(m.group(1))

    failed = [r for r in run_records if not r.passed]
    # the failed-case table starts on the first screen, above the metric tables
    assert 0 < attr("failures-table", "data-top") < 400
    assert attr("failures-table", "data-top") < attr("metrics-overall", "data-top")
    bottoms = [int(b) for b in re.findall(r'<tr [^>]*data-bottom="(\d+)"', dom)]
    assert len(bottoms) == len(failed)
    assert all(b <= 800 for b in bottoms), bottoms  # every failed case is on screen
    # its rows say the case, the cause and the owner
    rows = parse_tables(dom).rows("failures-table")
    assert {r["case"]["data-value"] for r in rows} == {r.case_id for r in failed}
    for row, record in zip(rows, sorted(failed, key=lambda r: r.case_id), strict=True):
        assert record.diagnosis is not None
        assert row["cause"]["text"] == record.diagnosis.cause
        assert row["owner"]["text"] == record.diagnosis.owner
    # identity and raw evidence are collapsed; nothing scrolls sideways at 1280 px
    shown = re.findall(r'data-shown="(\w+)"', dom)
    assert shown and set(shown) == {"false"}
    assert attr("identity", "data-top") > attr("failed", "data-top")
    assert int(re.search(r'data-scroll-width="(\d+)"', dom).group(1)) <= 1280  # type: ignore[union-attr]
