"""A Cloud Storage stand-in that counts what Lance asks of it, by billing class: the tests' ``gs://`` bucket.

Lance reaches ``gs://`` through Rust's ``object_store``, which speaks Cloud Storage's XML API.
``CountingBucket`` answers that API on a loopback port from a local folder (ranged reads, HEAD, listings
in pages of 1,000 keys, uploads with ``x-goog-if-generation-match``, multipart uploads, copies, deletes)
and counts every request by kind, by the part of the Lance table it goes to and by ``GCS_CLASS``.
"""

from __future__ import annotations

import email.utils
import hashlib
import http.server
import json
import os
import re
import sys
import threading
import time
import urllib.parse
import uuid
from pathlib import Path
from xml.sax.saxutils import escape

# object_store's requests, by Cloud Storage billing class (XML API): listings, uploads, multipart steps and
# copies are Class A; reads and metadata Class B; deletes are free.
GCS_CLASS = {"list": "A", "put": "A", "put-refused": "A", "copy": "A", "multipart-create": "A",
             "multipart-part": "A", "multipart-complete": "A", "get": "B", "get-missing": "B", "head": "B",
             "delete": "free", "multipart-abort": "free"}
LIST_PAGE = 1000  # Cloud Storage's largest page of a listing
# Where in a Lance table a request goes: manifests, transactions, the indexes, data files, deletion files.
TABLE_PARTS = ("_versions", "_transactions", "_indices", "data", "_deletions", "_refs")


def table_part(key: str) -> str:
    """The part of a Lance table an object key (or a listing's prefix) belongs to."""
    return next((part for part in key.split("/") if part in TABLE_PARTS), "other")


class _Handler(http.server.BaseHTTPRequestHandler):
    """Cloud Storage's XML API on ``server.root``; every request counted by ``server.count``."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # counted, not logged
        pass

    def _parse(self):
        url = urllib.parse.urlsplit(self.path)
        bucket, _, key = url.path.lstrip("/").partition("/")
        return bucket, urllib.parse.unquote(key), urllib.parse.parse_qs(url.query, keep_blank_values=True)

    def _reply(self, code: int, body: bytes = b"", headers: dict | None = None, length: int | None = None):
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _object_headers(self, path: Path) -> dict:
        st = path.stat()
        return {"ETag": f'"{st.st_mtime_ns:x}-{st.st_size:x}"', "x-goog-generation": str(st.st_mtime_ns),
                "Last-Modified": email.utils.formatdate(st.st_mtime, usegmt=True)}

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _list(self, q: dict) -> None:
        root, prefix = self.server.root, q.get("prefix", [""])[0]
        delimiter, after = q.get("delimiter", [""])[0], q.get("start-after", [""])[0]
        token = q.get("continuation-token", [""])[0]
        page = min(int(q.get("max-keys", [LIST_PAGE])[0]), LIST_PAGE)
        entries = {}  # name -> path (an object) or None (a common prefix)
        for path in root.rglob("*"):
            key = path.relative_to(root).as_posix()
            if not path.is_file() or not key.startswith(prefix) or ".part-" in key:
                continue
            rest = key[len(prefix):]
            if delimiter and delimiter in rest:
                entries[prefix + rest.split(delimiter)[0] + delimiter] = None
            else:
                entries[key] = path
        names = [n for n in sorted(entries) if n > max(after, token)]
        shown, more = names[:page], len(names) > page
        self.server.count("list", 0, prefix)
        xml = ["<?xml version='1.0' encoding='UTF-8'?><ListBucketResult>",
               f"<IsTruncated>{'true' if more else 'false'}</IsTruncated>"]
        for name in shown:
            path = entries[name]
            if path is None:
                xml.append(f"<CommonPrefixes><Prefix>{escape(name)}</Prefix></CommonPrefixes>")
                continue
            st = path.stat()
            modified = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(st.st_mtime))
            xml.append(f"<Contents><Key>{escape(name)}</Key><Size>{st.st_size}</Size>"
                       f"<LastModified>{modified}</LastModified><ETag>\"{st.st_mtime_ns:x}\"</ETag></Contents>")
        if more:
            xml.append(f"<NextContinuationToken>{escape(shown[-1])}</NextContinuationToken>")
        xml.append("</ListBucketResult>")
        self._reply(200, "".join(xml).encode(), {"Content-Type": "application/xml"})

    def do_GET(self):
        _, key, q = self._parse()
        if not key:
            return self._list(q)
        path = self.server.root / key
        if not path.is_file():
            self.server.count("get-missing", 0, key)
            return self._reply(404, b"<Error><Code>NoSuchKey</Code></Error>")
        data, headers = path.read_bytes(), self._object_headers(path)
        wanted = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", ""))
        if not wanted:
            self.server.count("get", len(data), key)
            return self._reply(200, data, headers)
        first, last = wanted.groups()
        if first == "":
            first, last = max(0, len(data) - int(last)), len(data) - 1
        else:
            first, last = int(first), min(int(last) if last else len(data) - 1, len(data) - 1)
        body = data[first : last + 1]
        headers["Content-Range"] = f"bytes {first}-{last}/{len(data)}"
        self.server.count("get", len(body), key)
        return self._reply(206, body, headers)

    def do_HEAD(self):
        _, key, _ = self._parse()
        path = self.server.root / key
        self.server.count("head", 0, key)
        if not path.is_file():
            return self._reply(404)
        return self._reply(200, b"", self._object_headers(path), length=path.stat().st_size)

    def do_PUT(self):
        _, key, q = self._parse()
        body, root, path = self._body(), self.server.root, self.server.root / key
        if "uploadId" in q:
            self.server.uploads[q["uploadId"][0]][int(q["partNumber"][0])] = body
            self.server.count("multipart-part", len(body), key)
            return self._reply(200, b"", {"ETag": f'"{hashlib.md5(body).hexdigest()}"'})
        source = self.headers.get("x-goog-copy-source")
        with self.server.lock:
            if self.headers.get("x-goog-if-generation-match") == "0" and path.exists():
                self.server.count("put-refused", 0, key)
                return self._reply(412, b"<Error><Code>PreconditionFailed</Code></Error>")
            if source:
                data = (root / urllib.parse.unquote(source).lstrip("/").partition("/")[2]).read_bytes()
                self.server.count("copy", 0, key)
            else:
                data = body
                self.server.count("put", len(body), key, written=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            scratch = path.with_name(f"{path.name}.part-{uuid.uuid4().hex}")
            scratch.write_bytes(data)
            os.replace(scratch, path)
        return self._reply(200, b"", self._object_headers(path))

    def do_POST(self):
        bucket, key, q = self._parse()
        self._body()
        path = self.server.root / key
        if "uploads" in q:
            upload = uuid.uuid4().hex
            self.server.uploads[upload] = {}
            self.server.count("multipart-create", 0, key)
            return self._reply(200, (f"<InitiateMultipartUploadResult><Bucket>{bucket}</Bucket><Key>"
                                     f"{escape(key)}</Key><UploadId>{upload}</UploadId>"
                                     "</InitiateMultipartUploadResult>").encode())
        if "uploadId" in q:
            parts = self.server.uploads.pop(q["uploadId"][0])
            data = b"".join(parts[n] for n in sorted(parts))
            with self.server.lock:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            self.server.count("multipart-complete", len(data), key, written=True)
            return self._reply(200, (f"<CompleteMultipartUploadResult><Bucket>{bucket}</Bucket><Key>"
                                     f"{escape(key)}</Key><ETag>\"{hashlib.md5(data).hexdigest()}\"</ETag>"
                                     "</CompleteMultipartUploadResult>").encode(), self._object_headers(path))
        return self._reply(400, b"<Error><Code>NotImplemented</Code></Error>")

    def do_DELETE(self):
        _, key, q = self._parse()
        if "uploadId" in q:
            self.server.uploads.pop(q["uploadId"][0], None)
            self.server.count("multipart-abort", 0, key)
            return self._reply(204)
        path = self.server.root / key
        self.server.count("delete", 0, key)
        if path.is_file():
            path.unlink()
            return self._reply(204)
        return self._reply(404)


class CountingBucket:
    """A Cloud Storage stand-in (XML API, one folder per bucket name ignored) that counts what it is asked.

    ``storage_options`` point Lance's ``object_store`` at it: a service-account key whose ``gcs_base_url``
    is this server, with OAuth off. ``take()`` returns the requests since the last call, by kind and class.
    """

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        counter = self
        self._lock = threading.Lock()

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            lock = threading.Lock()
            uploads: dict = {}
            root = self.root

            def count(self, kind: str, size: int, key: str, written: bool = False) -> None:
                counter._count(kind, size, key, written)

            def handle_error(self, request, client_address):
                # A client that drops an idle kept-alive connection: no request was made, nothing to count.
                if not isinstance(sys.exc_info()[1], ConnectionError):
                    super().handle_error(request, client_address)

        self._server = Server(("127.0.0.1", 0), _Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self._reset()

    def _reset(self) -> None:
        self._kinds: dict[str, int] = {}
        self._where: dict[str, int] = {}
        self._read = self._written = 0

    def _count(self, kind: str, size: int, key: str, written: bool) -> None:
        where = f"{kind} {table_part(key)}"
        with self._lock:
            self._kinds[kind] = self._kinds.get(kind, 0) + 1
            self._where[where] = self._where.get(where, 0) + 1
            if written:
                self._written += size
            elif GCS_CLASS[kind] == "B":
                self._read += size

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def storage_options(self) -> dict:
        key = {"gcs_base_url": self.url, "disable_oauth": True, "client_email": "", "private_key": "",
               "private_key_id": ""}
        return {"google_service_account_key": json.dumps(key), "allow_http": "true"}

    def take(self) -> dict:
        """The requests since the last ``take``: by kind, by class (A, B, free), bytes read and written."""
        with self._lock:
            kinds, where = dict(sorted(self._kinds.items())), dict(sorted(self._where.items()))
            read, written = self._read, self._written
            self._reset()
        by_class = {c: sum(n for k, n in kinds.items() if GCS_CLASS[k] == c) for c in ("A", "B", "free")}
        return {"kinds": kinds, "where": where, "class_a": by_class["A"], "class_b": by_class["B"],
                "free": by_class["free"], "bytes_read": read, "bytes_written": written}

    def stored_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file() and ".part-" not in p.name)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
