//! Non-finite numbers a USD file may hold, found once at load so no output holds one: each
//! kind at each place becomes a [`DataFault`] of the scene. Vertices without a finite position
//! are drawn nowhere (see `scene::unplaced`); normals become smooth ones, other vertex values
//! and offsets 0, matrices the identity, key values the previous key's (identity for the first).

use glam::{Vec2, Vec3};

use crate::scene::unplaced::{drop_elements_using, non_finite_vertices, twin_unplaced};
use crate::scene::{DataFault, FaultKind, NodeTransform, Primitive, Property, Scene, Trs};

/// Replaces every non-finite number of `scene`, adding a fault per kind and place; returns how
/// many values were replaced.
pub(super) fn sanitize(scene: &mut Scene) -> usize {
    let mut faults = Vec::new();
    for mesh in &mut scene.meshes {
        for (p, prim) in mesh.primitives.iter_mut().enumerate() {
            let place = format!("mesh {:?} primitive {p}", mesh.name);
            sanitize_primitive(prim, &place, &mut faults);
        }
    }
    for skin in &mut scene.skins {
        let place = format!("skin {:?}", skin.name);
        let (fixed, found) =
            crate::scene::faults::checked_binds(std::mem::take(&mut skin.inverse_bind), &place);
        skin.inverse_bind = fixed;
        faults.extend(found);
    }
    faults.extend(sanitize_nodes(scene));
    faults.extend(sanitize_keys(scene));
    let replaced = faults.iter().map(|f| f.count).sum();
    scene.faults.extend(faults);
    replaced
}

/// The positions, normals, texture coordinates and morph offsets of one primitive.
fn sanitize_primitive(prim: &mut Primitive, place: &str, faults: &mut Vec<DataFault>) {
    let unplaced = non_finite_vertices(&prim.positions);
    if !unplaced.is_empty() {
        let arity = prim.topology.arity();
        let dropped = drop_elements_using(&mut prim.indices, arity, &unplaced);
        twin_unplaced(prim, &unplaced);
        let element = prim.topology.name();
        let fault = crate::scene::unplaced::unplaced_fault(place, &unplaced, dropped, element);
        faults.push(fault);
    }
    let (n, first) = fix_vec3s(&mut prim.normals, Vec3::Y);
    push(
        faults,
        FaultKind::NonFiniteNormals,
        place,
        n,
        first,
        "set to +Y",
    );
    if let Some(uvs) = &mut prim.uvs {
        let first = uvs.iter().position(|uv| !uv.is_finite());
        let mut n = 0;
        for uv in uvs.iter_mut().filter(|uv| !uv.is_finite()) {
            *uv = Vec2::ZERO;
            n += 1;
        }
        push(
            faults,
            FaultKind::NonFiniteTexCoords,
            place,
            n,
            first,
            "set to 0",
        );
    }
    let (mut n, mut first) = (0, None);
    for target in &mut prim.morph_targets {
        for values in [&mut target.positions, &mut target.normals] {
            let (k, f) = fix_vec3s(values, Vec3::ZERO);
            n += k;
            first = first.or(f);
        }
    }
    push(
        faults,
        FaultKind::NonFiniteMorphDeltas,
        place,
        n,
        first,
        "set to 0",
    );
}

/// Node transforms (joint rest transforms included) with a non-finite value, made the identity.
fn sanitize_nodes(scene: &mut Scene) -> Option<DataFault> {
    let (mut n, mut first) = (0, None);
    for (i, node) in scene.nodes.iter_mut().enumerate() {
        let bad = match node.transform {
            NodeTransform::Trs(t) => {
                !(t.translation.is_finite() && t.rotation.is_finite() && t.scale.is_finite())
            }
            NodeTransform::Matrix(m) => !m.is_finite(),
        };
        if bad {
            node.transform = NodeTransform::Trs(Trs::IDENTITY);
            n += 1;
            first.get_or_insert(i);
        }
    }
    let kind = FaultKind::NonFiniteNodeTransforms;
    (n > 0).then(|| DataFault::new(kind, "nodes", n, first, "replaced by the identity"))
}

/// Key times and values of every channel: times clamped to the previous, values the previous
/// key's (the identity for the first key).
fn sanitize_keys(scene: &mut Scene) -> Vec<DataFault> {
    let mut faults = Vec::new();
    for anim in &mut scene.animations {
        for (c, channel) in anim.channels.iter_mut().enumerate() {
            let place = format!("animation {:?} channel {c}", anim.name);
            let first = channel.times_s.iter().position(|t| !t.is_finite());
            let mut n = 0;
            let mut last = f32::MIN;
            for t in &mut channel.times_s {
                if !t.is_finite() {
                    *t = last.max(0.0);
                    n += 1;
                }
                // Times must not go backwards.
                *t = t.max(last);
                last = *t;
            }
            let action = "clamped to the previous key's time";
            push(
                &mut faults,
                FaultKind::NonFiniteKeyTimes,
                &place,
                n,
                first,
                action,
            );
            let (n, first) = fix_values(&mut channel.values, channel.property);
            let action = "replaced by the previous key's value (identity for the first key)";
            push(
                &mut faults,
                FaultKind::NonFiniteKeyValues,
                &place,
                n,
                first,
                action,
            );
        }
    }
    faults
}

/// Replaces non-finite components by the previous key's, or the identity's for the first key;
/// returns how many and the first key that had one.
fn fix_values(values: &mut [f32], property: Property) -> (usize, Option<usize>) {
    let identity: &[f32] = match property {
        Property::Rotation => &[0.0, 0.0, 0.0, 1.0],
        Property::Scale => &[1.0, 1.0, 1.0],
        Property::Translation => &[0.0, 0.0, 0.0],
        Property::MorphWeights(_) => &[0.0],
    };
    let width = match property {
        Property::MorphWeights(n) => n.max(1),
        _ => identity.len(),
    };
    let (mut n, mut first) = (0, None);
    for i in 0..values.len() {
        if values[i].is_finite() {
            continue;
        }
        values[i] = match i.checked_sub(width) {
            Some(previous) => values[previous],
            None => identity[i % identity.len()],
        };
        n += 1;
        first.get_or_insert(i / width);
    }
    (n, first)
}

/// Adds a fault of `kind` when `count` is not 0.
fn push(
    faults: &mut Vec<DataFault>,
    kind: FaultKind,
    place: &str,
    count: usize,
    first: Option<usize>,
    action: &str,
) {
    if count > 0 {
        faults.push(DataFault::new(kind, place, count, first, action));
    }
}

/// Replaces non-finite vectors by `fallback`; returns how many and the first index.
fn fix_vec3s(values: &mut [Vec3], fallback: Vec3) -> (usize, Option<usize>) {
    let first = values.iter().position(|v| !v.is_finite());
    let mut n = 0;
    for v in values.iter_mut().filter(|v| !v.is_finite()) {
        *v = fallback;
        n += 1;
    }
    (n, first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nan_rotation_takes_the_previous_key_and_the_first_the_identity() {
        let mut v = [f32::NAN, 0.0, 0.0, 1.0, 0.0, 0.6, f32::NAN, 0.8];
        assert_eq!(fix_values(&mut v, Property::Rotation), (2, Some(0)));
        assert_eq!(v, [0.0, 0.0, 0.0, 1.0, 0.0, 0.6, 0.0, 0.8]);
    }
}
