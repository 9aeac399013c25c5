//! Blender playing a glTF file's clip against `dqview export --mode lbs --clip NAME --time S`.
//!
//! `tests/support/blender_pose.py` (python3 with `bpy`, Blender as a module) imports the file
//! with Blender's glTF importer, plays the clip's action at the time and evaluates the Armature
//! modifier with Preserve Volume off; [`support::blender_vs_lbs_export`] matches each Blender
//! vertex to dqview's nearest over the rest bounding-box diagonal. Any glTF dqview writes can
//! be checked this way; here it is proven on the Adventurer: the script reproduces the stored
//! reference, dqview agrees with it, the wrong clip, or channels the clip does not animate
//! taken from another clip, would not pass, and between keys Blender agrees once its
//! rotations are slerped as glTF's are ([`support::Rotations`]).
//!
//! Skips without `bpy` (`pip install bpy==5.0.1`) unless `DQVIEW_REQUIRE_DATA` is set.

mod support;

use std::path::Path;

use serde_json::Value;
use support::Rotations;

/// Largest allowed distance from a Blender vertex to dqview's nearest, over the diagonal.
const TOLERANCE_RELATIVE: f32 = 1e-5;

/// The Adventurer's Idle at frame 20 (of 24 per second), a key time of every channel.
const IDLE_TIME_S: f32 = 20.0 / 24.0;

/// The stored reference Blender made of the same case (`DQVIEW_BLENDER`).
const IDLE_REFERENCE: &str = "Adventurer_Idle_t0.8333_lbs.obj";

#[test]
fn blender_plays_the_adventurers_idle_as_dqviews_lbs_export() {
    let test = "blender_plays_the_adventurers_idle_as_dqviews_lbs_export";
    let Some(characters) = support::characters_dir(test) else {
        return;
    };
    let Some(references) = support::data_dir("DQVIEW_BLENDER", test) else {
        return;
    };
    let Some(()) = support::bpy_available(test) else {
        return;
    };
    let model = characters.join("Adventurer.gltf");
    let dir = support::scratch_dir("blender_clips_idle");
    let agreement =
        support::blender_vs_lbs_export(&model, "Idle", IDLE_TIME_S, Rotations::Blender, &dir);
    eprintln!(
        "Adventurer Idle at {IDLE_TIME_S} s: {}",
        agreement.summary()
    );
    assert!(
        agreement.worst <= TOLERANCE_RELATIVE,
        "a Blender vertex is {:e} of the diagonal from dqview's LBS export",
        agreement.worst
    );

    // The script is how the stored reference was made: the same vertices, to its 7 digits.
    let stored = support::obj_vertices(&references.join(IDLE_REFERENCE));
    let blender = &agreement.blender;
    assert_eq!(
        blender.len(),
        stored.len(),
        "vertex count against {IDLE_REFERENCE}"
    );
    let to_stored = support::worst_relative(blender, &stored, agreement.diagonal);
    eprintln!("against {IDLE_REFERENCE}: {to_stored:.1e}");
    assert!(
        to_stored <= 1e-6,
        "blender_pose.py is {to_stored:e} of the diagonal from {IDLE_REFERENCE}"
    );

    // The clip Blender played is Idle, not the importer's default (the first, Death).
    let death = support::dqview_lbs_export(&model, "Death", IDLE_TIME_S, &dir);
    let apart = support::worst_relative(blender, &death, agreement.diagonal);
    eprintln!("against dqview's Death: >= {apart:.1e}");
    assert!(
        apart > 100.0 * TOLERANCE_RELATIVE,
        "Blender's Idle is as close to dqview's Death ({apart:e}): the case tells clips apart"
    );
}

/// Bones whose channels are taken out of Idle in [`channels_a_clip_leaves_out_stay_at_rest`].
const LEFT_ARM: [&str; 3] = ["Shoulder.L", "UpperArm.L", "LowerArm.L"];

/// `source` with the channels of clip `clip` that target `nodes` taken out, written to `out`.
fn without_channels(source: &Path, clip: &str, nodes: &[&str], out: &Path) {
    let text = std::fs::read_to_string(source).expect("model");
    let mut doc: Value = serde_json::from_str(&text).expect("glTF JSON");
    let names: Vec<String> = doc["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["name"].as_str().unwrap_or("").to_string())
        .collect();
    let anim = doc["animations"]
        .as_array_mut()
        .expect("animations")
        .iter_mut()
        .find(|a| a["name"] == clip)
        .expect("the clip");
    let channels = anim["channels"].as_array_mut().expect("channels");
    let before = channels.len();
    channels.retain(|c| {
        let node = c["target"]["node"].as_u64().expect("target node") as usize;
        !nodes.contains(&names[node].as_str())
    });
    assert!(channels.len() < before, "{clip} animates none of {nodes:?}");
    std::fs::write(out, serde_json::to_string(&doc).expect("JSON")).expect("write model");
}

#[test]
fn channels_a_clip_leaves_out_stay_at_rest() {
    // The importer plays its first clip on import; without care, channels Idle does not
    // animate would keep that clip's values in Blender, where glTF (and dqview) keep the rest.
    let test = "channels_a_clip_leaves_out_stay_at_rest";
    let Some(characters) = support::characters_dir(test) else {
        return;
    };
    let Some(()) = support::bpy_available(test) else {
        return;
    };
    let dir = support::scratch_dir("blender_clips_partial");
    let model = dir.join("Adventurer_idle_without_left_arm.gltf");
    without_channels(
        &characters.join("Adventurer.gltf"),
        "Idle",
        &LEFT_ARM,
        &model,
    );
    let agreement =
        support::blender_vs_lbs_export(&model, "Idle", IDLE_TIME_S, Rotations::Blender, &dir);
    eprintln!("Idle without {LEFT_ARM:?}: {}", agreement.summary());
    assert!(
        agreement.worst <= TOLERANCE_RELATIVE,
        "a Blender vertex is {:e} of the diagonal from dqview's LBS export",
        agreement.worst
    );

    // The channels taken out move the mesh: the full Idle is far from this one.
    let full = support::dqview_lbs_export(
        &characters.join("Adventurer.gltf"),
        "Idle",
        IDLE_TIME_S,
        &dir,
    );
    let apart = support::worst_relative(&agreement.blender, &full, agreement.diagonal);
    eprintln!("against dqview's full Idle: >= {apart:.1e}");
    assert!(
        apart > 100.0 * TOLERANCE_RELATIVE,
        "the left arm's channels do not move the mesh ({apart:e}): the case proves nothing"
    );
}

#[test]
fn between_keys_blender_with_slerped_rotations_plays_as_dqview() {
    // The Adventurer runs fast: at 0.3 s (frame 7.2) Blender's own per-component rotation
    // interpolation is 5e-5 of the diagonal off glTF's slerp; slerped, it agrees.
    let test = "between_keys_blender_with_slerped_rotations_plays_as_dqview";
    let Some(characters) = support::characters_dir(test) else {
        return;
    };
    let Some(()) = support::bpy_available(test) else {
        return;
    };
    let model = characters.join("Adventurer.gltf");
    let dir = support::scratch_dir("blender_clips_between_keys");
    let agreement = support::blender_vs_lbs_export(&model, "Run", 0.3, Rotations::Slerp, &dir);
    eprintln!("Adventurer Run at 0.3 s, slerped: {}", agreement.summary());
    assert!(
        agreement.worst <= TOLERANCE_RELATIVE,
        "a Blender vertex is {:e} of the diagonal from dqview's LBS export",
        agreement.worst
    );
}
