"""Score each arm's distilled student on the documentation benchmark's dev questions with their right passage
(F1, through the function's windowing and decoding) beside its SQuAD dev scores from its stage record, and
choose the one to bring back: the best documentation F1 among arms within 0.5 SQuAD F1 of the control."""
import json
import sys
from pathlib import Path

import torch

from build_model import hf
from build_model.evaluation.evaluate import evaluate, torch_infer
from build_model.squad import load_squad
from function.model.tokenizer import QATokenizer
from function.model.windows import WindowSpec

docs_dev, out, *arms = sys.argv[1:]
split = load_squad(docs_dev)
results = {}
for arm in arms:
    folder = Path(arm) / "distil"
    name = Path(arm).name.removeprefix("arm-")
    record = json.loads((folder / "stage.json").read_text())
    model = hf.load_qa_model(str(folder / "model")).eval().to("cuda" if torch.cuda.is_available() else "cpu")
    tok = QATokenizer(folder / "model" / "tokenizer.json")
    spec = WindowSpec(max_seq_len=384, stride=128, max_query_tokens=64, **tok.pair_layout())
    scores = evaluate(split, tok, spec, torch_infer(model), max_answer_tokens=30)
    result = record.get("result", record)
    results[name] = {"docs_dev": {k: scores[k] for k in ("exact_match", "f1", "questions")},
                               "squad_dev": result.get("dev"), "history": result.get("training", {}).get("history"),
                               "extra_train": result.get("extra_train")}
    print(name, json.dumps(results[name]["docs_dev"]), json.dumps(result.get("dev")), flush=True)
control = (results.get("control", {}).get("squad_dev") or {}).get("f1", 0.0)
eligible = {k: v for k, v in results.items() if k != "control" and (v["squad_dev"] or {}).get("f1", 0) >= control - 0.5}
chosen = max(eligible or results, key=lambda k: results[k]["docs_dev"]["f1"])
results["chosen"] = chosen
Path(out).write_text(json.dumps(results, indent=1))
print("chosen:", chosen)
