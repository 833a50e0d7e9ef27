"""A query of a few bare names, one code-looking ("LineUtil simplify": the module and
the function it exports, as Leaflet's docs write L.LineUtil.simplify), looks up the
plain name too: the function named answers before longer names that contain it."""

from __future__ import annotations

from pathlib import Path

from codegold.retrieve.hybrid import HybridRetriever
from tests.retrieve._index import index_files

# in the shape of Leaflet v2's src/geometry/LineUtil.js and src/layer/vector/Polyline.js
LINE_UTIL = """import {Point} from './Point.js';

// Reduces the number of points in a polyline, for faster rendering.
export function simplify(points, tolerance) {
\tif (!tolerance || !points.length) {
\t\treturn points.slice();
\t}
\tconst sqTolerance = tolerance * tolerance;
\tpoints = _reducePoints(points, sqTolerance);
\treturn _simplifyDP(points, sqTolerance);
}

// Douglas-Peucker simplification of the points, the second simplify stage
export function _simplifyDP(points, sqTolerance) {
\tconst len = points.length;
\tconst markers = new Uint8Array(len);
\tmarkers[0] = markers[len - 1] = 1;
\t_simplifyDPStep(points, markers, sqTolerance, 0, len - 1);
\treturn points.filter((p, i) => markers[i]);
}

export function _simplifyDPStep(points, markers, sqTolerance, first, last) {
\t// simplify recursively between the first and last point
\tlet maxSqDist = 0;
\tlet index = first;
\treturn index + maxSqDist + first + last;
}

function _reducePoints(points, sqTolerance) {
\treturn points.filter((p) => p.distanceTo(points[0]) > sqTolerance);
}
"""

POLYLINE = """import * as LineUtil from '../../geometry/LineUtil.js';

export class Polyline {
\t// simplify each ring of projected points by the smooth factor
\t_simplifyPoints() {
\t\tconst tolerance = this.options.smoothFactor;
\t\tfor (let i = 0; i < this._parts.length; i++) {
\t\t\tthis._parts[i] = LineUtil.simplify(this._parts[i], tolerance);
\t\t}
\t}
}
"""

SPEC = """import * as LineUtil from '../../../src/geometry/LineUtil.js';

describe('LineUtil', () => {
\tit('simplifies polylines', () => {
\t\texpect(LineUtil.simplify([], 1)).to.eql([]);
\t});
});
"""


def test_a_module_and_a_bare_function_name(tmp_path: Path) -> None:
    index = index_files(
        tmp_path,
        {
            "src/geometry/LineUtil.js": LINE_UTIL,
            "src/layer/vector/Polyline.js": POLYLINE,
            "spec/suites/geometry/LineUtilSpec.js": SPEC,
        },
    )
    ranked = HybridRetriever(index).search("LineUtil simplify").ranked
    first = index.chunks[ranked[0][0]]
    assert (first.file, first.symbol) == ("src/geometry/LineUtil.js", "simplify")


def test_prose_keeps_its_words_out_of_the_lookup(tmp_path: Path) -> None:
    from codegold.retrieve.hybrid import _bare_names
    from codegold.retrieve.query import analyze

    assert _bare_names(analyze("LineUtil simplify"))
    assert not _bare_names(analyze("where is SkipIfStillRunning implemented?"))
    assert not _bare_names(analyze("LineUtil"))
    assert not _bare_names(analyze("how does LineUtil simplify points"))
