"""Downloading a catalogue model, only when the user asks for it.

Each file is fetched into `<name>.part` next to its destination; an
interrupted download resumes from where it stopped (HTTP Range), the result is
checked against the catalogue's sha256 where one is known, and only then
renamed into place, so a model folder never holds a half-written file.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable

from .catalogue import CatalogueModel, ModelFile
from .errors import ModelError
from .types import CancelToken

_CHUNK = 1 << 20
Progress = Callable[[str, int, int | None], None]  # file name, bytes done, total (if known)


def download_model(model: CatalogueModel, *, progress: Progress | None = None, cancel: CancelToken | None = None,
                   timeout: float = 30.0, folder: Path | None = None) -> Path:
    """Fetch every file of `model` into its folder; returns the folder."""
    if not model.downloadable:
        raise ModelError(model.id, "has no download address (it is installed with Chapterhouse or chosen by hand)")
    folder = folder or model.download_dir()
    folder.mkdir(parents=True, exist_ok=True)
    for item in model.files:
        target = folder / item.name
        if target.is_file() and _matches(target, item):
            continue
        _download_file(item, target, progress, cancel or CancelToken(), timeout)
    return folder


def _download_file(item: ModelFile, target: Path, progress: Progress | None, cancel: CancelToken, timeout: float) -> None:
    partial = target.with_name(target.name + ".part")
    done = partial.stat().st_size if partial.exists() else 0
    request = urllib.request.Request(item.url, headers={"User-Agent": "Chapterhouse"})
    if done:
        request.add_header("Range", f"bytes={done}-")
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        if error.code == 416 and done:  # already complete
            response = None
        else:
            raise ModelError(item.url, f"download failed: server answered {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ModelError(item.url, f"download failed ({reason}); check the network connection and try again, "
                                   "it resumes where it stopped") from None
    if response is not None:
        with response:
            resumed = response.status == 206
            if not resumed:
                done = 0  # the server sent the whole file
            length = response.headers.get("Content-Length")
            total = done + int(length) if length and length.isdigit() else item.size_bytes
            with open(partial, "ab" if resumed else "wb") as handle:
                while True:
                    if cancel.cancelled:
                        raise InterruptedError(f"download of {item.name} cancelled; run it again to resume")
                    try:
                        chunk = response.read(_CHUNK)
                    except (OSError, http.client.HTTPException) as error:
                        raise ModelError(item.url, f"download interrupted ({error}); run it again to resume") from None
                    if not chunk:
                        break
                    handle.write(chunk)
                    done += len(chunk)
                    if progress:
                        progress(item.name, done, total)
                handle.flush()
                os.fsync(handle.fileno())
            if length and length.isdigit() and done < total:
                # The connection ended early: keep what came, for the next try to resume.
                raise ModelError(item.url, f"download interrupted at {done} of {total} bytes; run it again to resume")
    if not _matches(partial, item):
        partial.unlink(missing_ok=True)
        raise ModelError(item.url, f"downloaded {item.name} does not match the catalogue's checksum; "
                                   "it was deleted, try again")
    os.replace(partial, target)


def _matches(path: Path, item: ModelFile) -> bool:
    if item.size_bytes and not item.size_approximate and path.stat().st_size != item.size_bytes:
        return False
    return item.sha256 is None or file_sha256(path) == item.sha256


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()
