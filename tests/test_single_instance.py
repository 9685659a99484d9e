"""One app per library: a second start hands its book to the running window
and quits; a socket left behind by a crashed app does not stop the next."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QDir  # noqa: E402
from PySide6.QtNetwork import QLocalSocket  # noqa: E402

from desktop.app import bring_forward, create_application  # noqa: E402
from desktop.main_window import MainWindow  # noqa: E402
from desktop.single_instance import channel_name, claim_or_hand_over  # noqa: E402
from engine.paths import config_dir  # noqa: E402
from engine.store import Library  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def test_a_second_start_hands_its_book_to_the_running_window(qtbot, chapterhouse_home, fixtures):
    create_application()
    library = Library()
    instance = claim_or_hand_over(library.root, config_dir(), {"open": None})
    assert instance is not None and instance.server.isListening()
    window = MainWindow(library, index_stage=1)
    qtbot.addWidget(window)
    window.show()
    window.start()
    instance.requested.connect(lambda request: bring_forward(window, request))
    try:
        second = subprocess.Popen([sys.executable, "-m", "desktop", str(fixtures / "three-chapters.txt")], cwd=REPO,
                                  env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with qtbot.waitSignal(window.bookOpened, timeout=120000):
            qtbot.waitUntil(lambda: second.poll() is not None, timeout=60000)
        output = second.stdout.read()
        assert second.returncode == 0, output
        assert "already running" in output and "three-chapters.txt was handed to it" in output
        # The running window imported and opened the book; the second start made no window and no copy.
        assert window.book.title == "Three Chapters from Black Beauty"
        assert [summary.title for summary in library.list_books()] == ["Three Chapters from Black Beauty"]
    finally:
        window.close()
        instance.close()


@pytest.mark.skipif(sys.platform == "win32", reason="a named pipe leaves nothing behind")
def test_a_socket_left_by_a_crashed_app_does_not_stop_the_next_start(qtbot, chapterhouse_home, tmp_path):
    create_application()
    root = Library().root
    assert channel_name(root) != channel_name(tmp_path), "apps over other libraries must not meet"
    # What a killed app leaves: the socket file, with nobody listening on it.
    left = Path(QDir.tempPath()) / channel_name(root)
    left.unlink(missing_ok=True)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(left))
    dead.close()
    assert left.exists()

    instance = claim_or_hand_over(root, config_dir(), {"open": None})
    try:
        assert instance is not None and instance.server.isListening()
        assert Path(instance.server.fullServerName()) == left
        # The next start reaches it; a malformed request is dropped and the next one still arrives.
        received = []
        instance.requested.connect(received.append)
        client = QLocalSocket()
        client.connectToServer(channel_name(root))
        assert client.waitForConnected(5000)
        client.write(b'not json\n{"open": null}\n')
        qtbot.waitUntil(lambda: received == [{"open": None}], timeout=5000)
        qtbot.waitUntil(lambda: client.bytesAvailable() >= 6, timeout=5000)
        assert bytes(client.readAll().data()) == b"ok\nok\n"
        client.disconnectFromServer()
    finally:
        instance.close()
