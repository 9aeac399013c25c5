//! Pixar's own UsdSkel evaluation of a test stage (`python3` with `pxr`, usd-core), for comparing
//! dqview's posed points with USD's: skinning transforms, blend shapes (inbetweens included)
//! and `SkinningQuery.ComputeSkinnedPoints`, in the stage's world space.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use glam::Vec3;

/// Every skinned prim's posed points at a time code, and the stage's metersPerUnit.
const PXR_SKIN: &str = r#"
import json, sys
from pxr import Usd, UsdGeom, UsdSkel, Gf
stage = Usd.Stage.Open(sys.argv[1])
t = Usd.TimeCode(float(sys.argv[2]))
out = {}
cache = UsdSkel.Cache()
for prim in stage.Traverse():
    if not prim.IsA(UsdSkel.Root):
        continue
    root = UsdSkel.Root(prim)
    cache.Populate(root, Usd.PrimDefaultPredicate)
    for b in cache.ComputeSkelBindings(root, Usd.PrimDefaultPredicate):
        skelq = cache.GetSkelQuery(b.GetSkeleton())
        xf = skelq.ComputeSkinningTransforms(t)
        l2w = UsdGeom.Xformable(b.GetSkeleton().GetPrim()).ComputeLocalToWorldTransform(t)
        animq = skelq.GetAnimQuery()
        for target in b.GetSkinningTargets():
            p = target.GetPrim()
            pts = UsdGeom.PointBased(p).GetPointsAttr().Get(t)
            if target.HasBlendShapes() and animq:
                w = target.GetBlendShapeMapper().Remap(animq.ComputeBlendShapeWeights(t))
                bsq = UsdSkel.BlendShapeQuery(UsdSkel.BindingAPI(p))
                sub, img, subi = bsq.ComputeSubShapeWeights(w)
                bsq.ComputeDeformedPoints(sub, img, subi, bsq.ComputeBlendShapePointIndices(),
                                          bsq.ComputeSubShapePointOffsets(), pts)
            if not target.ComputeSkinnedPoints(xf, pts, t):
                raise SystemExit(f"{p.GetPath()}: not skinned")
            out[str(p.GetPath())] = [list(l2w.Transform(Gf.Vec3d(q))) for q in pts]
print(json.dumps({"meters": UsdGeom.GetStageMetersPerUnit(stage), "points": out}))
"#;

/// Whether python3 can import pxr; `false` (a skip) when not, failing where data is required.
pub fn pxr_available(test: &str) -> bool {
    python_module_available(test, "pxr", "usd-core==26.11")
}

/// Whether python3 can import `module` (from PyPI's `package`); `false` (a skip) when not,
/// failing where data is required.
pub fn python_module_available(test: &str, module: &str, package: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("DQVIEW_REQUIRE_DATA").is_none(),
            "{test}: python3 cannot import {module} (pip install {package}), and DQVIEW_REQUIRE_DATA is set"
        );
        eprintln!("SKIPPED {test}: python3 cannot import {module}");
    }
    ok
}

/// Pixar's evaluation of `stage` at time code `code`: metersPerUnit, and each skinned prim's
/// world-space points by prim path.
pub fn pxr_skinned_points(stage: &Path, code: f64) -> (f64, BTreeMap<String, Vec<Vec3>>) {
    let out = Command::new("python3")
        .args(["-c", PXR_SKIN])
        .arg(stage)
        .arg(code.to_string())
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "pxr on {}: {}",
        stage.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("pxr json");
    let meters = json["meters"].as_f64().expect("meters");
    let points = json["points"]
        .as_object()
        .expect("points")
        .iter()
        .map(|(path, pts)| {
            let pts = pts
                .as_array()
                .expect("point list")
                .iter()
                .map(|p| {
                    let c = |i: usize| p[i].as_f64().expect("coordinate") as f32;
                    Vec3::new(c(0), c(1), c(2))
                })
                .collect();
            (path.clone(), pts)
        })
        .collect();
    (meters, points)
}
