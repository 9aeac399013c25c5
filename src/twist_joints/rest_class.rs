//! Rest classes: the joints of a skin whose skinning matrices at rest agree. Weight moved
//! between joints of one class leaves the rest mesh where it was, also on a rig whose rest pose
//! is not its bind pose.

use glam::{DMat4, Mat4};

use super::layout::Plan;
use crate::anim::Pose;
use crate::scene::Scene;

/// Skinning matrices at rest closer than this (rotation entries; translations over the rest
/// diagonal) count as equal.
const SAME_REST: f64 = 5e-7;

/// Per skin of `scene`, each joint's rest class (equal indices: equal rest matrices).
pub(super) fn rest_classes(scene: &Scene) -> Vec<Vec<usize>> {
    let rest = Pose::rest(scene);
    let diagonal = f64::from(
        crate::skin::rest_bounds(scene).map_or(1.0, |(lo, hi)| lo.distance(hi).max(1e-6)),
    );
    scene
        .skins
        .iter()
        .map(|skin| {
            let matrices: Vec<DMat4> = skin
                .joints
                .iter()
                .enumerate()
                .map(|(j, &node)| {
                    let ibm = skin.inverse_bind.get(j).copied().unwrap_or(Mat4::IDENTITY);
                    let global = rest.global.get(node).copied().unwrap_or(Mat4::IDENTITY);
                    global.as_dmat4() * ibm.as_dmat4()
                })
                .collect();
            // Each joint joins the class of the first earlier leader it matches.
            let mut leaders: Vec<usize> = Vec::new();
            (0..matrices.len())
                .map(|j| {
                    let same = |&l: &usize| same_matrix(&matrices[j], &matrices[l], diagonal);
                    leaders.iter().position(same).unwrap_or_else(|| {
                        leaders.push(j);
                        leaders.len() - 1
                    })
                })
                .collect()
        })
        .collect()
}

/// Whether two rest skinning matrices count as equal (see [`SAME_REST`]).
fn same_matrix(a: &DMat4, b: &DMat4, diagonal: f64) -> bool {
    let d = *a - *b;
    let rot = [d.x_axis, d.y_axis, d.z_axis]
        .iter()
        .map(|c| c.truncate().abs().max_element())
        .fold(0.0, f64::max);
    let shift = d.w_axis.truncate().abs().max_element() / diagonal;
    rot.max(shift) <= SAME_REST
}

/// Whether joints `a` and `b` are in different rest classes of some skin that holds both.
pub(super) fn classes_differ(scene: &Scene, classes: &[Vec<usize>], a: usize, b: usize) -> bool {
    scene.skins.iter().zip(classes).any(|(skin, class)| {
        let of = |node: usize| {
            let j = skin.joints.iter().position(|&n| n == node)?;
            class.get(j).copied()
        };
        matches!((of(a), of(b)), (Some(x), Some(y)) if x != y)
    })
}

/// The classes of `base` (the input) extended to the joints the plan appended to each skin of
/// `out`: a weighted helper is in the class of the joint it is bound like (its inverse bind
/// makes its rest matrix that joint's); an unweighted one in none (`usize::MAX`).
pub(super) fn with_helpers(
    base: &Scene,
    out: &Scene,
    plan: &Plan,
    classes: Vec<Vec<usize>>,
) -> Vec<Vec<usize>> {
    classes
        .into_iter()
        .enumerate()
        .map(|(s, mut class)| {
            let (Some(skin_in), Some(skin_out)) = (base.skins.get(s), out.skins.get(s)) else {
                return class;
            };
            for &node in skin_out.joints.iter().skip(class.len()) {
                let bound_like = plan
                    .roll_joints
                    .iter()
                    .find(|rj| rj.node == node)
                    .and_then(|rj| rj.takes_from)
                    .and_then(|from| skin_in.joints.iter().position(|&n| n == from))
                    .and_then(|j| class.get(j).copied());
                class.push(bound_like.unwrap_or(usize::MAX));
            }
            class
        })
        .collect()
}
