import sys, pathlib, pickle, os
sys.path.insert(0, os.getcwd())
from function.ingest.extract import extract
out = {}
for root in ('/work/cache/docs-bench', '/work/cache/docs-bench2'):
    for p in pathlib.Path(root).glob('*/corpus/**/*'):
        if p.suffix.lower() not in ('.html', '.htm', '.xhtml') or not p.is_file():
            continue
        try:
            out[str(p.relative_to(root))] = extract(p.name, p.read_bytes()).text
        except Exception as e:
            out[str(p.relative_to(root))] = f'ERR {type(e).__name__}'
pickle.dump(out, open(sys.argv[1], 'wb'))
print(len(out))
