"""How many questions alone run a document check, and its time: SQuAD dev asked against a fold + train.json (hybrid)."""

import json
import sys
import tempfile
from pathlib import Path

from bench import in_process
from bench import out_of_corpus as ooc
from build_model.squad import load_squad
from function.ingest.json_input import Record, parse_text
from function.service.qa_request import QARequest

args = ooc.parse_args(["--with-train", "--retrieval", "hybrid", "--data", "/work/shared/data/squad"])
titles = list(dict.fromkeys(p.title for p in load_squad(args.data / "dev.json").paragraphs.values()))
dev = [r for r in parse_text("dev.json", (args.data / "dev.json").read_text()) if isinstance(r, Record)]
train = [r for r in parse_text("train.json", (args.data / "train.json").read_text()) if isinstance(r, Record)]
_, questions = in_process.load_squad(args.data)
fold = ooc.FOLDS[0]
rows = []
with tempfile.TemporaryDirectory() as tmp:
    service = in_process.open_service(ooc.service_env(args, Path(tmp)))
    in_process.ingest_into(service, [r for r in dev if ooc.article_of(r.id, titles) in fold] + train)
    for q in questions["dev"][: int(sys.argv[1])]:
        res = service.answer(QARequest(q["question"], None, None, 1, 30, 5))
        rows.append(
            {
                "names_ms": res.timings_ms.get("names", 0.0),
                "total": sum(v for k, v in res.timings_ms.items() if k != "total"),
            }
        )
n = len(rows)
checked = [r for r in rows if r["names_ms"] > 0]
print(
    json.dumps(
        {
            "questions": n,
            "checked": len(checked),
            "share": round(len(checked) / n, 3),
            "names_ms_mean_checked": round(sum(r["names_ms"] for r in checked) / max(1, len(checked)), 2),
            "names_ms_p50_checked": sorted(r["names_ms"] for r in checked)[len(checked) // 2] if checked else None,
            "names_ms_max": round(max((r["names_ms"] for r in rows), default=0), 2),
            "server_ms_p50": sorted(r["total"] for r in rows)[n // 2],
        },
        indent=1,
    )
)
