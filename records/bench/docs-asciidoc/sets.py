"""The git benchmark set's questions against Git's own AsciiDoc sources of the same pages, read two ways.

    python records/bench/docs-asciidoc/sets.py OUT_DIR   # from a checkout's root; then:
    python -m bench docs --sets-dir OUT_DIR --part all

Debian's git-doc ships each page's AsciiDoc source beside its HTML (``git-add.txt`` beside ``git-add.html``). They
are put where ``bench docs`` finds an unpacked package, twice: as ``.adoc`` (read as AsciiDoc) and as ``.txt`` (read
as plain text). A question is kept only where its answers (and evidence) are in the text of its source read both
ways: an option list that Git's page includes from another file (``include::``) is in neither.
"""

import argparse
import copy
import json
import shutil
import sys
from pathlib import Path

REPO = Path.cwd()
sys.path.insert(0, str(REPO))

from bench import docs  # noqa: E402
from bench.docs_fetch import CACHE, corpus, fetch  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("out", type=Path)
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    base = json.loads((REPO / "bench" / "docs_sets" / "git.json").read_text())
    package = base["source"]["packages"][0]
    unpacked = fetch("debian", package["name"], package["version"])
    html = unpacked / package["root"]
    sets, texts = {}, {}
    for name, suffix in (("gitadoc", ".adoc"), ("gittxt", ".txt")):
        dest = CACHE / "packages" / "debian" / f"{name}_1"
        if dest.exists():
            shutil.rmtree(dest)
        (dest / "src").mkdir(parents=True)
        for page in package["include"]:
            shutil.copy(html / page.replace(".html", ".txt"), dest / "src" / page.replace(".html", suffix))
        (dest / ".complete").write_text("made by records/bench/docs-asciidoc/sets.py\n")
        s = copy.deepcopy(base)
        s["set"] = s["generator"] = name
        s["source"] = {"kind": "debian", "packages": [{"name": name, "version": "1", "root": "src",
                                                       "include": [f"*{suffix}"]}]}
        for q in s["questions"]:
            q["id"] = q["id"].replace("git-", name + "-", 1)
            q["file"] = name + "/" + q["file"].split("/", 1)[1].replace(".html", suffix)
        for q in s["off_topic"]:
            q["id"] = q["id"].replace("git-", name + "-", 1)
            q.pop("answered_in", None)
        folder, files = corpus(s)
        sets[name], texts[name] = s, docs.extracted_texts(folder, files)

    def holds(name, q):
        text = docs.norm(texts[name][q["file"]])
        return docs.absent_form(q["answers"], text) is None and (not q.get("evidence") or docs.norm(q["evidence"])
                                                                 in text)
    kept = {q["id"].split("-", 1)[1] for q in sets["gitadoc"]["questions"] if holds("gitadoc", q)} & \
        {q["id"].split("-", 1)[1] for q in sets["gittxt"]["questions"] if holds("gittxt", q)}
    for name, s in sets.items():
        s["questions"] = [q for q in s["questions"] if q["id"].split("-", 1)[1] in kept]
        (args.out / f"{name}.json").write_text(json.dumps(s, indent=1))
    print(f"{len(kept)} of {len(base['questions'])} questions answerable from the sources both ways")


if __name__ == "__main__":
    main()
