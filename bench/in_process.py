"""The function's ``QAService`` in this process, on a SQuAD corpus: what ``retrieval`` and ``documents`` share.

The paragraphs of ``train.json`` and ``dev.json`` as ingestion records with
every question's gold paragraph (``load_squad``), a service on an environment
(``open_service``), the records written into its store (``ingest_into``), and
the questions asked without passage ids (``retrieve_all``, ``recall``).
"""

from __future__ import annotations

import time
from pathlib import Path

KS = (1, 5, 10)  # recall@k


def retrieval_env(kind: str, folder: Path, encoder: Path) -> dict[str, str]:
    """What a service of retrieval ``kind`` adds to its environment: ``bm25`` nothing (the store's own index);
    ``stored`` the sentence encoder alone (stored cosines: each passage's embedding stored with it); ``hybrid`` a
    Lance table in ``folder`` with that encoder's vectors (what ``make run DOCS=...`` and the Lance images serve)."""
    if kind == "hybrid":
        return {"QA_INDEX_URI": str(folder / "index.lance"), "QA_INDEX_ENCODER": str(Path(encoder).resolve())}
    if kind == "stored":
        return {"QA_INDEX_ENCODER": str(Path(encoder).resolve())}
    if kind != "bm25":
        raise ValueError(f"retrieval {kind!r}: bm25, stored or hybrid")
    return {}


def passage_id(paragraph) -> str:
    """The id ingestion gives a SQuAD paragraph (a ``build_model.squad.Paragraph``, id ``<article>-<n>``)."""
    from function.ingest.json_input import squad_id

    return squad_id(paragraph.title, int(paragraph.id.rsplit("-", 1)[1]))


def squad_questions(path: Path) -> list[dict]:
    """A SQuAD file's questions, read by ``build_model.squad.load_squad``: id, question, answers, and ``gold``,
    the id ingestion gives the question's paragraph."""
    from build_model.squad import load_squad as read_squad

    split = read_squad(path)
    return [{"id": q.id, "question": q.question, "gold": passage_id(split.paragraphs[q.paragraph_id]),
             "answers": list(q.answers)} for q in split.questions]


def load_squad(folder: Path) -> tuple[list, dict[str, list[dict]]]:
    """(every paragraph of train.json and dev.json as an ingestion record, split -> its ``squad_questions``)."""
    from function.ingest.json_input import Record, parse_text

    records, questions = [], {}
    for split in ("train", "dev"):
        path = folder / f"{split}.json"
        records += [r for r in parse_text(path.name, path.read_text(encoding="utf-8")) if isinstance(r, Record)]
        questions[split] = squad_questions(path)
    return records, questions


def open_service(env: dict):
    from function.config import Settings
    from function.service.pipeline import QAService
    from function.service.runtime import Runtime

    return QAService(Runtime(Settings.from_env(env)))


def ingest_into(service, records: list) -> float:
    from function.ingest.documents import Recipe, from_records
    from function.ingest.ingestion import Ingestion

    tokenizer = service.rt.model().tokenizer
    recipe = Recipe(tokenizer.fingerprint, 0, 0, service.rt.settings.max_context_chars)  # records are not split
    index = service.rt.searcher() if service.rt.settings.index_uri else None  # QA_INDEX_URI: written too
    job = Ingestion(service.rt.store(), tokenizer, batch_size=256, note=lambda message: None, index=index,
                    encoder=service.rt.passage_encoder())
    job.add_and_flush(from_records("train.json+dev.json", records, recipe))
    job.finish()
    if job.failures or job.counts.passages != len(records):
        raise SystemExit(f"ingestion wrote {job.counts.passages} of {len(records)}: {job.failures[:3]}")
    return job.counts.seconds


def retrieve_all(service, questions: list[dict], k: int = max(KS)) -> tuple[list[list[str]], list[float]]:
    """Each question's retrieved ids (best first) and the time the function's retrieve step took (ms)."""
    from function.errors import NotFound

    for q in questions[:5]:  # connection and caches warm, as on a warm instance
        try:
            service.retrieve(q["question"], k)
        except NotFound:
            pass
    ranked, times = [], []
    for q in questions:
        t0 = time.perf_counter()
        try:
            ids = [h.passage_id for h in service.retrieve(q["question"], k)]
        except NotFound:  # no searchable word: counts as a miss
            ids = []
        times.append((time.perf_counter() - t0) * 1000)
        ranked.append(ids)
    return ranked, times


def recall(questions: list[dict], ranked: list[list[str]]) -> dict:
    n = len(questions)
    return {f"@{k}": round(sum(q["gold"] in ids[:k] for q, ids in zip(questions, ranked)) / n, 4) for k in KS}
