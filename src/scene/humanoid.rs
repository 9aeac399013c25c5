//! VRM humanoid bones: the standard names (`hips`, `leftLowerArm`, ...) a VRM file gives its
//! nodes, and how the VRM version is written into [`super::SourceInfo::format`].

/// One bone of a VRM humanoid map: its standard name and the node it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HumanoidBone {
    /// The VRM bone name, as VRM spells it (`hips`, `leftLowerArm`, `rightThumbDistal`).
    pub bone: String,
    /// Index of the node the file maps the bone to.
    pub node: usize,
}

/// Bones with no side, in VRM's order.
const CENTRE_BONES: [&str; 7] = [
    "hips",
    "spine",
    "chest",
    "upperChest",
    "neck",
    "head",
    "jaw",
];

/// Bones that come in pairs, without their `left`/`right` prefix, in VRM's order. VRM 1.0 has
/// `ThumbMetacarpal` where VRM 0.x has `ThumbIntermediate`; both are listed.
const SIDED_BONES: [&str; 25] = [
    "Eye",
    "UpperLeg",
    "LowerLeg",
    "Foot",
    "Toes",
    "Shoulder",
    "UpperArm",
    "LowerArm",
    "Hand",
    "ThumbMetacarpal",
    "ThumbProximal",
    "ThumbIntermediate",
    "ThumbDistal",
    "IndexProximal",
    "IndexIntermediate",
    "IndexDistal",
    "MiddleProximal",
    "MiddleIntermediate",
    "MiddleDistal",
    "RingProximal",
    "RingIntermediate",
    "RingDistal",
    "LittleProximal",
    "LittleIntermediate",
    "LittleDistal",
];

/// Where `bone` stands in VRM's order (centre bones, then each pair left before right), or
/// `None` when it is no VRM 0.x or 1.0 humanoid bone name (the match is exact, as in VRM).
#[must_use]
pub fn vrm_bone_order(bone: &str) -> Option<usize> {
    if let Some(k) = CENTRE_BONES.iter().position(|&b| b == bone) {
        return Some(k);
    }
    let (side, rest) = if let Some(rest) = bone.strip_prefix("left") {
        (0, rest)
    } else {
        (1, bone.strip_prefix("right")?)
    };
    let k = SIDED_BONES.iter().position(|&b| b == rest)?;
    Some(CENTRE_BONES.len() + 2 * k + side)
}

/// The [`super::SourceInfo::format`] of a VRM file of `version` (`1.0`, `0.0`): `glTF (VRM 1.0)`.
#[must_use]
pub fn vrm_format(version: &str) -> String {
    format!("glTF (VRM {version})")
}

/// The VRM version in a format written by [`vrm_format`], `None` for any other format.
#[must_use]
pub fn vrm_version(format: &str) -> Option<&str> {
    format.strip_prefix("glTF (VRM ")?.strip_suffix(')')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bone_names_are_vrm_s_own_and_ordered() {
        assert_eq!(vrm_bone_order("hips"), Some(0));
        assert_eq!(vrm_bone_order("jaw"), Some(6));
        assert_eq!(vrm_bone_order("leftEye"), Some(7));
        assert_eq!(vrm_bone_order("rightEye"), Some(8));
        let lower = vrm_bone_order("leftLowerArm").expect("1.0 and 0.x");
        assert!(vrm_bone_order("leftUpperArm").expect("bone") < lower);
        assert!(vrm_bone_order("leftThumbMetacarpal").is_some(), "1.0");
        assert!(vrm_bone_order("rightThumbIntermediate").is_some(), "0.x");
        for not in [
            "LeftHand",
            "lefthand",
            "leftHand ",
            "left",
            "tail",
            "",
            "middleHand",
        ] {
            assert_eq!(vrm_bone_order(not), None, "{not}");
        }
        // Every name has its own place.
        let mut all: Vec<usize> = CENTRE_BONES
            .iter()
            .map(|b| (*b).to_string())
            .chain(
                SIDED_BONES
                    .iter()
                    .flat_map(|b| [format!("left{b}"), format!("right{b}")]),
            )
            .filter_map(|b| vrm_bone_order(&b))
            .collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), CENTRE_BONES.len() + 2 * SIDED_BONES.len());
    }

    #[test]
    fn the_version_round_trips_through_the_format() {
        assert_eq!(vrm_format("1.0"), "glTF (VRM 1.0)");
        assert_eq!(vrm_version(&vrm_format("0.0")), Some("0.0"));
        assert_eq!(vrm_version("glTF"), None);
        assert_eq!(vrm_version("FBX 7500 binary"), None);
    }
}
