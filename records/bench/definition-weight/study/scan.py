"""scan.py I N: each rule weight (tune.WEIGHTS[i::N]) x FACTORS varied alone from today's main, decoded over the
cascade-off captures with the cascade simulated (casc.decode) for questions asked alone; F1 per part."""
import os, sys
sys.path.insert(0, os.getcwd())
import tune, casc
import evaluate as ev

def decode_all():
    out = {}
    for name, (caps, rows) in tune.DATA.items():
        for key, r in rows.items():
            c = caps.get((*key, "alone"))
            out[(name, *key, "alone")] = "" if c is None else casc.decode(c, casc.main_policy)[0]
            c = caps.get((*key, "given"))
            out[(name, *key, "given")] = "" if c is None else ev.decode(c, c["reading"].bias)[0]
    return out

if __name__ != "__main__":
    pass
else:
  i, n = int(sys.argv[1]), int(sys.argv[2])
  if i == 0:
      tune.show("base", tune.parts(decode_all()))
  for mod, name in tune.WEIGHTS[i::n]:
      orig = getattr(tune.MODS[mod], name)
      if not orig:
          continue
      for f in (0.0, 0.5, 1.5, 2.0):
          setattr(tune.MODS[mod], name, orig * f)
          tune.show(f"{name}={orig * f:g}", tune.parts(decode_all()))
      setattr(tune.MODS[mod], name, orig)
