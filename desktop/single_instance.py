"""One app per library. A second start (the icon clicked again, "Open with
Chapterhouse" on a book file) hands its book to the window already running
and quits, instead of opening a second window over the same books, where
the two would fight over each book being indexed (a build is locked to one
process) and over the window's saved state."""

from __future__ import annotations

import getpass
import hashlib
import json
import logging
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)

_TIMEOUT_MS = 2000
_ACK = b"ok\n"
_MAX_REQUEST = 64 * 1024


def channel_name(library_root: Path) -> str:
    """The local socket's name: one per user and library, so that apps over
    different libraries (CHAPTERHOUSE_HOME) do not see each other."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no user name in this environment: the library's path still separates
        user = ""
    key = f"{user}\0{Path(library_root).resolve()}"
    return "chapterhouse-" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def hand_over(name: str, request: dict, timeout_ms: int = _TIMEOUT_MS) -> bool:
    """Send the request to the app listening on `name`; False when none is."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(timeout_ms):
        return False
    socket.write(json.dumps(request).encode("utf-8") + b"\n")
    socket.waitForBytesWritten(timeout_ms)
    # A live server took the connection: that app runs, whether or not it
    # acknowledges in time, so this start must not open a second window.
    if not socket.waitForReadyRead(timeout_ms):
        log.warning("the running Chapterhouse did not acknowledge the request")
    socket.disconnectFromServer()
    return True


class InstanceServer(QObject):
    """Listens for later starts; each request arrives as a dict."""

    requested = Signal(dict)

    def __init__(self, name: str, parent: QObject | None = None):
        super().__init__(parent)
        self.name = name
        self.server = QLocalServer(self)
        self.server.newConnection.connect(self._accept)

    def listen(self) -> bool:
        if self.server.listen(self.name):
            return True
        # Nobody answered on the name (hand_over failed first), so the socket
        # was left by an app that crashed: take it over.
        QLocalServer.removeServer(self.name)
        if self.server.listen(self.name):
            return True
        log.warning("cannot listen for other starts of Chapterhouse: %s", self.server.errorString())
        return False

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        # Each connection is a child of the server, deleted when it closes:
        # no Python reference outlives it.
        while (socket := self.server.nextPendingConnection()) is not None:
            socket.readyRead.connect(self._read)
            socket.disconnected.connect(socket.deleteLater)

    @Slot()
    def _read(self) -> None:
        socket = self.sender()
        if not isinstance(socket, QLocalSocket):
            return
        while socket.canReadLine():
            line = bytes(socket.readLine().data()).strip()
            socket.write(_ACK)
            socket.flush()
            try:
                request = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                log.warning("ignored a malformed request from another start: %r", line[:80])
                continue
            if isinstance(request, dict):
                self.requested.emit(request)
        if socket.bytesAvailable() > _MAX_REQUEST:
            socket.abort()  # a line this long is no start of this app


def claim_or_hand_over(library_root: Path, lock_dir: Path, request: dict) -> InstanceServer | None:
    """This start's server when no app runs over the library yet; None when
    one does and took the request. A lock file makes the check and the
    listening one step, so two starts at once do not both become the app."""
    lock_dir.mkdir(parents=True, exist_ok=True)
    lock = QLockFile(str(lock_dir / "instance.lock"))
    locked = lock.tryLock(_TIMEOUT_MS)  # a lock held longer than that: go on unguarded rather than not start
    try:
        name = channel_name(library_root)
        if hand_over(name, request):
            return None
        server = InstanceServer(name)
        server.listen()
        return server
    finally:
        if locked:
            lock.unlock()
