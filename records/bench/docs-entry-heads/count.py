import sys, collections, pathlib, re
from function.ingest.extract import extract, ExtractError
from function.ingest.split import split, budget_from_manifest
from function.model.artifact import load_manifest
from function.model.tokenizer import QATokenizer
from function.model import sentence
m = load_manifest("artifact")
tok = QATokenizer(m.tokenizer_path); mx, ov = budget_from_manifest(m)
for setname in sys.argv[1:]:
    root = pathlib.Path("build/docs-bench") / setname / "corpus"
    stats = collections.Counter(); examples = collections.defaultdict(list)
    for f in sorted(root.rglob("*")):
        if not f.is_file() or f.suffix.lower() not in (".html", ".htm", ".md"): continue
        try: doc = extract(f.name, f.read_bytes())
        except ExtractError: continue
        entries = [sp for sp in doc.spans if sp.kind == "entry" and sp.name]
        for c in split(doc, tok, mx, ov):
            ing = {}
            for e in entries:
                if c.start <= e.start < c.end:
                    line = c.text.rfind("\n", 0, e.start - c.start) + 1
                    ing[line] = sentence._name_part(e.name)
            reg = {}
            for at, name, code in sentence._heads(c.text):
                line = c.text.rfind("\n", 0, at) + 1 if at else 0
                reg[line] = name
            stats["passages"] += 1; stats["ingest_heads"] += len(ing); stats["regex_heads"] += len(reg)
            for ln, nm in ing.items():
                if ln in reg and reg[ln] == nm: stats["both"] += 1
                elif ln in reg: stats["same_line_other_name"] += 1; examples["othername"].append((nm, reg[ln]))
                else: stats["ingest_only"] += 1; examples["ingest_only"].append((nm, c.text[ln:ln+60]))
            for ln, nm in reg.items():
                if ln not in ing: stats["regex_only"] += 1; examples["regex_only"].append(c.text[ln:ln+60])
    print(setname, dict(stats))
    for k, v in examples.items():
        print("  ", k, v[:6])
