"""The documentation benchmark's dev part with the cascade's decision forced (``STOP=1``: every question asked
alone answered from its first passage; ``STOP=0``: from every passage read), and per question the first passage's
span probability, no-answer margin, the artifact's moved threshold and retrieval's lead, as ``cascade.settled``
sees them. Usage: STOP=0|1 PYTHONPATH=. python records/bench/cascade-docs/dump_docs.py OUT.json -- BENCH-DOCS-ARGS"""

import json
import os
import sys
from pathlib import Path

import bench.docs as docs
from function.model.decode import best_spans, null_score
from function.service import cascade

STOP = os.environ["STOP"] == "1"
seen: dict = {}
stats: dict[str, dict] = {}


def settled(start, end, batch, max_tokens, threshold, min_probability=cascade.MIN_SPAN_PROBABILITY,
            max_margin=cascade.MAX_MARGIN, blocks=None, lead=None):
    spans = best_spans(start, end, batch, 1, max_tokens, blocks=blocks)
    seen.update(p=spans[0].score if spans else 0.0, m=float(null_score(start, end, batch, max_tokens).margin),
                t=threshold, lead=lead)
    return STOP


original_ask = docs._ask


def ask(service, question, ids, abstain):
    seen.clear()
    out = original_ask(service, question, ids, abstain)
    if ids is None and abstain is None and question not in stats:  # asked alone, as served
        stats[question] = dict(seen)
    return out


cascade.settled = settled
docs._ask = ask
code = docs.main(sys.argv[sys.argv.index("--") + 1:])
Path(sys.argv[1]).write_text(json.dumps(stats))
raise SystemExit(code)
