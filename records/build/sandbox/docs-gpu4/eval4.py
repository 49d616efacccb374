"""On the device: each student and each documentation student's half-and-half average with the control (both
from the same [base]), scored on SQuAD dev and on the documentation benchmark's dev questions with their right
passage (F1 through the function's windowing and decoding).
Usage: eval4.py SQUAD_DEV DOCS_DEV OUT.json CONTROL_ARM_DIR ARM_DIR..."""
import json
import sys
from pathlib import Path

import torch
from safetensors.numpy import load_file, save_file

from build_model import hf
from build_model.evaluation.evaluate import evaluate, torch_infer
from build_model.squad import load_squad
from function.model.tokenizer import QATokenizer
from function.model.windows import WindowSpec

squad_dev, docs_dev, out, control, *arms = sys.argv[1:]
splits = {"squad_dev": load_squad(squad_dev), "docs_dev": load_squad(docs_dev)}
control = Path(control) / "distil" / "model"
tok = QATokenizer(control / "tokenizer.json")
spec = WindowSpec(max_seq_len=384, stride=128, max_query_tokens=64, **tok.pair_layout())
device = "cuda" if torch.cuda.is_available() else "cpu"


def score(model_dir: Path) -> dict:
    model = hf.load_qa_model(str(model_dir)).eval().to(device)
    res = {}
    for name, split in splits.items():
        s = evaluate(split, tok, spec, torch_infer(model), max_answer_tokens=30)
        res[name] = {k: round(s[k], 2) for k in ("exact_match", "f1")}
    return res


def soup(trained: Path, dest: Path) -> Path:
    w0, w1 = load_file(control / "model.safetensors"), load_file(trained / "model.safetensors")
    dest.mkdir(parents=True, exist_ok=True)
    save_file({k: (0.5 * w0[k] + 0.5 * w1[k]).astype(w0[k].dtype) for k in w0}, dest / "model.safetensors",
              metadata={"format": "pt"})
    for name in ("config.json", "tokenizer.json"):
        (dest / name).write_bytes((trained / name).read_bytes())
    return dest


def history(arm: Path) -> dict:
    record = json.loads((arm / "distil" / "stage.json").read_text())
    return record.get("result", record).get("training", {}).get("history")


results = {"control": {"trained": score(control), "history": history(control.parent.parent)}}
print("control", json.dumps(results["control"]["trained"]), flush=True)
Path(out).write_text(json.dumps(results, indent=1))
for arm in map(Path, arms):
    trained = arm / "distil" / "model"
    if not (trained / "model.safetensors").is_file():
        continue
    name = arm.name.removeprefix("arm-")
    results[name] = {"trained": score(trained), "soup": score(soup(trained, arm / "soup")), "history": history(arm)}
    print(name, json.dumps({k: results[name][k] for k in ("trained", "soup")}), flush=True)
    Path(out).write_text(json.dumps(results, indent=1))  # written after each: a timeout keeps what was scored
