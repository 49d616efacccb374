"""fractional.json -> fractional.md: each run's figures, by setting and CPU fraction, in the order they ran.

    python records/bench/fractional-cpu/study/summarize.py records/bench/fractional-cpu
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

LABELS = {"both": "Firestore, keeping passages and index documents (the default)",
          "image-hybrid": "the corpus in the image, hybrid (SQLite, Lance, the encoder)"}


def main(folder: str) -> int:
    out = Path(folder)
    r = json.loads((out / "fractional.json").read_text())
    m = r["machine"]
    lines = [f"Reproduce: `{r['command']}`", "",
             f"{m.get('cpu', '?')}, server on 1 CPU (`taskset`) under a CFS quota of the fraction; {r['questions']} "
             f"distinct SQuAD dev questions asked alone on one warm instance per run (1,757 paragraphs stored); "
             f"order {', '.join(f'{q:g}' for q in r['order'])}. Billed at the fraction's vCPUs and 0.5 GiB; Firestore "
             f"multi-region; alone: each question rounded up to 100 ms and reads the corpus generation "
             f"({r['generation_reads']:.2f} a request, from Firestore only); busy: one client back to back "
             f"(concurrency 1, as below 1 vCPU), 15 s.", ""]
    for name, runs in r["runs"].items():
        lines += [f"**{LABELS.get(name, name)}**", "",
                  "| round | vCPU | server p50 / p90 ms | reads / question | billed 100 / 200 / 300 / 400+ ms | "
                  "CPU + memory $ (alone) | **$ a million alone** | busy $ | first answer after start, s | "
                  "model loaded, ms |", "|---|---|---|---|---|---|---|---|---|---|"]
        for i, run in enumerate(runs):
            s, p = run["stream"], run["price"]
            steps = p["billed_steps"]
            later = sum(v for k, v in steps.items() if int(k.split()[0]) >= 400)
            a = p["alone"]
            cold = run.get("cold_start", {}).get("cold_start_ms", {}).get("since_process_start_ms", "?")
            round_ = 1 if i < len(runs) / 2 else 2
            lines.append(f"| {round_} | {run['q']:g} | {s['server_ms_p50']} / {s['server_ms_p90']} | "
                         f"{s['reads']:.2f} | "
                         f"{steps['100 ms']} / {steps['200 ms']} / {steps['300 ms']} / {later} | "
                         f"{a['cpu'] + a['memory']:.2f} | **{a['total']:.2f}** | {p['busy']['total']:.2f} | "
                         f"{run['first_answer_s']} | {cold} |")
        lines.append("")
    (out / "fractional.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
