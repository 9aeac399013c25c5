//! The new influences: in the blend of each junction (vertices weighted on both P and K), P's
//! weight moves onto the parent family and K's onto the joint family, both at K's share of
//! the blend, so both parts turn by that share of K's twist; every other weight is untouched.

use super::layout::{ITSELF, Junction, Plan};
use crate::influences::Influences;
use crate::scene::Scene;

/// Rewrites the influences of every mesh skinned by a skin that holds a junction's joints.
pub(super) fn redistribute(scene: &mut Scene, plan: &Plan, max_influences: usize) {
    let mut done = Vec::new();
    for n in 0..scene.nodes.len() {
        let (Some(m), Some(s)) = (scene.nodes[n].mesh, scene.nodes[n].skin) else {
            continue;
        };
        if done.contains(&m) {
            continue;
        }
        done.push(m);
        let stations: Vec<Stations> = plan
            .junctions
            .iter()
            .filter_map(|j| Stations::of(scene, plan, j, s))
            .collect();
        if stations.is_empty() {
            continue;
        }
        let Some(mesh) = scene.meshes.get_mut(m) else {
            continue;
        };
        for prim in &mut mesh.primitives {
            let Some(influences) = prim.influences.as_ref() else {
                continue;
            };
            let rows: Vec<Vec<(u16, f32)>> = influences
                .iter()
                .map(|row| {
                    let mut row: Vec<(u16, f32)> =
                        row.iter().map(|i| (i.joint, i.weight)).collect();
                    for st in &stations {
                        st.spread(&mut row, max_influences);
                    }
                    prune(row, max_influences)
                })
                .collect();
            prim.influences = Some(Influences::from_rows(rows));
        }
    }
}

/// One junction's stations as skin joint indices of one skin.
struct Stations {
    /// K's skin index.
    joint: u16,
    /// P's skin index.
    parent: u16,
    /// Skin indices of K and the joints below it: the weights that turn with K's twist.
    follows_joint: Vec<u16>,
    /// (share, skin index) for K's weight, ascending, K itself last.
    joint_stations: Vec<(f32, u16)>,
    /// (share, skin index) for P's weight, ascending, P itself first.
    parent_stations: Vec<(f32, u16)>,
}

impl Stations {
    /// The stations of `junction` in skin `skin`, when the skin holds K, P and their nodes.
    fn of(scene: &Scene, plan: &Plan, junction: &Junction, skin: usize) -> Option<Self> {
        let skin = scene.skins.get(skin)?;
        let index = |node: usize| {
            skin.joints
                .iter()
                .position(|&n| n == node)
                .and_then(|i| u16::try_from(i).ok())
        };
        let joint = index(junction.joint)?;
        let parent = index(junction.parent)?;
        let follows_joint = (0..skin.joints.len())
            .filter(|&j| is_at_or_below(scene, skin.joints[j], junction.joint))
            .filter_map(|j| u16::try_from(j).ok())
            .collect();
        let map = |list: &[(f32, usize)], itself: u16| -> Option<Vec<(f32, u16)>> {
            list.iter()
                .map(|&(share, at)| {
                    let i = if at == ITSELF {
                        itself
                    } else {
                        index(plan.roll_joints[at].node)?
                    };
                    Some((share, i))
                })
                .collect()
        };
        Some(Self {
            joint,
            parent,
            follows_joint,
            joint_stations: map(&junction.joint_stations, joint)?,
            parent_stations: map(&junction.parent_stations, parent)?,
        })
    }

    /// Moves the row's weights on P and K onto the stations at K's share of the two, within
    /// `max` influences: where splitting both would pass it, the lighter part goes whole to
    /// its nearer station (at rest every station equals P or K, so the rest pose holds).
    fn spread(&self, row: &mut Vec<(u16, f32)>, max: usize) {
        let weight_on = |row: &[(u16, f32)], j: u16| {
            row.iter()
                .filter(|(i, _)| *i == j)
                .map(|(_, w)| w)
                .sum::<f32>()
        };
        let (w_joint, w_parent) = (weight_on(row, self.joint), weight_on(row, self.parent));
        let following: f32 = row
            .iter()
            .filter(|(i, _)| self.follows_joint.contains(i))
            .map(|(_, w)| w)
            .sum();
        let total: f32 = row.iter().map(|(_, w)| w).sum();
        if w_parent <= 0.0 || following <= 0.0 || total <= 0.0 {
            return;
        }
        // The share of the vertex that turns with K (K and the joints below it), as CoR and
        // DQS turn it; K's own weight and P's both go there.
        let share = (following / total).clamp(0.0, 1.0);
        row.retain(|(i, _)| *i != self.joint && *i != self.parent);
        let mut parts = [
            split(&self.parent_stations, share, w_parent),
            if w_joint > 0.0 {
                split(&self.joint_stations, share, w_joint)
            } else {
                Vec::new()
            },
        ];
        let budget = max.saturating_sub(row.len()).max(2);
        let mut lighter = if w_parent <= w_joint { [0, 1] } else { [1, 0] }.into_iter();
        while parts[0].len() + parts[1].len() > budget {
            let Some(k) = lighter.next() else { break };
            parts[k] = whole_on_nearest(&parts[k]);
        }
        row.extend(parts.into_iter().flatten());
    }
}

/// Whether `node` is `top` or below it.
fn is_at_or_below(scene: &Scene, node: usize, top: usize) -> bool {
    let mut at = Some(node);
    let mut steps = 0;
    while let Some(n) = at {
        if n == top {
            return true;
        }
        steps += 1;
        if steps > scene.nodes.len() {
            return false;
        }
        at = scene.nodes.get(n).and_then(|x| x.parent);
    }
    false
}

/// A split part put whole on its heavier station.
fn whole_on_nearest(part: &[(u16, f32)]) -> Vec<(u16, f32)> {
    let total: f32 = part.iter().map(|(_, w)| w).sum();
    part.iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|&(j, _)| vec![(j, total)])
        .unwrap_or_default()
}

/// `weight` shared by the two stations around `at`, linearly (before the first or past the
/// last, all on it).
fn split(stations: &[(f32, u16)], at: f32, weight: f32) -> Vec<(u16, f32)> {
    let (Some(&(first_at, first)), Some(&(_, last))) = (stations.first(), stations.last()) else {
        return Vec::new();
    };
    if at <= first_at {
        return vec![(first, weight)];
    }
    for pair in stations.windows(2) {
        let ((a, ja), (b, jb)) = (pair[0], pair[1]);
        if at <= b {
            let t = if b > a {
                ((at - a) / (b - a)).clamp(0.0, 1.0)
            } else {
                1.0
            };
            return [(ja, weight * (1.0 - t)), (jb, weight * t)]
                .into_iter()
                .filter(|(_, w)| *w > 0.0)
                .collect();
        }
    }
    vec![(last, weight)]
}

/// The row's heaviest `max` influences (duplicates merged), as the loader keeps them.
fn prune(mut row: Vec<(u16, f32)>, max: usize) -> Vec<(u16, f32)> {
    row.sort_by_key(|(j, _)| *j);
    row.dedup_by(|b, a| {
        if a.0 == b.0 {
            a.1 += b.1;
            true
        } else {
            false
        }
    });
    row.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    row.truncate(max);
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_a_partition_of_unity_between_neighbours() {
        let st = [(0.0, 7), (0.5, 8), (1.0, 9)];
        assert_eq!(split(&st, 0.0, 1.0), vec![(7, 1.0)]);
        assert_eq!(split(&st, 0.25, 0.8), vec![(7, 0.4), (8, 0.4)]);
        assert_eq!(split(&st, 0.875, 1.0), vec![(8, 0.25), (9, 0.75)]);
        assert_eq!(split(&st, 1.0, 1.0), vec![(9, 1.0)]);
        assert_eq!(split(&[(0.5, 3), (1.0, 4)], 0.2, 1.0), vec![(3, 1.0)]);
    }

    #[test]
    fn prune_merges_keeps_the_heaviest() {
        let row = vec![(1, 0.1), (2, 0.2), (1, 0.3), (3, 0.05), (4, 0.35)];
        assert_eq!(
            prune(row.clone(), 8),
            vec![(1, 0.4), (4, 0.35), (2, 0.2), (3, 0.05)]
        );
        assert_eq!(prune(row, 2), vec![(1, 0.4), (4, 0.35)]);
    }
}
