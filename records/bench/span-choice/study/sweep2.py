import sys; sys.path.insert(0, "/work/study")
import sweep as S
S.bias_of = S.bias_of  # module-level override used by run
for k, vals in (("lp", [0.5, 1, 2, 4]), ("mg", [0.25, 0.5, 1])):
    for v in vals:
        print(k, v, S.run({**S.BASE, k: v}), flush=True)
