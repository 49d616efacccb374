"""The semantic-release benchmark set's questions against its docs/ folder built by three site generators.

    python records/bench/docs-sitegen/sets.py OUT_DIR   # then: python -m bench docs --sets-dir OUT_DIR --part all

Each built site must first be put where `bench docs` finds an unpacked npm package (README.md says how); a question's
file is mapped to the page its Markdown file became. Questions whose answer a site's extraction does not hold are left
out of that site's set (`--drop-absent`, as the "before" run needed for Docusaurus' code blocks).
"""

import argparse
import copy
import json
import sys
from pathlib import Path

REPO = Path.cwd()  # run from a checkout's root: its bench reads the pages (a worktree of the code before, for "before")
sys.path.insert(0, str(REPO))


def material(rel: str) -> str:  # docs/usage/configuration.md -> usage/configuration/index.html (directory URLs)
    page = rel[:-3]
    return (page[:-6] if page.endswith("README") else page + "/") + "index.html"


def vitepress(rel: str) -> str:  # -> usage/configuration.html
    return rel[:-3] + ".html"


def starlight(rel: str) -> str:  # as Material's, lower case (support/FAQ.md -> support/faq/index.html)
    return material(rel).lower()


SITES = {"srmaterial": ("sr-material", material, ["404.html", "assets/*", "search/*", "sitemap*"]),
         "srvitepress": ("sr-vitepress", vitepress, ["404.html", "assets/*"]),
         "srdocusaurus": ("sr-docusaurus", material, ["404.html", "assets/*"]),
         "srstarlight": ("sr-starlight", starlight, ["404.html", "_astro/*", "pagefind/*"]),
         "srmkdocs": ("sr-mkdocs", material, ["404.html", "css/*", "js/*", "img/*", "search/*", "webfonts/*"]),
         "srreadthedocs": ("sr-readthedocs", material, ["404.html", "css/*", "js/*", "img/*", "search/*"])}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("out", type=Path)
    p.add_argument("--drop-absent", action="store_true")
    p.add_argument("--sites", nargs="+", default=list(SITES), help="which builds (default: all)")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    base = json.loads((REPO / "bench" / "docs_sets" / "semantic-release.json").read_text())
    (args.out / "semantic-release.json").write_text(json.dumps(base, indent=1))
    for name in args.sites:
        package, page, exclude = SITES[name]
        s = copy.deepcopy(base)
        s["set"] = s["generator"] = name
        s["source"] = {"kind": "npm", "packages": [{"name": package, "version": "24.2.9", "root": "package/site",
                                                    "include": ["*.html"], "exclude": exclude}]}
        for q in s["questions"]:
            q["id"] = q["id"].replace("semantic-release", name)
            q["file"] = package + "/" + page(q["file"].split("/", 1)[1])
        for q in s["off_topic"]:
            q["id"] = q["id"].replace("semantic-release", name)
            q.pop("answered_in", None)
        if args.drop_absent:
            from bench import docs
            from bench.docs_fetch import corpus
            folder, files = corpus(s)
            texts = docs.extracted_texts(folder, files)
            s["questions"] = [q for q in s["questions"] if docs.absent_form(q["answers"], texts[q["file"]]) is None
                              and (not q.get("evidence") or docs.norm(q["evidence"]) in docs.norm(texts[q["file"]]))]
        (args.out / f"{name}.json").write_text(json.dumps(s, indent=1))


if __name__ == "__main__":
    main()
