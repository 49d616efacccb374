"""The Firestore emulator helper is not fooled by another server on the port it chose.

The port is chosen free, then Java binds it seconds later; whatever takes it in between
must not pass for the emulator (a CI run once read every rules check as HTTP 400 that way).
"""

from __future__ import annotations

import shutil
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harness.firestore import FirestoreEmulator


class _Refuses(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(400)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.mark.firestore
def test_a_taken_port_is_not_taken_for_the_emulator(tmp_path):
    if shutil.which("gcloud") is None:
        pytest.skip("gcloud (with the Firestore emulator) is not installed")
    squatter = ThreadingHTTPServer(("127.0.0.1", 0), _Refuses)
    threading.Thread(target=squatter.serve_forever, daemon=True).start()
    emulator = FirestoreEmulator(tmp_path / "emulator.log")
    emulator.port = squatter.server_port  # as if it were taken after free_port() chose it
    try:
        emulator.start(timeout_s=60)
        assert emulator.port != squatter.server_port
        with urllib.request.urlopen(f"http://{emulator.host}/", timeout=5) as r:
            assert r.read().strip() == b"Ok"
        assert "Address already in use" in (tmp_path / "emulator.log").read_text(errors="replace")
    finally:
        emulator.stop()
        squatter.shutdown()
