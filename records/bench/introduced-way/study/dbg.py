"""dbg.py RUNS NAME ID [mode]: decode one captured question, printing _by_sentence's input and output spans."""
import pickle, sys, os, dataclasses
sys.path.insert(0, os.getcwd()); sys.path.insert(0, "/work/study")
runs, name, qid = sys.argv[1:4]
mode = sys.argv[4] if len(sys.argv) > 4 else "given"
os.environ["RUNS"] = runs
import evaluate as ev
from function.model import reader
from function.service.pipeline import QAService, SentenceCosines
from function.evaluate.scoring import answer_text
orig = reader._by_sentence
def wrap(found, question, texts, *a, **k):
    out = orig(found, question, texts, *a, **k)
    print("IN :", [(f.passage, texts[f.passage][f.start:f.end][:40], round(f.score, 4)) for f in found[:12]])
    print("ALL:", [(texts[f.passage][f.start:f.end][:30], f.start, round(f.score, 5)) for f in found if "git" in texts[f.passage][f.start:f.end] or "reset" in texts[f.passage][f.start:f.end]])
    print("OUT:", [(f.passage, texts[f.passage][f.start:f.end][:40], round(f.score, 4)) for f in out[:12]])
    return out
reader._by_sentence = wrap
caps = pickle.load(open(f"{runs}/cap-off-{name}.pkl", "rb"))
for key, c in caps.items():
    if key[1] == qid and key[2] == mode:
        cos = None if c.get("cos_question") is None else SentenceCosines(ev.ENC, c["cos_question"])
        reading = dataclasses.replace(c["reading"], cosines=cos)
        print(c["req"].question)
        print("ANSWER:", answer_text(QAService._payload(c["req"], ev.MODEL, reading, c["batch"], c["start"], c["end"])))
