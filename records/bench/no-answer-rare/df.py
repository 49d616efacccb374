"""Study (not kept): how many questions hold a word that no file of the store holds (the extracted texts' analysed
terms; a store per set, or every set in one). PYTHONPATH=. python records/bench/no-answer-rare/df.py"""
from bench.docs import parse_args, prepare
from function.retrieval.terms import query_terms, terms

prepared = prepare(parse_args(["--part", "all"]), say=lambda message: None)
vocabulary = {}
for docset, _, _, texts in prepared:
    held = set()
    for path, text in texts.items():
        held.update(terms(text))
        held.update(terms(path))
    vocabulary[docset["set"]] = held
pooled = set().union(*vocabulary.values())
print({name: len(held) for name, held in vocabulary.items()}, "terms; all sets:", len(pooled))
for part in ("dev", "test"):
    for kind in ("questions", "off_topic"):
        asked = [(docset["set"], q) for docset, *_ in prepared for q in docset[kind] if q["part"] == part]
        own = sum(any(t not in vocabulary[s] for t in query_terms(q["question"])) for s, q in asked)
        one = sum(any(t not in pooled for t in query_terms(q["question"])) for _, q in asked)
        print(f"{part} {kind}: {len(asked)}; hold a word no file of their own set holds: {own}; "
              f"that no file of any set holds: {one}")
