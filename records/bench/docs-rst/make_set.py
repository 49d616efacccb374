import json, os, sys
sys.path.insert(0, '/work/main')
from function.ingest.extract import extract
d = json.load(open('/work/main/bench/docs_sets/requests.json'))
root = '/work/main/build/docs-bench/packages/debian/python-requests-doc_2.28.1+dfsg-1/usr/share/doc/python-requests-doc/html/'
keep, drop = [], []
norm = lambda t: " ".join(t.split())
cache = {}
for q in d['questions']:
    rel = q['file'].split('/', 1)[1]
    src = root + '_sources/' + rel[:-5] + '.rst.txt'
    if not os.path.exists(src): drop.append((q['id'], 'no source')); continue
    if src not in cache: cache[src] = norm(extract(os.path.basename(src), open(src, 'rb').read()).text)
    t = cache[src]
    forms = [a for a in q['answers'] if norm(a) in t]
    if not forms or (q.get('evidence') and norm(q['evidence']) not in t):
        drop.append((q['id'], rel)); continue
    q2 = dict(q, file='python-requests-doc/_sources/' + rel[:-5] + '.rst.txt', answers=forms, id=q['id'].replace('requests-', 'requests-rst-'))
    keep.append(q2)
print(len(keep), 'kept', len(drop), 'dropped', sum(q['part']=='dev' for q in keep), 'dev'); print(drop)
off = [dict(o, id=o['id'].replace('requests-', 'requests-rst-')) for o in d['off_topic']]
s = {"set": "requests-rst", "generator": "rst", "description": "study only: requests' questions asked of its reStructuredText sources (Sphinx's _sources/*.rst.txt)",
     "source": {"kind": "debian", "packages": [{"name": "python-requests-doc", "version": "2.28.1+dfsg-1", "root": "usr/share/doc/python-requests-doc/html",
                "include": ["_sources/*.rst.txt"]}]}, "questions": keep, "off_topic": off}
json.dump(s, open('/work/main/build/requests-rst.json', 'w'), indent=1)
