"""`make run`: ingest a corpus into the embedded store, serve the function, answer a question.

Starts functions-framework on localhost with the shipped artifact (or
``QA_ARTIFACT_DIR``) and the SQLite store through the harness's launcher, as the
tests and benchmarks start it; asks one question over HTTP, prints the `curl`
that asks it, the reply and the address of the page to ask from (``/ui``), and
keeps serving until Ctrl-C (``--once``: stop after the answer).

Without ``--docs`` it serves the sample corpus (``samples/``) from
``QA_SQLITE_PATH`` (default ``.data/passages.sqlite``). With ``--docs FOLDER``
(``make run DOCS=FOLDER``) it serves that folder and nothing else: the folder is
synced (``python -m function.ingest FOLDER --sync``) into a store of its own,
``.data/docs-<hash of the folder's absolute path>-hybrid-<encoder>/``, so a re-run
ingests the documents that changed, removes those no longer there and never
mixes two folders or the sample. Its questions asked alone are searched by
**hybrid retrieval** (``--retrieval hybrid``, the default): the passages'
terms and their sentence embeddings (the shipped encoder, ``encoder/``, or the
one ``QA_INDEX_ENCODER`` names) in a Lance table beside the store, BM25 and
cosine mixed, which answered documentation questions better than BM25 alone
(docs/retrieval.md, "Documentation"); ``--retrieval bm25``: the store's own
FTS5 index alone, in a store of its own (``docs-<hash>``). A folder that is
missing, holds no supported file or no readable document stops it with one
line that names the folder (exit status 1).

    python -m scripts.serve_local [--port 8080] [--once]                   (from the repository root)
    python -m scripts.serve_local --docs ~/my-docs [--question "How do I install it?"] [--retrieval bm25]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import signal
import sys
from pathlib import Path

from harness.client import checked, post
from harness.launch import FunctionServer, ingest
from harness.paths import ARTIFACT, ENCODER, REPO, SAMPLE, SQLITE

QUESTION = {"question": "In what country is Normandy located?", "passage_ids": ["Normans-0000", "Normans-0001"]}
DOCS_QUESTION = "How do I install it?"
DATA = REPO / ".data"  # where each folder's store is made
RETRIEVAL = ("hybrid", "bm25")  # --retrieval: the first is make run DOCS=...'s


class DocsError(Exception):
    """A ``--docs`` folder that cannot be served (the message names it)."""


def _exit_on(signum: int, frame) -> None:
    raise SystemExit(128 + signum)  # so that the server is stopped on the way out


def settings(environ=os.environ) -> dict[str, str]:
    """The function's artifact and store, set explicitly: the caller's ``QA_ARTIFACT_DIR`` and
    ``QA_SQLITE_PATH`` when given (made absolute), else the shipped artifact and ``.data/``; the page on."""
    return {"QA_STORE": "sqlite", "QA_UI": "1",
            "QA_ARTIFACT_DIR": str(Path(environ.get("QA_ARTIFACT_DIR") or ARTIFACT).resolve()),
            "QA_SQLITE_PATH": str(Path(environ.get("QA_SQLITE_PATH") or SQLITE).resolve())}


def encoder_folder(environ=os.environ) -> Path:
    """The sentence encoder of hybrid retrieval: the caller's ``QA_INDEX_ENCODER``, else the shipped one."""
    return Path(environ.get("QA_INDEX_ENCODER") or ENCODER).expanduser().resolve()


def docs_store(folder: Path, data: Path = DATA, encoder: Path | None = None) -> Path:
    """The SQLite file of one folder's store: named by its absolute path, so each folder has its own, and by
    the sentence encoder whose vectors its Lance index holds (``encoder``; None: no index, BM25 alone), so
    that a store and its index are made together and vectors of one encoder are never searched by another."""
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
    if encoder is not None:
        from function.retrieval.encoder import SentenceEncoder

        try:
            digest += f"-hybrid-{SentenceEncoder(encoder).fingerprint[:8]}"
        except FileNotFoundError as e:
            raise DocsError(f"{e}; or serve BM25 alone: make run DOCS=... RETRIEVAL=bm25") from None
    return data.resolve() / f"docs-{digest}" / "passages.sqlite"


def docs_settings(folder: Path, data: Path = DATA, environ=os.environ,
                  retrieval: str = RETRIEVAL[0]) -> dict[str, str | None]:
    """``settings`` with the folder's own store and no shared retrieval index (it would hold other corpora);
    ``hybrid``: a Lance index of the folder's own beside its store, with the encoder's vectors."""
    if retrieval == "bm25":
        return {**settings(environ), "QA_SQLITE_PATH": str(docs_store(folder, data)),
                "QA_INDEX_URI": None, "QA_INDEX_ENCODER": None}
    encoder = encoder_folder(environ)
    store = docs_store(folder, data, encoder)
    return {**settings(environ), "QA_SQLITE_PATH": str(store),
            "QA_INDEX_URI": str(store.parent / "index.lance"), "QA_INDEX_ENCODER": str(encoder)}


def sync_docs(given: str, env: dict) -> tuple[Path, str]:
    """Sync the folder into its store; (the folder, ingestion's summary line). ``DocsError`` when there is
    nothing to serve; files that fail beside readable ones are reported on stderr and the rest is served."""
    folder = Path(given).expanduser()
    if not folder.exists():
        raise DocsError(f"DOCS={given}: no such folder ({folder.resolve()})")
    if not folder.is_dir():
        raise DocsError(f"DOCS={given}: not a folder")
    folder = folder.resolve()
    Path(env["QA_SQLITE_PATH"]).parent.mkdir(parents=True, exist_ok=True)
    done = ingest(env, str(folder), "--sync", "--quiet")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    failed = [line.removeprefix("failed ") for line in lines if line.startswith("failed ")]
    fatal = [line for line in lines if line.startswith(("nothing to ingest", "nothing ingested"))]
    if fatal:
        why = fatal[-1].split(" (supported:")[0]
        raise DocsError(f"DOCS={given}: {why}" + (f"; first: {failed[0]}" if failed else ""))
    if done.returncode != 0 and not failed:  # not a file's fault: the artifact, the store
        raise DocsError(f"DOCS={given}: ingestion failed: {lines[-1] if lines else f'exit {done.returncode}'}")
    for line in failed:
        print(f"left out {line}", file=sys.stderr)
    summary = next((line for line in reversed(lines) if line.startswith("ingest: ")), "")
    return folder, summary


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m scripts.serve_local", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--once", action="store_true", help="stop the server after answering")
    p.add_argument("--docs", metavar="FOLDER", help="serve this folder's documents (alone) instead of the sample")
    p.add_argument("--question", default=DOCS_QUESTION, help="with --docs: the question asked alone at start")
    p.add_argument("--data", type=Path, default=DATA, help="with --docs: where the folder's store is made")
    p.add_argument("--retrieval", choices=RETRIEVAL, default=RETRIEVAL[0],
                   help="with --docs: hybrid (BM25 and sentence embeddings mixed, a Lance index beside the store) "
                        "or bm25 (the store's own index alone)")
    args = p.parse_args(argv)

    for sig in (signal.SIGTERM, signal.SIGHUP):  # kill, or the terminal closed
        signal.signal(sig, _exit_on)
    if args.docs is None:
        env = settings()
        ingest(env, str(SAMPLE), "--quiet", check=True)
        question = QUESTION
    else:
        try:
            env = docs_settings(Path(args.docs).expanduser(), args.data, retrieval=args.retrieval)
            folder, summary = sync_docs(args.docs, env)
        except DocsError as e:
            print(f"make run: {e}", file=sys.stderr)
            return 1
        print(f"{folder}: {summary.removeprefix('ingest: ')}", flush=True)
        question = {"question": args.question}
    server = FunctionServer(env, port=args.port, echo=True)  # its log lines on this terminal
    try:
        server.start()
        server.health()
        curl = (f"curl -s -X POST {server.url} -H 'Content-Type: application/json' "
                f"-d {shlex.quote(json.dumps(question))}")
        reply = checked(post(server.url, question, timeout_s=60))
        print("\nAsk it yourself:\n  " + curl + "\n", flush=True)
        print(json.dumps(reply.body, indent=2, ensure_ascii=False), flush=True)
        print(f"\nOr ask from the page: {server.url}ui", flush=True)
        if (reply.body.get("no_answer") or {}).get("abstained"):
            missing = ", ".join(repr(name) for name in reply.body["no_answer"].get("missing_names", []))
            print(f"\nNo answer: the model found none it trusts for {question['question']!r} in what it read "
                  f"(no-answer probability {reply.body['no_answer']['probability']:.2f}; the passages it read are "
                  "under \"retrieved\"" + (f"; the documents read do not mention {missing}" if missing else "")
                  + "). Ask naming what you are after, e.g. the project or the option, with the curl or the page "
                  "above" + (", spelt as the documents spell it" if missing else "") + ".", flush=True)
        if args.once:
            return 0
        print(f"\nServing on {server.url} (GET / for health). Ctrl-C stops it.", flush=True)
        return server.proc.wait() or 0
    except KeyboardInterrupt:
        return 0
    except RuntimeError as e:
        raise SystemExit(str(e)) from None
    finally:
        server.close()


if __name__ == "__main__":
    raise SystemExit(main())
