//! `dqview export`: the posed mesh in world space as OBJ or GLB.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::PoseArgs;
use crate::anim::Pose;
use crate::render::{GpuContext, GpuSkinning, RenderSettings, Renderer, SkinRun, skin_scene_gpu};
use crate::scene::{Mesh, Node, Primitive, Scene, Topology, write_glb};
use crate::skin::{
    Betas, PosedPrimitive, SkinningMode, skin_scene, skin_scene_cor, skin_scene_dqs_compensated,
    skin_scene_hybrid,
};

/// Poses `model` as `args` say and writes it to `out` (.obj or .glb); `gpu` reads back the compute pass.
pub fn run(
    model: &str,
    out: &Path,
    args: &PoseArgs,
    gpu: bool,
    load: &super::LoadArgs,
) -> Result<()> {
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ext != "obj" && ext != "glb" {
        bail!("--out must end in .obj or .glb, got {}", out.display());
    }
    let scene = super::load(model, load)?;
    let pose_args = args.resolve(&scene)?;
    let mut pose = Pose::rest(&scene);
    pose.sample(
        &scene,
        pose_args.clip,
        pose_args.time_s,
        &pose_args.overrides,
    );
    let amount = args.cor.bulge_amount()?;
    let mode = pose_args.mode;
    if amount > 0.0 && mode != SkinningMode::Dqs {
        bail!("--bulge-compensation corrects DQS only; add --mode dqs (the mode is {mode})");
    }
    let centers = match mode {
        SkinningMode::Cor => Some(args.cor.centers(&scene)?),
        _ => {
            let why = format!("the mode is {mode} (CoR needs --mode cor)");
            super::flag_rules::refuse_cor_precompute(&args.cor, &why)?;
            None
        }
    };
    let ddm = match mode {
        SkinningMode::Ddm => Some(args.ddm.compute(&scene)?),
        _ => {
            let why = format!("the mode is {mode} (DDM needs --mode ddm)");
            args.ddm.refuse_unused(&why)?;
            None
        }
    };
    let dm = match mode {
        SkinningMode::Dm => Some(args.dm.compute(&scene)?),
        _ => {
            let why = format!("the mode is {mode} (DM needs --mode dm)");
            args.dm.refuse_unused(&why)?;
            None
        }
    };
    // One rule for the hybrid's betas (the file's map as stored, flags where it has none,
    // --beta over both); other modes have no betas, so --beta cannot take effect there.
    let betas = match mode {
        SkinningMode::Hybrid => {
            let hybrid = pose_args.hybrid_betas(&scene, false);
            if let Some(notice) = &hybrid.notice {
                eprintln!("dqview: {notice}");
            }
            Some(hybrid.betas)
        }
        _ if pose_args.beta.is_some() => {
            bail!("--beta sets the hybrid's betas; add --mode hybrid (the mode is {mode})")
        }
        _ => None,
    };
    let posed = if gpu {
        let ctx = GpuContext::headless()?;
        let renderer = Renderer::without_prebuild(&ctx, RenderSettings::default())?;
        let skinning = GpuSkinning {
            run: SkinRun {
                mode,
                beta: 1.0,
                bulge: amount,
            },
            cor_centers: centers.as_ref(),
            ddm: ddm.as_ref(),
            dm: dm.as_ref(),
            betas: betas.as_ref(),
        };
        skin_scene_gpu(&ctx, &renderer, &scene, &pose, &skinning)?
    } else if let Some(centers) = &centers {
        skin_scene_cor(&scene, &pose, centers)
    } else if let Some(ddm) = &ddm {
        crate::skin::ddm::skin_scene_ddm(&scene, &pose, ddm)
    } else if let Some(dm) = &dm {
        crate::skin::dm::skin_scene_dm(&scene, &pose, dm)
    } else if amount > 0.0 {
        skin_scene_dqs_compensated(&scene, &pose, amount)
    } else if let Some(betas) = &betas {
        skin_scene_hybrid(&scene, &pose, mode, betas, 1.0)
    } else {
        skin_scene(&scene, &pose, mode, Betas::Uniform(1.0))
    };
    let bytes = if ext == "obj" {
        to_obj(&scene, &posed).into_bytes()
    } else {
        write_glb(&posed_scene(&scene, &posed))?
    };
    std::fs::write(out, bytes).with_context(|| format!("cannot write {}", out.display()))?;
    let vertices: usize = posed.iter().map(|p| p.vertices.positions.len()).sum();
    let path = if gpu { "GPU compute" } else { "CPU reference" };
    println!(
        "wrote {} ({} primitives, {vertices} vertices, {}, {path})",
        out.display(),
        posed.len(),
        pose_args.mode
    );
    Ok(())
}

/// OBJ text: one `o node<N>_mesh<M>_prim<P>` group per primitive, `v`, `vn`, then `f v//vn`
/// faces (`l a b` line and `p a` point elements for USD curves and points).
#[must_use]
pub fn to_obj(scene: &Scene, posed: &[PosedPrimitive]) -> String {
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
        let has_normals = p.vertices.normals.len() == p.vertices.positions.len();
        let (indices, topology) = source_primitive(scene, p)
            .map_or((&[][..], Topology::Triangles), |pr| {
                (&pr.indices[..], pr.topology)
            });
        for element in indices.chunks_exact(topology.arity()) {
            let ids = element.iter().map(|&i| i as usize + base);
            let _ = match topology {
                Topology::Triangles if has_normals => {
                    let [a, b, c] = [element[0], element[1], element[2]].map(|i| i as usize + base);
                    writeln!(s, "f {a}//{a} {b}//{b} {c}//{c}")
                }
                Topology::Triangles => obj_element(&mut s, "f", ids),
                Topology::Lines => obj_element(&mut s, "l", ids),
                Topology::Points => obj_element(&mut s, "p", ids),
            };
        }
        base += p.vertices.positions.len();
    }
    s
}

/// One OBJ element line: `tag` and its 1-based vertex numbers.
fn obj_element(s: &mut String, tag: &str, ids: impl Iterator<Item = usize>) -> std::fmt::Result {
    s.push_str(tag);
    for i in ids {
        write!(s, " {i}")?;
    }
    s.push('\n');
    Ok(())
}

/// A static scene of the posed meshes: one root node per primitive, materials and textures kept.
#[must_use]
pub fn posed_scene(scene: &Scene, posed: &[PosedPrimitive]) -> Scene {
    let mut out = Scene {
        source: format!("{} (posed)", scene.source),
        materials: scene.materials.clone(),
        textures: scene.textures.clone(),
        ..Scene::default()
    };
    for p in posed {
        let Some(src) = source_primitive(scene, p) else {
            continue;
        };
        let name = format!("node{}_mesh{}_prim{}", p.node, p.mesh, p.primitive);
        out.meshes.push(Mesh {
            name: name.clone(),
            primitives: vec![Primitive {
                positions: p.vertices.positions.clone(),
                normals: p.vertices.normals.clone(),
                tangents: (p.vertices.tangents.len() == p.vertices.positions.len()
                    && !p.vertices.tangents.is_empty())
                .then(|| p.vertices.tangents.clone()),
                uvs: src.uvs.clone(),
                indices: src.indices.clone(),
                topology: src.topology,
                material: src.material,
                ..Primitive::default()
            }],
            morph_weights: Vec::new(),
        });
        out.roots.push(out.nodes.len());
        out.nodes.push(Node {
            name,
            mesh: Some(out.meshes.len() - 1),
            ..Node::default()
        });
    }
    out
}

/// The scene primitive a posed primitive came from.
fn source_primitive<'s>(scene: &'s Scene, p: &PosedPrimitive) -> Option<&'s Primitive> {
    scene
        .meshes
        .get(p.mesh)
        .and_then(|m| m.primitives.get(p.primitive))
}
