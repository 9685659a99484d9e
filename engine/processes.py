"""Whether another process still runs: staging and building folders carry
their writer's pid, and a sweep removes only those whose writer is gone."""

from __future__ import annotations

import os


def process_alive(pid: int) -> bool:
    """True unless the process is surely gone: in doubt, a folder is kept."""
    if pid <= 0:
        return False
    if os.name != "posix":
        return True  # os.kill(pid, 0) is not a probe on Windows
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: alive, another user's
        return True
    return True
