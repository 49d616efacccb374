"""``python -m function.evaluate --url URL``: the questions asked over HTTP of a function already running.

The standard library's ``urllib.request``: the evaluation runs with the serving and ingestion requirements
alone, and neither names an HTTP client of its own. A fresh connection per request (urllib keeps none): the
round trip, timed from before the request to after the reply's read, holds its set-up, as a client without
keep-alive would see it.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

# Loads a lazily loading server's model before the first question (no retrieval, no question's cache entry).
WARM_UP = {"question": "What is this?", "context": "This is a request that loads the model."}


class RemoteError(Exception):
    """The URL cannot be reached, or it answered something that is not the function's reply."""


@dataclass
class Reply:
    status: int
    body: dict | None  # None: the reply was not a JSON object
    raw: bytes
    ms: float  # the client's round trip

    def error(self) -> str:
        """The function's error message, else the start of what it sent."""
        error = (self.body or {}).get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        text = " ".join(self.raw[:200].decode("utf-8", "replace").split())
        return f"not JSON: {text!r}" if self.body is None else text


def check_url(url: str) -> str | None:
    """Why ``url`` cannot be asked, or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"--url {url}: expected http://HOST[:PORT]/ or https://..., the address the function answers POST on"
    return None


class Remote:
    """A running function at ``url`` (``POST`` to ask, ``GET`` for its health)."""

    def __init__(self, url: str, timeout_s: float = 120.0):
        self.url = url
        self.timeout_s = timeout_s

    def call(self, method: str, payload: dict | None = None) -> Reply:
        """One request; any HTTP status is a reply, a connection that fails is a ``RemoteError``."""
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(self.url, data=data, method=method, headers={
            "Accept": "application/json", **({} if data is None else {"Content-Type": "application/json"})})
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as e:  # a 4xx or 5xx: a reply all the same
            status, raw = e.code, e.read()
        except urllib.error.URLError as e:
            raise RemoteError(f"cannot reach it: {e.reason}") from None
        except (OSError, http.client.HTTPException) as e:  # timed out, reset, a reply that is not HTTP
            raise RemoteError(f"cannot reach it: {type(e).__name__}: {e}") from None
        ms = (time.perf_counter() - started) * 1000
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        return Reply(status, body if isinstance(body, dict) else None, raw, ms)

    def health(self) -> dict:
        """``GET`` of the URL: the function's health (its model, store and answer cache)."""
        reply = self.call("GET")
        if reply.status != 200 or reply.body is None or not isinstance(reply.body.get("model"), dict):
            raise RemoteError(f"GET answered HTTP {reply.status}, not the function's health: {reply.error()} "
                              "(--url is the address the function answers POST / on)")
        return reply.body

    def warm_up(self) -> None:
        """One request with a context, so that no question's server time holds the model's load."""
        reply = self.call("POST", WARM_UP)
        if reply.status != 200:
            raise RemoteError(f"a request with a context (to load the model) answered HTTP {reply.status}: "
                              f"{reply.error()}")


def describe_store(store: dict) -> str:
    """The store a function's health names, in a few words."""
    if store.get("kind") == "sqlite":
        return f"sqlite:{store.get('path')}"
    if store.get("kind") == "firestore":
        return f"firestore:{store.get('project')}/{store.get('database')}/{store.get('collection')}"
    return json.dumps(store)
