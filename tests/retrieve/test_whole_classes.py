"""A class short enough to stay one chunk holds its methods' bodies: a prose question
whose words name one of them is answered by that chunk, which the type penalty
("shape", for chunks that only name the nouns) must not push below method chunks."""

from __future__ import annotations

from pathlib import Path

from codegold.index.store import LoadedIndex
from codegold.retrieve.hybrid import HybridRetriever
from tests.retrieve._index import index_files

# shaped like guzzle/psr7 2.6.2 src/Query.php: one final class of two static methods,
# 113 lines, kept as one chunk
QUERY_PHP = """<?php

namespace GuzzleHttp\\Psr7;

final class Query
{
    /**
     * Parse a query string into an associative array.
     *
     * If multiple values are found for the same key, the value of that key
     * value pair will become an array.
     */
    public static function parse(string $str, $urlEncoding = true): array
    {
        $result = [];
        if ($str === '') {
            return $result;
        }
        if ($urlEncoding === true) {
            $decoder = function ($value) {
                return rawurldecode(str_replace('+', ' ', (string) $value));
            };
        } else {
            $decoder = 'urldecode';
        }
        foreach (explode('&', $str) as $kvp) {
            $parts = explode('=', $kvp, 2);
            $key = $decoder($parts[0]);
            $value = isset($parts[1]) ? $decoder($parts[1]) : null;
            if (!array_key_exists($key, $result)) {
                $result[$key] = $value;
            } else {
                if (!is_array($result[$key])) {
                    $result[$key] = [$result[$key]];
                }
                $result[$key][] = $value;
            }
        }
        return $result;
    }

    /**
     * Build a query string from an array of key value pairs.
     */
    public static function build(array $params, $encoding = PHP_QUERY_RFC3986): string
    {
        $qs = '';
        foreach ($params as $k => $v) {
            $qs .= $k . '=' . $v . '&';
        }
        return $qs ? substr($qs, 0, -1) : '';
    }
}
"""

# an exception class: a constructor is all it holds, like a plain type
QUERY_ERROR_PHP = """<?php

namespace GuzzleHttp\\Psr7;

final class MalformedQueryString extends \\InvalidArgumentException
{
    public function __construct(string $query, string $key)
    {
        parent::__construct("query string {$query} repeats key {$key}");
    }
}
"""


def _uri_php() -> str:
    """A class too long to stay one chunk (like psr7's 743-line Uri.php): its methods
    are chunks of their own, and its head holds only the fields."""
    methods = "\n".join(
        f"""    /** Replace query value {i} in the query string of the URI. */
    public static function withQueryValue{i}(Uri $uri, string $key, $value): Uri
    {{
        $result = self::getFilteredQueryString($uri, [$key]);
        $result[] = self::generateQueryString($key, $value);
        return $uri->withQuery(implode('&', $result));
    }}
"""
        for i in range(20)
    )
    return (
        "<?php\n\nnamespace GuzzleHttp\\Psr7;\n\nclass Uri\n{\n"
        "    private string $query = '';\n    private string $fragment = '';\n\n" + methods + "}\n"
    )


def _chunk(index: LoadedIndex, file: str) -> int:
    (row,) = [r for r in index.rows_by_file[file] if index.chunks[r].kind == "class"]
    return row


def test_a_whole_class_whose_method_the_question_names_is_not_a_mere_type(
    tmp_path: Path,
) -> None:
    index = index_files(
        tmp_path,
        {"src/Query.php": QUERY_PHP, "src/MalformedQueryString.php": QUERY_ERROR_PHP},
    )
    query = index.chunks[_chunk(index, "src/Query.php")]
    assert "Query.parse" in query.symbols  # one chunk: it matches a Query.parse label
    result = HybridRetriever(index).search(
        "parsing a query string like a=1&a=2&b turns the repeated key into an array; "
        "how are + and percent-escapes decoded?"
    )
    row = _chunk(index, "src/Query.php")
    assert result.ranked[0][0] == row
    assert "shape" not in result.explanations[row].factors
    # the exception class holds a constructor only: it stays a type
    error = _chunk(index, "src/MalformedQueryString.php")
    assert result.explanations[error].factors["shape"] < 1.0


def test_a_whole_class_stays_a_type_when_no_method_of_it_is_named(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"src/Query.php": QUERY_PHP, "src/Uri.php": _uri_php()})
    row = _chunk(index, "src/Query.php")
    # "query" is half of Query.parse's name, and nothing names Query.build
    result = HybridRetriever(index).search("which values does the query hold in a URI?")
    assert result.explanations[row].factors["shape"] < 1.0
    # a split class's head holds none of its methods' bodies: a type
    named = HybridRetriever(index).search("how is a query value replaced in the query string?")
    head = [
        r
        for r in index.rows_by_file["src/Uri.php"]
        if index.chunks[r].kind == "class" and r in named.explanations
    ]
    assert head
    assert all(named.explanations[r].factors["shape"] < 1.0 for r in head)


def test_a_chunks_file_rows_are_found_beside_it_as_the_full_map_has_them(
    tmp_path: Path,
) -> None:
    # the rule reads a class's file without building rows_by_file (every chunk's head):
    # a build keeps a file's chunks side by side, counted by the inventory
    index = index_files(
        tmp_path,
        {
            "src/Query.php": QUERY_PHP,
            "src/MalformedQueryString.php": QUERY_ERROR_PHP,
            "src/Uri.php": _uri_php(),
        },
    )
    retriever = HybridRetriever(index)
    found = {row: retriever._file_rows(row) for row in range(len(index.chunks))}
    assert "rows_by_file" not in vars(index)  # the full map was never built
    assert len(index.rows_by_file["src/Uri.php"]) > 2  # a split class: several chunks
    for file, rows in index.rows_by_file.items():
        assert index.inventory_by_path[file].chunks == len(rows)
        for row in rows:
            assert found[row] == rows
