"""Reading ZIP archives (plain ZIPs and EPUBs) without trusting them: no member
path may climb out ("../") or be absolute, and no member may expand past the
book size limit or by a ratio no real book reaches (a ZIP bomb)."""

from __future__ import annotations

import io
import posixpath
import zipfile

MAX_BOOK_BYTES = 50 * 1024 * 1024
# All members together, images included, once expanded.
MAX_ARCHIVE_EXPANDED_BYTES = 200 * 1024 * 1024
# Text compresses about 3:1 and images not at all; 100:1 on a large member is a bomb.
MAX_COMPRESSION_RATIO = 100
_RATIO_CHECK_FLOOR = 1024 * 1024


class UnsafeArchive(ValueError):
    pass


def open_zip(data: bytes) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
        raise UnsafeArchive(f"corrupt ZIP archive ({error})") from None
    check_archive(archive)
    return archive


def check_archive(archive: zipfile.ZipFile) -> None:
    total = 0
    for info in archive.infolist():
        name = info.filename
        parts = name.replace("\\", "/").split("/")
        if name.startswith(("/", "\\")) or ".." in parts or (len(name) > 1 and name[1] == ":"):
            raise UnsafeArchive(f"unsafe path in archive: {name!r}")
        if info.file_size > MAX_BOOK_BYTES:
            raise UnsafeArchive(f"archive member {name!r} expands to {info.file_size // (1024 * 1024)} MB, over the 50 MB limit")
        if info.file_size > _RATIO_CHECK_FLOOR and info.file_size > max(1, info.compress_size) * MAX_COMPRESSION_RATIO:
            raise UnsafeArchive(f"archive member {name!r} expands {info.file_size // max(1, info.compress_size)}:1 (a ZIP bomb)")
        total += info.file_size
    if total > MAX_ARCHIVE_EXPANDED_BYTES:
        raise UnsafeArchive(f"archive expands to {total // (1024 * 1024)} MB in all, over the 200 MB limit")


def read_member(archive: zipfile.ZipFile, name: str, limit: int = MAX_BOOK_BYTES) -> bytes:
    """A member's bytes, stopping at `limit` even if its header lies about its size."""
    try:
        with archive.open(name) as stream:
            data = stream.read(limit + 1)
    except KeyError:
        raise UnsafeArchive(f"archive has no member {name!r}") from None
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as error:
        raise UnsafeArchive(f"corrupt ZIP member {name!r} ({error})") from None
    if len(data) > limit:
        raise UnsafeArchive(f"archive member {name!r} is over the 50 MB limit")
    return data


def member_names(archive: zipfile.ZipFile) -> list[str]:
    return [info.filename for info in archive.infolist() if not info.is_dir()]


def normalize_member(base: str, href: str) -> str:
    """Member path of `href` written relative to the folder `base`."""
    joined = posixpath.normpath(posixpath.join(base, href)) if base else posixpath.normpath(href)
    return joined.lstrip("./") if joined.startswith("./") else joined
