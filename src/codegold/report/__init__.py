"""Run artifacts: results.json, summary.json, terminal, HTML and JUnit views."""
