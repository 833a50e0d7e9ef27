"""Bring what a team already has: traces (OTLP/JSON, Phoenix), SWE-bench-style issue
datasets, TREC run files. Each importer writes codegold's own formats (attempts JSONL,
suites), so everything after it is the usual eval, gate and report."""
