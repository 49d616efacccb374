"""The question page's screenshot in the docs (docs/ui.png): the shipped model, `make run`'s sample corpus.

Serves the shipped artifact (or ``QA_ARTIFACT_DIR``) with the page on, the
sample corpus ingested into a temporary store, asks one question alone from the
page in headless Chromium (``harness.browser``) and saves what the browser
shows.

    python -m scripts.ui_screenshot [--out docs/ui.png]     (from the repository root)
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from harness.browser import ask, chromium
from harness.launch import FunctionServer, ingest
from harness.paths import SAMPLE
from scripts.serve_local import settings

QUESTION = "What region of France did the Normans give their name to?"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m scripts.ui_screenshot", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("docs/ui.png"))
    p.add_argument("--question", default=QUESTION)
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        env = {**settings(), "QA_SQLITE_PATH": str(Path(tmp) / "passages.sqlite")}
        ingest(env, str(SAMPLE), "--quiet", check=True)
        with FunctionServer(env) as server, chromium(width=820, height=1300) as driver:
            server.health()
            ask(driver, server.url + "ui", args.question, fields={"top_k": 2, "top_k_passages": 3})
            args.out.write_bytes(driver.get_screenshot_as_png())
    print(f"{args.out}: {args.out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
