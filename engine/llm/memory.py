"""How much memory is free, to refuse a model that cannot fit before loading it
(a failed load halfway through can take the whole machine into swap)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys


def available_memory_bytes() -> int | None:
    """Memory available to a new process without swapping, or None if unknown."""
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/meminfo", encoding="ascii") as handle:
                for line in handle:
                    if line.startswith("MemAvailable:"):
                        return int(line.split()[1]) * 1024
        elif sys.platform == "darwin":
            page = os.sysconf("SC_PAGE_SIZE")
            output = subprocess.run(["vm_stat"], capture_output=True, text=True, timeout=5).stdout
            free_pages = 0
            for line in output.splitlines():
                if line.startswith(("Pages free", "Pages inactive", "Pages speculative", "Pages purgeable")):
                    free_pages += int(line.split(":")[1].strip().rstrip("."))
            return free_pages * page
        elif os.name == "nt":
            class Status(ctypes.Structure):
                _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong),
                            ("total_phys", ctypes.c_ulonglong), ("avail_phys", ctypes.c_ulonglong),
                            ("total_page", ctypes.c_ulonglong), ("avail_page", ctypes.c_ulonglong),
                            ("total_virtual", ctypes.c_ulonglong), ("avail_virtual", ctypes.c_ulonglong),
                            ("avail_extended", ctypes.c_ulonglong)]
            status = Status()
            status.length = ctypes.sizeof(Status)
            if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
                return int(status.avail_phys)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return None


def format_bytes(count: int) -> str:
    if count >= 1 << 30:
        return f"{count / (1 << 30):.1f} GB"
    return f"{count / (1 << 20):.0f} MB"
