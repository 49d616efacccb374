"""``python -m bench documents``: whole documents, split by the ingestion code, asked without passage ids.

Every SQuAD article of ``train.json`` and ``dev.json`` (``--data``) is rendered as
one document per format (``--formats``: txt, md, html, pdf), ingested into a fresh
temporary SQLite store through ``function.ingest`` in this process (extraction and
the splitter: passage boundaries are the splitter's, not SQuAD's paragraphs), and
every ``dev.json`` question is asked without passage ids through ``QAService`` as
``python -m bench retrieval`` asks it (top 5 passages, never abstaining). The same
is done for today's corpus, the SQuAD paragraphs of the same two files ingested as
records, in the same run, so the table is side by side.

Rendering: a title heading (the article title), then the paragraphs, with a section
heading "Part k" before every ``SECTION_PARAGRAPHS`` paragraphs (SQuAD articles
have no sections of their own: the headings are invented, evenly, so that the
splitter sees sections the way it would in a real document). Markdown uses ``#`` /
``##`` (paragraph text backslash-escaped where CommonMark would read syntax), HTML
a page with <nav>, <header>, <aside>, <footer> and <script> noise around an
<article> with <h1>/<h2>/<p>, plain text the title and "Part k" as lines of their
own, PDF a reportlab (BSD) document with the title in its metadata and as a
heading, wrapped paragraphs and a running footer with the page number (fonts:
DejaVu Sans where installed, else reportlab's Vera).

Gold rule: a passage "contains a gold answer" if its text contains one of the
question's gold answer strings, both with white space collapsed and NFC-normalised
(the normalisation extraction applies). This is lenient (a short answer such as a
year may occur in an unrelated passage); ``recall@5 (article)`` also asks that the
passage come from the question's own article. ``answer_in_text`` is the share of
questions whose gold answer survives in some passage of their article at all
(what extraction lost).

Figures per corpus: documents, passages, extraction+splitting speed (documents/s
and passages/s, excluding tokenisation and writing, timed apart), passage length
(tokens and characters), recall@5, EM/F1 of the answers with retrieval, and F1 minus
the paragraph corpus's F1 against the target (``TARGET_F1_POINTS``). Each corpus's
figures are cached in ``--out/<name>.json`` once done, so a re-run skips it (same
data, questions and model); ``documents.json`` and ``documents.md`` gather them.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shlex
import sys
import tempfile
import time
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench.in_process import ingest_into, load_squad, open_service, recall, retrieve_all
from harness.paths import REPO, SQUAD, default_artifact

FORMATS = ("txt", "md", "html", "pdf")  # in order of how fast they finish
TOP_K = 5
SECTION_PARAGRAPHS = 4  # a "Part k" heading before every this many paragraphs
TARGET_F1_POINTS = 3.0  # documents' F1 within this many points of the paragraph corpus's
SITE = "Example Wiki"
PDF_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench documents", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=SQUAD,
                   help="folder with train.json and dev.json (SQuAD v1.1 layout)")
    p.add_argument("--formats", default=",".join(FORMATS), help="comma-separated, of " + ", ".join(FORMATS))
    p.add_argument("--artifact", type=Path, default=None, help="model artifact folder (default: artifact/)")
    p.add_argument("--limit", type=int, default=0, help="ask only the first N dev questions (0: all)")
    p.add_argument("--threads", type=int, default=1, help="ONNX Runtime threads (QA_THREADS)")
    p.add_argument("--max-passage-tokens", type=int, default=0,
                   help="split documents into passages of at most this many tokens (0: the model's budget, "
                        "as ingestion does); a diagnostic, for its own --out")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench" / "documents")
    args = p.parse_args(argv)
    args.formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    unknown = sorted(set(args.formats) - set(FORMATS))
    if unknown:
        p.error(f"unknown formats {unknown}: choose from {', '.join(FORMATS)}")
    return args


def log(message: str) -> None:
    print(f"{datetime.now(UTC):%H:%M:%S} [documents] {message}", file=sys.stderr, flush=True)


# -- data ------------------------------------------------------------------


@dataclass
class Article:
    key: str  # SQuAD title (the paragraph records' doc_id)
    title: str  # as displayed: underscores as spaces, as the paragraph records' title
    paragraphs: list[str]

    @property
    def file_stem(self) -> str:
        return re.sub(r"[^\w.,()-]+", "_", self.key)


def load_articles(folder: Path) -> list[Article]:
    articles = []
    for split in ("train", "dev"):
        for a in json.loads((folder / f"{split}.json").read_text(encoding="utf-8"))["data"]:
            articles.append(Article(a["title"], a["title"].replace("_", " "), [p["context"] for p in a["paragraphs"]]))
    return articles


def sections(article: Article) -> list[tuple[str, list[str]]]:
    n = SECTION_PARAGRAPHS
    return [(f"Part {i // n + 1}", article.paragraphs[i:i + n]) for i in range(0, len(article.paragraphs), n)]


def norm(text: str) -> str:
    """The gold rule's normalisation: NFC, white space collapsed."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def contains_answer(text: str, answers: list[str]) -> bool:
    t = norm(text)
    return any(a and a in t for a in (norm(x) for x in answers))


# -- rendering -------------------------------------------------------------


def render_txt(article: Article) -> bytes:
    parts = [article.title]
    for heading, paragraphs in sections(article):
        parts += [heading, *(" ".join(p.split()) for p in paragraphs)]
    return ("\n\n".join(parts) + "\n").encode("utf-8")


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&#|~!])")
_MD_LINE_START = re.compile(r"^(\s*)([-+=>]|\d+[.)])")


def md_escape(text: str) -> str:
    """Paragraph text that CommonMark reads back as the same text (no emphasis, links, lists, entities)."""
    text = _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))
    return _MD_LINE_START.sub(lambda m: m.group(1) + re.sub(r"([-+=>.)])", r"\\\1", m.group(2)), text)


def render_md(article: Article) -> bytes:
    parts = [f"# {md_escape(article.title)}"]
    for heading, paragraphs in sections(article):
        parts += [f"## {heading}", *(md_escape(p) for p in paragraphs)]
    return ("\n\n".join(parts) + "\n").encode("utf-8")


def render_html(article: Article) -> bytes:
    e = html.escape
    body = [f"<h1>{e(article.title)}</h1>"]
    for heading, paragraphs in sections(article):
        body.append(f"<h2>{e(heading)}</h2>")
        body += [f"<p>{e(p)}</p>" for p in paragraphs]
    article_html = "\n".join(body)
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{e(article.title)}</title>
<style>body {{ font-family: sans-serif; }} nav a {{ margin-right: 1em; }}</style>
<script>window.siteConfig = {{"tracking": "nav-analytics-7731", "consent": false}};</script>
</head>
<body>
<header><div class="logo">{SITE}</div><form><input name="q" placeholder="Search {SITE}"></form></header>
<nav><ul><li><a href="/">Main page</a></li><li><a href="/random">Random article</a></li>
<li><a href="/recent">Recent changes</a></li><li><a href="/donate">Donate to {SITE}</a></li></ul></nav>
<main>
<article>
{article_html}
</article>
<aside><h3>Related pages</h3><ul><li><a href="/list">List of articles</a></li>
<li><a href="/help">Help with editing</a></li></ul></aside>
</main>
<footer><p>Content of {SITE} is available under the Creative Commons licence unless otherwise noted.</p>
<p><a href="/privacy">Privacy policy</a> · <a href="/about">About {SITE}</a> · <a href="/terms">Terms of use</a></p>
</footer>
<script>(function() {{ var s = document.createElement("script"); s.src = "/static/tracker-5521.js";
document.body.appendChild(s); }})();</script>
</body>
</html>
"""
    return page.encode("utf-8")


HTML_NOISE = ("nav-analytics-7731", "Random article", "Recent changes", "Creative Commons licence",
              "Privacy policy", "tracker-5521", "Related pages", "Help with editing", f"Search {SITE}")


def pdf_font() -> tuple[str, str]:
    """(font name, its file): DejaVu Sans where installed (wide coverage), else reportlab's own Vera."""
    import reportlab

    for path in PDF_FONTS:
        if os.path.isfile(path):
            return "DejaVuSans", path
    return "Vera", str(Path(reportlab.__file__).parent / "fonts" / "Vera.ttf")


def render_pdf(article: Article, font: tuple[str, str]) -> bytes:
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import cm
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

    name, path = font
    if name not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(name, path))
    body = ParagraphStyle("body", fontName=name, fontSize=10, leading=13, spaceAfter=7)
    h1 = ParagraphStyle("h1", fontName=name, fontSize=20, leading=24, spaceAfter=12)
    h2 = ParagraphStyle("h2", fontName=name, fontSize=14, leading=18, spaceBefore=6, spaceAfter=6)

    def footer(canvas, doc):
        canvas.saveState()
        canvas.setFont(name, 8)
        canvas.drawString(2 * cm, 1.2 * cm, f"{article.title} · {SITE} · page {doc.page}")
        canvas.restoreState()

    def para(text: str, style) -> Paragraph:
        return Paragraph(html.escape(" ".join(text.split()), quote=False), style)

    story = [para(article.title, h1)]
    for heading, paragraphs in sections(article):
        story.append(para(heading, h2))
        story += [para(p, body) for p in paragraphs]
    story.append(Spacer(1, 1))
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=A4, title=article.title, author=SITE, leftMargin=2 * cm,
                            rightMargin=2 * cm, topMargin=2 * cm, bottomMargin=2 * cm)
    doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return buf.getvalue()


def render_all(articles: list[Article], fmt: str, folder: Path) -> tuple[list[tuple[str, Path]], float]:
    """Write one file per article; returns [(document id, path)] and the seconds rendering took."""
    folder.mkdir(parents=True, exist_ok=True)
    font = pdf_font() if fmt == "pdf" else None
    files, started = [], time.perf_counter()
    for a in articles:
        data = render_pdf(a, font) if fmt == "pdf" else {"txt": render_txt, "md": render_md,
                                                          "html": render_html}[fmt](a)
        rel = f"{a.file_stem}.{fmt}"
        (folder / rel).write_bytes(data)
        files.append((rel, folder / rel))
    return files, time.perf_counter() - started


# -- ingestion -------------------------------------------------------------


def summary(values: list[int]) -> dict:
    if not values:
        return {"min": 0, "p50": 0, "p90": 0, "max": 0, "mean": 0.0}
    v = sorted(values)

    def pct(q: float) -> int:
        return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]

    return {"min": v[0], "p50": pct(0.5), "p90": pct(0.9), "max": v[-1], "mean": round(sum(v) / len(v), 1)}


def lengths(tokenizer, texts: list[str]) -> dict:
    return {"tokens": summary([len(e.ids) for e in tokenizer.encode_many(texts)]),
            "chars": summary([len(t) for t in texts])}


def ingest_documents(service, files: list[tuple[str, Path]], root: Path, max_passage_tokens: int = 0) -> dict:
    """Each file through ``documents.from_file`` (extraction + splitting, timed) and ``Ingestion`` (tokenising +
    writing, timed apart); returns the figures and the passage texts by document id."""
    import function.ingest.extract as extract_module
    from function.ingest.documents import Recipe, from_file
    from function.ingest.ingestion import Ingestion
    from function.ingest.json_input import NoPassages
    from function.ingest.progress import Counts
    from function.ingest.sources import InputFile
    from function.ingest.split import budget_from_manifest

    tokenizer = service.rt.model().tokenizer
    max_tokens, overlap = budget_from_manifest(service.rt.manifest())
    if max_passage_tokens:
        max_tokens, overlap = min(max_tokens, max_passage_tokens), min(overlap, max_passage_tokens // 4)
    recipe = Recipe(tokenizer.fingerprint, max_tokens, overlap, service.rt.settings.max_context_chars)
    counts, failures = Counts(), []
    index = service.rt.searcher() if service.rt.settings.index_uri else None  # QA_INDEX_URI: rows there too
    job = Ingestion(service.rt.store(), tokenizer, 256, counts, note=failures.append, index=index,
                    encoder=service.rt.passage_encoder())
    extract_s, split_s, write_s = 0.0, 0.0, 0.0
    texts: dict[str, list[str]] = {}
    original = extract_module.extract

    def timed_extract(*a, **kw):
        nonlocal extract_s
        t0 = time.perf_counter()
        try:
            return original(*a, **kw)
        finally:
            extract_s += time.perf_counter() - t0

    extract_module.extract = timed_extract  # documents.from_file looks it up at each call
    try:
        for rel, path in files:
            data = path.read_bytes()
            t0 = time.perf_counter()
            try:
                units = list(from_file(InputFile(str(path), rel, str(root) + "/"), data, tokenizer, recipe))
            except (extract_module.NotDocumentation, NoPassages):  # a generator's index or source page, a JSON file of
                continue  # something else: left out, as ingestion leaves them out
            t1 = time.perf_counter()
            for unit in units:
                texts[unit.doc_id] = [p.text for p in unit.pieces]
                job.add(unit)
            split_s += t1 - t0
            write_s += time.perf_counter() - t1
        t0 = time.perf_counter()
        job.flush()
        job.finish()  # a separate index folds in what was written
        write_s += time.perf_counter() - t0
    finally:
        extract_module.extract = original
    if failures:
        raise SystemExit(f"ingestion failed: {failures[:3]}")
    n_passages = sum(map(len, texts.values()))
    return {
        "max_passage_tokens": max_tokens, "overlap_tokens": overlap,
        "documents": len(texts), "passages": n_passages, "stored": service.rt.store().count(),
        "extract_split_s": round(split_s, 2), "extract_s": round(extract_s, 2),
        "split_s": round(split_s - extract_s, 2), "tokenise_write_s": round(write_s, 2),
        "documents_per_s": round(len(texts) / split_s, 2) if split_s else None,
        "passages_per_s": round(n_passages / split_s, 1) if split_s else None,
        "passage_length": lengths(tokenizer, [t for ts in texts.values() for t in ts]),
    }, texts


# -- questions -------------------------------------------------------------


def ask_all(service, questions: list[dict], doc_of: dict[str, str]) -> dict:
    """recall@5 by the gold rule (any passage, and a passage of the question's article) and EM/F1 with
    retrieval, asked as ``bench.retrieval.read_all`` asks (``QAService.answer``, top 5, never abstaining)."""
    from build_model.evaluation.metrics import squad_scores
    from function.errors import NotFound
    from function.service.qa_request import QARequest

    store = service.rt.store()
    max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
    found = found_in_article = 0
    predictions, started = {}, time.perf_counter()
    for i, q in enumerate(questions, 1):
        try:
            ids = [h.passage_id for h in service.retrieve(q["question"], TOP_K)]
        except NotFound:  # no searchable word: a miss
            ids = []
        passages = store.get_many(ids) if ids else {}
        hits = [p for p in passages.values() if contains_answer(p.text, q["answers"])]
        found += bool(hits)
        found_in_article += any(p.doc_id == doc_of[q["article"]] for p in hits)
        try:
            answers = service.answer(QARequest(q["question"], None, None, 1, max_tokens, TOP_K,
                                               abstain=False)).payload["answers"]
            predictions[q["id"]] = answers[0]["text"] if answers else ""
        except NotFound:
            predictions[q["id"]] = ""
        if i % 200 == 0:
            log(f"  asked {i} of {len(questions)} ({(time.perf_counter() - started) / i:.2f} s each)")
    n = len(questions)
    scores = squad_scores(predictions, {q["id"]: q["answers"] for q in questions})
    return {"recall@5": round(found / n, 4), "recall@5_article": round(found_in_article / n, 4),
            "exact_match": round(scores["exact_match"], 2), "f1": round(scores["f1"], 2),
            "seconds": round(time.perf_counter() - started, 1)}


def answer_in_text(questions: list[dict], texts: dict[str, list[str]], doc_of: dict[str, str]) -> float:
    """The share of questions with a gold answer in some passage of their own article."""
    ok = sum(any(contains_answer(t, q["answers"]) for t in texts.get(doc_of[q["article"]], ()))
             for q in questions)
    return round(ok / len(questions), 4) if questions else 0.0


# -- one corpus ------------------------------------------------------------


def run_corpus(name: str, env: dict, articles: list[Article], records: list, questions: list[dict],
               work: Path, max_passage_tokens: int = 0) -> dict:
    service = open_service({**env, "QA_SQLITE_PATH": str(work / f"{name}.sqlite")})
    tokenizer = service.rt.model().tokenizer
    if name == "paragraphs":
        seconds = ingest_into(service, records)
        texts: dict[str, list[str]] = {}
        for r in records:
            texts.setdefault(r.doc_id, []).append(r.text)
        doc_of = {a.key: a.key for a in articles}
        row = {"documents": len(texts), "passages": len(records), "stored": service.rt.store().count(),
               "render_s": None, "extract_split_s": None, "tokenise_write_s": round(seconds, 2),
               "documents_per_s": None, "passages_per_s": None,
               "passage_length": lengths(tokenizer, [r.text for r in records]),
               "paragraph_id_recall@5": recall(questions, retrieve_all(service, questions)[0])["@5"]}
    else:
        folder = work / name
        files, render_s = render_all(articles, name, folder)
        log(f"{name}: rendered {len(files)} documents in {render_s:.1f} s "
            f"({sum(p.stat().st_size for _, p in files) / 1e6:.1f} MB)")
        row, texts = ingest_documents(service, files, folder, max_passage_tokens)
        row["render_s"] = round(render_s, 2)
        doc_of = {a.key: f"{a.file_stem}.{name}" for a in articles}
    log(f"{name}: {row['documents']} documents, {row['passages']} passages "
        f"(extract+split {row['extract_split_s']} s, tokenise+write {row['tokenise_write_s']} s); "
        f"asking {len(questions)} questions")
    row["answer_in_text"] = answer_in_text(questions, texts, doc_of)
    row.update(ask_all(service, questions, doc_of))
    service.rt.store().close()
    return row


# -- report ----------------------------------------------------------------


def _num(x, fmt: str = "{:,.1f}") -> str:
    return "-" if x is None else fmt.format(x)


def markdown(result: dict) -> str:
    art, rows = result["artifact"], result["corpora"]
    base = rows.get("paragraphs")
    split_rows = [r for n, r in rows.items() if n != "paragraphs"]
    budget = split_rows[0].get("max_passage_tokens", "?") if split_rows else "-"
    overlap = split_rows[0].get("overlap_tokens", "?") if split_rows else "-"
    lines = [
        "# Whole documents, split by the ingestion code, asked without passage ids",
        "",
        f"`{result['command']}` on {result['date']} ({result['machine']['cpus']} CPUs, load "
        f"{result['machine']['load_1min']}): the {result['corpus']['articles']} articles of train.json + dev.json "
        f"({result['corpus']['paragraphs']:,} paragraphs) as one document per article and format, "
        f"{result['questions']:,} dev.json questions asked without passage ids (top {TOP_K} passages, never "
        f"abstaining). Model: `{art['name']}` (artifact hash `{art['artifact_hash'][:12]}`, {art['path']}).",
        "",
        f"Documents are split into passages of at most {budget} tokens ("
        + ("`--max-passage-tokens`, a diagnostic" if result.get("max_passage_tokens") else
           "the model's window less a typical question, as `python -m function.ingest` splits them")
        + f"), with about {overlap} tokens of overlap.",
        "",
        "| corpus | documents | passages | split docs/s | split passages/s | passage tokens p50 / p90 / max "
        "| recall@5 | recall@5 (article) | EM | F1 | ΔF1 vs paragraphs | within 3 points |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in ("paragraphs", *FORMATS):
        r = rows.get(name)
        if r is None:
            continue
        t = r["passage_length"]["tokens"]
        delta = None if base is None or name == "paragraphs" else round(r["f1"] - base["f1"], 2)
        met = "-" if delta is None else ("yes" if delta >= -TARGET_F1_POINTS else "no")
        label = "SQuAD paragraphs (records)" if name == "paragraphs" else f".{name} documents"
        lines.append(f"| {label} | {r['documents']} | {r['passages']:,} | {_num(r['documents_per_s'], '{:,.2f}')} "
                     f"| {_num(r['passages_per_s'])} | {t['p50']} / {t['p90']} / {t['max']} | {r['recall@5']:.3f} "
                     f"| {r['recall@5_article']:.3f} | {r['exact_match']:.2f} | {r['f1']:.2f} "
                     f"| {_num(delta, '{:+.2f}')} | {met} |")
    lines += ["", "Time per step (seconds) and passage characters:", "",
              "| corpus | render | extract | split | tokenise + write | chars p50 / p90 / max | gold answer in its "
              "article's passages | ask (all questions) |", "|---|---|---|---|---|---|---|---|"]
    for name in ("paragraphs", *FORMATS):
        r = rows.get(name)
        if r is None:
            continue
        c = r["passage_length"]["chars"]
        lines.append(f"| {name} | {_num(r.get('render_s'))} | {_num(r.get('extract_s'))} | {_num(r.get('split_s'))} "
                     f"| {_num(r['tokenise_write_s'])} | {c['p50']:,} / {c['p90']:,} / {c['max']:,} "
                     f"| {r['answer_in_text']:.1%} | {_num(r['seconds'])} |")
    lines += [
        "",
        f"Documents: the article title as the heading, then \"Part k\" section headings before every "
        f"{SECTION_PARAGRAPHS} paragraphs (invented: SQuAD articles have no sections); Markdown `#`/`##`, HTML "
        "<h1>/<h2> in an <article> among <nav>, <header>, <aside>, <footer> and <script> noise, plain text the "
        f"headings as lines, PDF by reportlab ({result['rendering']['pdf_font']}) with a running page footer. "
        "Split speed is extraction + splitting alone (tokenising and writing timed apart).",
        "",
        "recall@5: a passage among the 5 retrieved contains a gold answer string (white space collapsed, NFC); "
        "lenient, as a short answer can occur elsewhere. recall@5 (article): such a passage from the question's "
        "own article. The paragraph corpus's recall by gold paragraph id is "
        f"{_num(result.get('paragraph_id_recall@5'), '{:.3f}')} (as in `python -m bench retrieval`).",
    ]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    from bench.machine import describe
    from function.model.artifact import load_manifest

    artifact = (args.artifact or default_artifact()).resolve()
    manifest = load_manifest(artifact)
    records, questions = load_squad(args.data)
    articles = load_articles(args.data)
    article_of = {q["gold"]: q["gold"].rsplit("-", 1)[0] for q in questions["dev"]}
    keys = {a.key.replace("/", "_"): a.key for a in articles}
    dev = questions["dev"][: args.limit] if args.limit else questions["dev"]
    dev = [{**q, "article": keys[article_of[q["gold"]]]} for q in dev]
    names = ["paragraphs", *[f for f in FORMATS if f in args.formats]]
    settings = {"data": str(args.data.resolve()), "questions": len(dev), "artifact_hash": manifest.artifact_hash,
                "section_paragraphs": SECTION_PARAGRAPHS, "top_k_passages": TOP_K}
    log(f"{len(articles)} articles, {len(records)} paragraphs, {len(dev)} dev questions, model {manifest.name}; "
        f"corpora {', '.join(names)}")
    args.out.mkdir(parents=True, exist_ok=True)
    env = {"QA_ARTIFACT_DIR": str(artifact), "QA_STORE": "sqlite", "QA_CACHE": "0",
           "QA_THREADS": str(args.threads), "QA_MAX_TOP_K_PASSAGES": "20"}
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            cache = args.out / f"{name}.json"
            wanted = settings if name == "paragraphs" else {**settings, "max_passage_tokens": args.max_passage_tokens}
            if cache.is_file():
                cached = json.loads(cache.read_text())
                if {"max_passage_tokens": 0, **cached.get("settings", {})} == {"max_passage_tokens": 0, **wanted}:
                    log(f"{name}: done before ({cache}), skipped")
                    rows[name] = cached["row"]
                    continue
            started = time.perf_counter()
            log(f"{name}: starting")
            rows[name] = run_corpus(name, env, articles, records, dev, Path(tmp), args.max_passage_tokens)
            cache.write_text(json.dumps({"settings": wanted, "row": rows[name]}, indent=2) + "\n")
            r = rows[name]
            log(f"{name}: done in {time.perf_counter() - started:.0f} s: recall@5 {r['recall@5']:.3f}, "
                f"EM {r['exact_match']:.2f}, F1 {r['f1']:.2f}")
    base = rows.get("paragraphs")
    for name, r in rows.items():
        if name != "paragraphs" and base is not None:
            r["f1_delta"] = round(r["f1"] - base["f1"], 2)
            r["target_met"] = r["f1_delta"] >= -TARGET_F1_POINTS
    result = {
        "command": "python -m bench documents " + shlex.join(argv if argv is not None else sys.argv[1:]),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "artifact": {"path": os.path.relpath(artifact, REPO), "name": manifest.name,
                     "artifact_hash": manifest.artifact_hash, "stand_in": manifest.raw.get("stand_in")},
        "corpus": {"articles": len(articles), "paragraphs": len(records), "files": ["train.json", "dev.json"]},
        "questions": len(dev),
        "top_k_passages": TOP_K,
        "abstain": False,
        "max_passage_tokens": args.max_passage_tokens or None,
        "rendering": {"section_paragraphs": SECTION_PARAGRAPHS, "section_heading": "Part k",
                      "pdf_font": pdf_font()[0] if "pdf" in args.formats else None},
        "gold_rule": "a retrieved passage's text contains a gold answer string (NFC, white space collapsed)",
        "target_f1_points": TARGET_F1_POINTS,
        "paragraph_id_recall@5": rows.get("paragraphs", {}).get("paragraph_id_recall@5"),
        "corpora": rows,
        "machine": {**describe(), "cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2),
                    "threads": args.threads},
    }
    (args.out / "documents.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "documents.md").write_text(markdown(result))
    print(markdown(result))
    return 0
