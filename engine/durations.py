"""How long something will take, said the same way in the CLI and the app."""

from __future__ import annotations


def duration_text(seconds: float) -> str:
    """'45 s', '3 min 05 s', '2 h 07 min'."""
    seconds = max(0, int(round(seconds)))
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
    if seconds >= 60:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds} s"
