"""Ask some questions of a documentation set alone, as ``python -m bench docs`` does (hybrid retrieval, a store per
set kept under /work/diag/stores), and print what the function read, the "no answer" threshold's move and its
answers: ``python diag.py SETS_DIR SET [ID ...]`` from the project root."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.getcwd())

from bench import docs as D  # noqa: E402
from bench.docs_fetch import corpus  # noqa: E402
from bench.in_process import open_service  # noqa: E402
from function.retrieval import span_bias  # noqa: E402
from function.retrieval.terms import query_terms  # noqa: E402
from function.service.qa_request import QARequest  # noqa: E402


def main() -> None:
    sets_dir, set_name, ids = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    docset = D.load_sets(sets_dir, [set_name])[0]
    folder, files = corpus(docset, Path("build/docs-bench"), print)
    work = Path("/work/diag/stores")
    work.mkdir(parents=True, exist_ok=True)
    env = {"QA_ARTIFACT_DIR": str(Path("artifact").resolve()), "QA_STORE": "sqlite", "QA_CACHE": "0",
           "QA_THREADS": "1", "QA_INDEX_ENCODER": str(Path("encoder").resolve()),
           "QA_SQLITE_PATH": str(work / f"{set_name}.sqlite"), "QA_INDEX_URI": str(work / f"{set_name}.lance")}
    service = open_service(env)
    _, passages = D._ingested(service, docset, folder, files)
    store = service.rt.store()
    s = service.rt.settings
    for q in docset["questions"] + docset.get("off_topic", []):
        if ids and not any(q["id"].endswith(i) for i in ids):
            continue
        out = service.answer(QARequest(q["question"], None, None, 5, s.max_answer_tokens, s.top_k_passages)).payload
        print("=" * 100)
        print(q["id"], q["question"], "| gold", q.get("answers"), "| file", q.get("file"))
        print("NO_ANSWER", json.dumps(out.get("no_answer")))
        for a in out.get("answers", []):
            print("  ANS", repr(a["text"])[:60], a["score"], a.get("passage_id"))
        retrieved = out.get("retrieved", [])
        read = [store.get_many([r["passage_id"]])[r["passage_id"]] for r in retrieved]
        texts = [(p.title, p.text) for p in read]
        cosines = [r.get("cosine") for r in retrieved]
        share = span_bias.term_share(query_terms(q["question"]), texts)
        missing = span_bias.missing_name(q["question"], texts)
        print("SHIFT cosine", max((c for c in cosines if c is not None), default=None), "share", share,
              "names", span_bias.question_names(q["question"]), "missing", missing,
              "shift", span_bias.no_answer_shift(cosines, share=share, name_missing=missing))
        never = QARequest(q["question"], None, None, 5, s.max_answer_tokens, s.top_k_passages, abstain=False)
        for a in service.answer(never).payload.get("answers", []):
            print("  NEVER", repr(a["text"])[:60], a["score"], a.get("passage_id"))
        print("RIGHT", D.right_passage(q, passages) if q.get("answers") else None)
        for r, p in zip(retrieved, read, strict=True):
            print("  READ", r["passage_id"], r["score"], r.get("cosine"), "|", p.title[:80], "|",
                  p.text[:150].replace("\n", " / "))


if __name__ == "__main__":
    main()
