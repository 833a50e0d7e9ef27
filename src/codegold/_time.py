"""Durations as people read them."""

from __future__ import annotations


def human_duration(seconds: int) -> str:
    """``3d 4h``, ``2h 5m``, ``45s``: two units at most."""
    if seconds < 60:
        return f"{seconds}s"
    units = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
    parts: list[str] = []
    rest = seconds
    for name, size in units:
        if rest >= size:
            parts.append(f"{rest // size}{name}")
            rest %= size
        if len(parts) == 2:
            break
    return " ".join(parts)
