"""Study: what BM25 retrieval knows about how well a question's passages cover it, per question asked alone.

Shared by collect_docs.py and collect_squad.py: for the passages a reply read, the share of the question's terms
each holds (plain and idf-weighted, idf from the store's own index statistics), best over the passages."""
from function.retrieval import bm25
from function.retrieval.terms import query_terms, terms


def signals(service, question: str, retrieved: list[dict]) -> dict:
    qt = query_terms(question)
    ids = [r["passage_id"] for r in retrieved]
    if not qt or not ids:
        return {"n_terms": len(qt)}
    store = service.rt.store()
    stats = store.index.stats(qt)
    n = stats["passages"]
    idf = {t: bm25.idf(n, stats["df"].get(t, 0)) for t in qt}
    total = sum(idf.values())
    got = store.get_many(ids)
    plain, weighted, first = [], [], None
    for pid in ids:
        p = got.get(pid)
        if p is None:
            continue
        held = set(terms(p.title or "")) | set(terms(p.text))
        inside = [t for t in qt if t in held]
        plain.append(len(inside) / len(qt))
        weighted.append(sum(idf[t] for t in inside) / total if total > 0 else 0.0)
        if first is None:
            first = (plain[-1], weighted[-1])
    return {"n_terms": len(qt), "unknown": sum(stats["df"].get(t, 0) == 0 for t in qt) / len(qt),
            "cov": max(plain, default=0.0), "idf_cov": max(weighted, default=0.0),
            "cov1": first[0] if first else 0.0, "idf_cov1": first[1] if first else 0.0,
            "n_passages": n}
