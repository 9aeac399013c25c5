# libigl 2.5.1's Direct Delta Mush (variant 0) on a welded surface dqview wrote as JSON:
# python3 ddm_libigl.py IN.json OUT.json. IN: V (n x 3), F (t x 3), W (n x m), T (m x 4 x 4,
# column-major skinning matrices), p, lambda, kappa, alpha. OUT: U (n x 3), the posed vertices.
import json, sys
import numpy as np
import igl

d = json.load(open(sys.argv[1]))
v = np.array(d["V"], dtype=np.float64)
f = np.array(d["F"], dtype=np.int64)
w = np.array(d["W"], dtype=np.float64)
omega = igl.direct_delta_mush_precomputation(v, f, w, d["p"], d["lambda"], d["kappa"], d["alpha"])
# libigl's bone transforms: per bone 4 rows of 3, the transposed affine matrix (v' = [v 1] T).
t = []
for m in d["T"]:
    m = np.array(m, dtype=np.float64).reshape(4, 4).T  # column-major in, row-major here
    t.append(m[:3, :].T)
u = igl.direct_delta_mush(v, np.vstack(t), omega)
json.dump({"U": np.asarray(u).tolist()}, open(sys.argv[2], "w"))
