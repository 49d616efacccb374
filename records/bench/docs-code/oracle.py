import json, re, sys
from pathlib import Path
from lxml import html as H
root = Path('build/docs-bench')
def codes(path):
    p = None
    for s in ('requests','npm','git','pam'):
        c = root/s/'corpus'/path
        if c.exists(): p = c
    t = p.read_text(errors='replace')
    out = set()
    if p.suffix == '.md':
        for m in re.finditer(r'`([^`\n]+)`', t): out.add(m.group(1).strip())
    else:
        doc = H.fromstring(p.read_bytes())
        for el in doc.iter('code','tt','kbd','samp','var'):
            out.add(el.text_content().strip())
        for el in doc.xpath('//*[contains(@class,"literal") or contains(@class,"pre") or contains(@class,"option") or contains(@class,"parameter") or contains(@class,"command") or contains(@class,"filename") or contains(@class,"varname") or contains(@class,"function") or contains(@class,"term")]'):
            out.add(el.text_content().strip())
        for el in doc.xpath('//dt'): out.add(el.text_content().strip())
    return out
def norm(s): return re.sub(r'\s+',' ',s.strip().strip('`').rstrip('()').lower())
for f in sys.argv[1:]:
    d = json.load(open(f))
    tot=gold_code=given_code=wrong_noncode_goldcode=0
    for s in d['sets']:
        for r in s['rows']:
            cs = {norm(c) for c in codes(r['file'])}
            g = any(norm(a) in cs for a in r['answers'])
            a = norm(r['answer_right_passage'] or '') in cs
            tot+=1; gold_code+=g; given_code+=a
            if g and not a and r['f1_given']<0.99: wrong_noncode_goldcode+=1; print(' ', r['id'], r['kind'], r['answers'][0], '|', r['answer_right_passage'][:40])
            if not g and a and r['f1_given']>0.5: print(' !', r['id'], r['kind'], r['answers'][0], '|', r['answer_right_passage'][:40])
    print(f, tot, 'gold is code', gold_code, 'given is code', given_code, 'fixable', wrong_noncode_goldcode)
