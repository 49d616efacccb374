"""squad_capture.py OUT.pkl [N]: SQuAD dev questions asked alone (hybrid, all five read, the cascade off), each model
run captured with what the first stage reads, for offline study of the choice among passages."""
import dataclasses, os, pickle, sys, time
sys.path.insert(0, os.getcwd())
import numpy as np
import bench.cascade as bc
from function.retrieval.span_bias import NULL_WEIGHT, passage_bias, plain_name_shares
from function.service.pipeline import Reading

OUT = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 0

def sweep(service, questions, top_k_passages):
    from function.errors import NotFound
    model = service.rt.model()
    caps = []
    t0 = time.perf_counter()
    for i, q in enumerate(questions, 1):
        q_ids = model.tokenizer.encode(q["question"]).ids
        try:
            hits, stored, _ = service.read_question(q["question"], top_k_passages, len(q_ids), model)
        except NotFound:
            caps.append({"q": q, "empty": True}); continue
        by_id = {h.passage_id: h for h in hits}
        scores = np.array([by_id[p.id].score for p in stored])
        cosines = [by_id[p.id].cosine for p in stored]
        reading = Reading.of_stored(stored)
        batch = service._batch(q_ids, reading, model)
        ran = service.rt.inference.run(model, batch)
        names = plain_name_shares(q["question"], [(p.title, p.text) for p in stored])
        bias = passage_bias(scores, cosines=cosines, names=names)
        caps.append({"q": q, "ids": [p.id for p in stored], "reading": reading, "batch": batch,
                     "start": ran.start_logits, "end": ran.end_logits, "scores": scores, "cosines": cosines,
                     "names": names, "bias": bias})
        if i % 100 == 0:
            bc.log(f"captured {i} of {len(questions)} ({(time.perf_counter() - t0) / i:.2f} s each)")
            pickle.dump(caps, open(OUT, "wb"))
    pickle.dump(caps, open(OUT, "wb"))
    return {"captured": len(caps)}

bc.sweep = sweep
bc.main(["--questions", str(N), "--timed", "0", "--hybrid", "--data", "/work/shared/data/squad", "--out", "/work/s3/squad-cap"])
