"""C headers: for a question about how the code behaves or is configured, the body of a
function answers before its prototype in the header, unless the question asks for the
header, the declaration or its documentation."""

from __future__ import annotations

from pathlib import Path

from codegold.index.store import LoadedIndex
from codegold.retrieve.hybrid import HybridRetriever
from tests.retrieve._index import index_files

HEADER = """#ifndef POOL_H
#define POOL_H

/**
 * Set the maximum number of idle connections the pool keeps open.
 * The pool refuses a limit below one and a limit above the hard maximum,
 * and returns -1 when it refuses the idle limit.
 */
int pool_set_idle_limit(struct pool *p, int limit);

/** Close every idle connection of the pool. */
void pool_drain(struct pool *p);

#endif
"""

SOURCE = """#include "pool.h"

int pool_set_idle_limit(struct pool *p, int limit) {
    if (limit < 1 || limit > POOL_HARD_MAX) {
        return -1;
    }
    p->idle_limit = limit;
    return 0;
}

void pool_drain(struct pool *p) {
    while (p->idle) {
        close_one(p);
    }
}

static void pool_trim(struct pool *p) {
    /* close idle connections above the idle limit */
    while (p->idle > p->idle_limit) {
        close_one(p);
    }
}
"""


def _order(index: LoadedIndex, query: str) -> list[tuple[str, str | None]]:
    ranked = HybridRetriever(index).search(query).ranked
    return [(index.chunks[r].file, index.chunks[r].symbol) for r, _ in ranked]


def test_the_body_answers_before_the_prototype(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"include/pool.h": HEADER, "src/pool.c": SOURCE})
    order = _order(index, "when does the pool refuse a new idle limit and return -1?")
    body = ("src/pool.c", "pool_set_idle_limit")
    prototype = ("include/pool.h", "pool_set_idle_limit")
    assert order[0] == body
    # the prototype waits for every other chunk (it ranked second before)
    assert order.index(prototype) > order.index(("src/pool.c", "pool_trim"))
    assert order.index(prototype) > order.index(("src/pool.c", "pool_drain"))


def test_a_question_about_the_header_keeps_the_prototype(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"include/pool.h": HEADER, "src/pool.c": SOURCE})
    order = _order(index, "what does the header document about refusing a new idle limit?")
    assert order[0] == ("include/pool.h", "pool_set_idle_limit")
