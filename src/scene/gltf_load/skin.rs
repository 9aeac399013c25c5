//! Skins: joint node lists, inverse bind matrices and skeleton roots.

use glam::Mat4;

use super::accessor;
use super::source::Data;
use crate::scene::{SceneError, Skin};

/// Converts every skin, checking node references and the inverse bind matrix count.
pub(super) fn load_skins(data: &Data<'_>) -> Result<Vec<Skin>, SceneError> {
    let node_count = data.json.nodes.len();
    let node_ref = |skin: usize, what: &str, node: usize| {
        if node < node_count {
            Ok(node)
        } else {
            Err(SceneError::IndexOutOfRange {
                referrer: format!("skin {skin} ({what})"),
                kind: "node",
                index: node,
                count: node_count,
            })
        }
    };
    let joint_total = data
        .json
        .skins
        .iter()
        .fold(0u64, |sum, s| sum.saturating_add(s.joints.len() as u64));
    if joint_total > data.options.max_joints {
        return Err(SceneError::LimitExceeded {
            what: "joints (summed over skins)",
            found: joint_total,
            limit: data.options.max_joints,
            flag: "--max-joints",
            field: "max_joints",
        });
    }
    let mut skins = Vec::with_capacity(data.json.skins.len());
    for (s, skin) in data.json.skins.iter().enumerate() {
        let joints = skin
            .joints
            .iter()
            .map(|j| node_ref(s, "joints", j.value()))
            .collect::<Result<Vec<_>, _>>()?;
        let skeleton = skin
            .skeleton
            .map(|n| node_ref(s, "skeleton", n.value()))
            .transpose()?;
        let inverse_bind = match skin.inverse_bind_matrices.map(|i| i.value()) {
            None => vec![Mat4::IDENTITY; joints.len()],
            Some(index) => {
                let acc = data.accessor(index, &accessor::MAT4_F32, &|| {
                    format!("inverse bind matrices of skin {s}")
                })?;
                if acc.count < joints.len() {
                    return Err(SceneError::InverseBindCount {
                        skin: s,
                        accessor: index,
                        matrices: acc.count,
                        joints: joints.len(),
                    });
                }
                let raw: Vec<[[f32; 4]; 4]> = data.read(&acc)?;
                let matrices: Vec<Mat4> = raw
                    .iter()
                    .take(joints.len())
                    .map(Mat4::from_cols_array_2d)
                    .collect();
                let place = match skin.name.as_deref().filter(|n| !n.is_empty()) {
                    Some(name) => format!("skin {s} {name:?}"),
                    None => format!("skin {s}"),
                };
                let (matrices, faults) = crate::scene::faults::checked_binds(matrices, &place);
                faults.into_iter().for_each(|f| data.fault(f));
                matrices
            }
        };
        skins.push(Skin {
            name: skin.name.clone().unwrap_or_else(|| format!("skin {s}")),
            joints,
            inverse_bind,
            skeleton,
        });
    }
    Ok(skins)
}
