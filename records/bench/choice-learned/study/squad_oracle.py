import pickle, sys, numpy as np
rows = pickle.load(open(sys.argv[1], "rb"))
n = len(rows); R = [r for r in rows if r]
print("shipped", sum(r["shipped_f1"] for r in R)/n)
print("oracle", sum(max(p["f1"] for p in r["per"]) for r in R)/n)
print("first", sum(r["per"][0]["f1"] for r in R)/n)
print("gold-when-read else shipped", sum(next((p["f1"] for p in r["per"] if p["gold"]), r["shipped_f1"]) for r in R)/n)
# shipped answer == forced answer of which passage?
diff = [r for r in R if max(p["f1"] for p in r["per"]) - min(p["f1"] for p in r["per"]) >= 50]
print("questions whose passages' answers differ by 50 F1 or more", len(diff))
print("of them, the shipped choice is the best passage's answer", sum(r["shipped_f1"] == max(p["f1"] for p in r["per"]) for r in diff))
# cases: shipped chooses passage with lower f1 than best
loss = sum(max(p["f1"] for p in r["per"]) - r["shipped_f1"] for r in R)/n
print("choice loss", loss)
# second-stage mismatch: shipped text not equal to any forced passage answer
print("shipped not a forced answer", sum(r["shipped"] not in {p["text"] for p in r["per"]} for r in R))
