//! `dqview export`: the posed mesh in world space as OBJ.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::PoseArgs;
use crate::anim::Pose;
use crate::skin::{Betas, PosedPrimitive, skin_scene};

/// Poses `model` as `args` say and writes it to `out` (OBJ).
pub fn run(model: &str, out: &Path, args: &PoseArgs) -> Result<()> {
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ext != "obj" {
        bail!("--out must end in .obj, got {}", out.display());
    }
    let scene = super::load(model)?;
    let pose_args = args.resolve(&scene)?;
    let mut pose = Pose::rest(&scene);
    pose.sample(
        &scene,
        pose_args.clip,
        pose_args.time_s,
        &pose_args.overrides,
    );
    let posed = skin_scene(
        &scene,
        &pose,
        pose_args.mode,
        Betas::Uniform(pose_args.beta),
    );
    let text = to_obj(&scene, &posed);
    std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
    let vertices: usize = posed.iter().map(|p| p.vertices.positions.len()).sum();
    println!(
        "wrote {} ({} primitives, {vertices} vertices, {})",
        out.display(),
        posed.len(),
        pose_args.mode
    );
    Ok(())
}

/// OBJ text: one `o node<N>_mesh<M>_prim<P>` group per primitive, `v`, `vn`, then `f v//vn` faces.
#[must_use]
pub fn to_obj(scene: &crate::scene::Scene, posed: &[PosedPrimitive]) -> String {
    let mut s = String::from("# dqview export\n");
    let mut base = 1usize;
    for p in posed {
        let _ = writeln!(s, "o node{}_mesh{}_prim{}", p.node, p.mesh, p.primitive);
        for v in &p.vertices.positions {
            let _ = writeln!(s, "v {} {} {}", v.x, v.y, v.z);
        }
        for n in &p.vertices.normals {
            let _ = writeln!(s, "vn {} {} {}", n.x, n.y, n.z);
        }
        let prim = scene
            .meshes
            .get(p.mesh)
            .and_then(|m| m.primitives.get(p.primitive));
        let has_normals = p.vertices.normals.len() == p.vertices.positions.len();
        for tri in prim.map_or(&[][..], |pr| &pr.indices[..]).chunks_exact(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| i as usize + base);
            if has_normals {
                let _ = writeln!(s, "f {a}//{a} {b}//{b} {c}//{c}");
            } else {
                let _ = writeln!(s, "f {a} {b} {c}");
            }
        }
        base += p.vertices.positions.len();
    }
    s
}
