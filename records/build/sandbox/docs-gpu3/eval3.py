"""On the device: each arm's trained student and its half-and-half average with the start (WiSE-FT, as the
shipped model was made), scored on SQuAD dev and on the documentation benchmark's dev questions with their
right passage (F1 through the function's windowing and decoding), beside the start itself.
Usage: eval3.py START SQUAD_DEV DOCS_DEV OUT.json ARM_DIR..."""
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

start, squad_dev, docs_dev, out, *arms = sys.argv[1:]
start = Path(start)
splits = {"squad_dev": load_squad(squad_dev), "docs_dev": load_squad(docs_dev)}
tok = QATokenizer(start / "tokenizer.json")
spec = WindowSpec(max_seq_len=384, stride=128, max_query_tokens=64, **tok.pair_layout())
device = "cuda" if torch.cuda.is_available() else "cpu"


def score(model_dir: Path) -> dict:
    model = hf.load_qa_model(str(model_dir)).eval().to(device)
    out = {}
    for name, split in splits.items():
        s = evaluate(split, tok, spec, torch_infer(model), max_answer_tokens=30)
        out[name] = {k: round(s[k], 2) for k in ("exact_match", "f1")}
    return out


def soup(a: float, trained: Path, dest: Path) -> Path:
    w0, w1 = load_file(start / "model.safetensors"), load_file(trained / "model.safetensors")
    dest.mkdir(parents=True, exist_ok=True)
    save_file({k: ((1 - a) * w0[k] + a * w1[k]).astype(w0[k].dtype) for k in w0}, dest / "model.safetensors",
              metadata={"format": "pt"})
    for name in ("config.json", "tokenizer.json"):
        (dest / name).write_bytes((trained / name).read_bytes())
    return dest


results = {"start": score(start)}
print("start", json.dumps(results["start"]), flush=True)
for arm in arms:
    name = Path(arm).name.removeprefix("arm-")
    trained = Path(arm) / "distil" / "model"
    if not (trained / "model.safetensors").is_file():
        continue
    record = json.loads((Path(arm) / "distil" / "stage.json").read_text())
    results[name] = {"trained": score(trained), "soup": score(soup(0.5, trained, Path(arm) / "soup")),
                     "extra_train": record.get("result", record).get("extra_train"),
                     "history": record.get("result", record).get("training", {}).get("history")}
    print(name, json.dumps({k: results[name][k] for k in ("trained", "soup")}), flush=True)
Path(out).write_text(json.dumps(results, indent=1))
