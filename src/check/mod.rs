//! Pipeline checks: rules a rig must pass before it ships, run over many files at once.
//!
//! [`check_model`] loads one model and applies every rule ([`check_scene`] to a loaded
//! one); [`check_models`] runs it over many in parallel, in input order; [`collect_inputs`]
//! turns files, folders and `builtin:NAME`s into the list. Each rule has a stable name ([`Rule::name`]) and a fixed
//! [`Severity`]; a file passes when it has no error finding (no finding at all with
//! [`CheckOptions::strict`]). One file per group of rules: `weights.rs` (influences),
//! `joints.rs` (scale, mirrors, ignored node transforms), `clips.rs` (DQS flips, joint scan),
//! `collapse.rs` (LBS collapse against DQS and CoR), `region_volume.rs` (what a region measures).

mod clips;
mod collapse;
mod data_faults;
mod inputs;
mod joints;
mod region_volume;
mod run;
mod weights;

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::scene::{LoadOptions, Scene};
use crate::skin::SceneCenters;

pub use inputs::{CheckInput, InputError, Inputs, MODEL_EXTENSIONS, SkippedEntry, collect_inputs};
pub use region_volume::RegionNote;
pub use run::{CheckSummary, check_models, summarize};

/// A rule of `dqview check`; its [`Rule::name`] is stable and used in the JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The file could not be loaded (or read).
    LoadError,
    /// dqview itself failed (panicked) while checking the file: a bug, reported per file.
    InternalError,
    /// NaN or infinite numbers in the file (positions, normals, weights, morph offsets, bind
    /// matrices, key times and values, ...): one finding per kind and place, with the count and
    /// the first index.
    NonFiniteData,
    /// A rig or time the math cannot use: zero rotation keys, singular bind matrices, a time
    /// rate that is not positive, a glTF sampler with no keys (one finding per kind and place).
    DegenerateRig,
    /// Degenerate data the format gives a documented fallback for, which dqview uses (an
    /// inverted USD time range, a SkelAnimation without samples).
    DataFallback,
    /// Something the loader dropped or changed to open the file (morph targets whose data
    /// cannot be read, vertices without weight, a mesh without polygons): one finding per
    /// loader warning, in the words every command prints.
    LoadWarning,
    /// A vertex's stored weights sum off 1 by more than [`CheckOptions::weight_tolerance`].
    WeightsNotNormalized,
    /// A skinned vertex whose weights sum to 0 (it stays at its bind position).
    ZeroWeightVertices,
    /// A vertex with more than 8 influences; the GPU keeps the 8 heaviest.
    InfluencesOver8,
    /// A joint whose skinning matrix scales unevenly or shears (at rest or in a clip).
    NonUniformScale,
    /// A joint whose skinning matrix mirrors (negative determinant).
    MirroredJoint,
    /// A clip in which two blended joints turn more than 180 degrees apart: DQS flips.
    DqsFlipInClip,
    /// A joint region whose LBS volume falls below [`CheckOptions::min_volume_ratio`] in some
    /// clip, and clearly below what DQS and CoR keep there; one finding per joint.
    LbsCollapse,
    /// A glTF skinned mesh node with a transform of its own, which glTF ignores.
    IgnoredNodeTransform,
    /// The per-file time budget ran out before every clip was sampled.
    CheckIncomplete,
    /// The file has no skinned mesh: the skinning rules do not apply (info).
    NotSkinned,
    /// The file uses something dqview does not read or shows plainly (info): an optional
    /// extension, a texture format, a prim kind; one finding per note of the loader.
    NotRead,
}

impl Rule {
    /// Every rule, in report order.
    pub const ALL: [Self; 17] = [
        Self::LoadError,
        Self::InternalError,
        Self::NonFiniteData,
        Self::DegenerateRig,
        Self::DataFallback,
        Self::LoadWarning,
        Self::WeightsNotNormalized,
        Self::ZeroWeightVertices,
        Self::InfluencesOver8,
        Self::NonUniformScale,
        Self::MirroredJoint,
        Self::DqsFlipInClip,
        Self::LbsCollapse,
        Self::IgnoredNodeTransform,
        Self::CheckIncomplete,
        Self::NotSkinned,
        Self::NotRead,
    ];

    /// The stable name, as in the JSON (`load_error`, `weights_not_normalized`, ...).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::LoadError => "load_error",
            Self::InternalError => "internal_error",
            Self::NonFiniteData => "non_finite_data",
            Self::DegenerateRig => "degenerate_rig",
            Self::DataFallback => "data_fallback",
            Self::LoadWarning => "load_warning",
            Self::WeightsNotNormalized => "weights_not_normalized",
            Self::ZeroWeightVertices => "zero_weight_vertices",
            Self::InfluencesOver8 => "influences_over_8",
            Self::NonUniformScale => "non_uniform_scale",
            Self::MirroredJoint => "mirrored_joint",
            Self::DqsFlipInClip => "dqs_flip_in_clip",
            Self::LbsCollapse => "lbs_collapse",
            Self::IgnoredNodeTransform => "ignored_node_transform",
            Self::CheckIncomplete => "check_incomplete",
            Self::NotSkinned => "not_skinned",
            Self::NotRead => "not_read",
        }
    }

    /// How bad a finding of this rule is: errors fail the file, warnings do not.
    #[must_use]
    pub fn severity(self) -> Severity {
        match self {
            Self::LoadError
            | Self::InternalError
            | Self::NonFiniteData
            | Self::DegenerateRig
            | Self::WeightsNotNormalized
            | Self::ZeroWeightVertices => Severity::Error,
            Self::DataFallback
            | Self::LoadWarning
            | Self::InfluencesOver8
            | Self::NonUniformScale
            | Self::MirroredJoint
            | Self::DqsFlipInClip
            | Self::LbsCollapse
            | Self::IgnoredNodeTransform
            | Self::CheckIncomplete => Severity::Warning,
            Self::NotSkinned | Self::NotRead => Severity::Info,
        }
    }
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The file fails the check (exit status 1).
    Error,
    /// Worth a look; the file still passes (unless [`CheckOptions::strict`]).
    Warning,
    /// For the record (a file with nothing to skin); never fails a file, not even when strict.
    Info,
}

impl Severity {
    /// `error`, `warning` or `info`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Info => "info",
        }
    }
}

/// Where a joint was first seen breaking a rule: at rest, or in a clip at a time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointAt {
    /// The joint's node name.
    pub joint: String,
    /// The joint's node index.
    pub node: usize,
    /// The clip's name; `None` (JSON `null`) for the rest pose.
    pub clip: Option<String>,
    /// Time in the clip, seconds; `None` at rest.
    pub time: Option<f32>,
}

/// One thing a rule found in one file. Fields other than `rule`, `severity` and `detail`
/// are set where the rule has them (see the README's rule table) and left out of the JSON otherwise.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// The rule's severity.
    pub severity: Severity,
    /// One line for a person.
    pub detail: String,
    /// How many vertices (weights rules), joints (scale and mirror rules) or bad values (data rules).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// `weights_not_normalized`: the stored weight sum farthest from 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_sum: Option<f32>,
    /// `influences_over_8`: the most influences on one vertex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_influences: Option<usize>,
    /// `influences_over_8`: the heaviest weight past the 8th (renormalised), which is dropped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub largest_dropped_weight: Option<f32>,
    /// `non_uniform_scale`, `mirrored_joint`: each joint, where it was first seen.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<JointAt>,
    /// `dqs_flip_in_clip`, `lbs_collapse`: the joint (node name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub joint: Option<String>,
    /// `dqs_flip_in_clip`: the joint it turned away from (the vertices' heaviest influence).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pivot_joint: Option<String>,
    /// `dqs_flip_in_clip`: the clip's name; `lbs_collapse`: the clip of the worst moment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<String>,
    /// `dqs_flip_in_clip`, `lbs_collapse`: seconds into the clip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<f32>,
    /// `lbs_collapse`: the region's LBS volume (or area) over its rest value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// `lbs_collapse`: the same region's ratio with DQS at the same time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dqs_ratio: Option<f64>,
    /// `lbs_collapse`: the same region's ratio with CoR at the same time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cor_ratio: Option<f64>,
    /// `lbs_collapse`: every clip in which LBS collapses the region, in file order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clips: Vec<String>,
    /// `ignored_node_transform`: the skinned mesh node's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh_node: Option<String>,
    /// Data rules: what was wrong (`non_finite_positions`, `zero_rotation_keys`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<crate::scene::FaultKind>,
    /// Data rules: where (`mesh 0 "Body" primitive 1`, `skin 0 "Armature"`, `animation 1 "Run" sampler 3`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// Data rules: the first bad index at `place` (vertex, joint, key), where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_index: Option<usize>,
}

impl Finding {
    /// A finding of `rule` with its severity and `detail`, every other field empty.
    #[must_use]
    pub fn new(rule: Rule, detail: impl Into<String>) -> Self {
        Self {
            rule,
            severity: rule.severity(),
            detail: detail.into(),
            count: None,
            worst_sum: None,
            max_influences: None,
            largest_dropped_weight: None,
            joints: Vec::new(),
            joint: None,
            pivot_joint: None,
            clip: None,
            time: None,
            ratio: None,
            dqs_ratio: None,
            cor_ratio: None,
            clips: Vec::new(),
            mesh_node: None,
            data: None,
            place: None,
            first_index: None,
        }
    }
}

/// What `check` found in one file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileReport {
    /// The input as given or found (a path or `builtin:NAME`).
    pub file: String,
    /// Whether the file passes: no error finding (no error or warning when strict).
    pub ok: bool,
    /// Every finding, in rule order.
    pub findings: Vec<Finding>,
    /// The joint regions `lbs_collapse` measures by area or skips, with the reason (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub regions_not_by_volume: Vec<RegionNote>,
}

impl FileReport {
    /// A report of `findings` for `file`, sorted by rule, `ok` set per `strict`.
    #[must_use]
    pub fn new(file: String, mut findings: Vec<Finding>, strict: bool) -> Self {
        findings.sort_by_key(|f| f.rule);
        let ok = findings.iter().all(|f| match f.severity {
            Severity::Error => false,
            Severity::Warning => !strict,
            Severity::Info => true,
        });
        Self {
            file,
            ok,
            findings,
            regions_not_by_volume: Vec::new(),
        }
    }
}

/// Thresholds and limits of a check.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckOptions {
    /// Load limits and URI policy for every file.
    pub load: LoadOptions,
    /// Largest |weight sum - 1| a vertex may have (`--weight-tolerance`).
    pub weight_tolerance: f32,
    /// Largest relative unevenness of a joint's scale/shear S, max |S / cbrt(det S) - I|
    /// (`--scale-tolerance`).
    pub scale_tolerance: f32,
    /// Smallest LBS volume ratio a joint region may reach in a clip (`--min-volume-ratio`).
    pub min_volume_ratio: f64,
    /// LBS volume samples per clip, both ends included (`--samples`).
    pub samples: usize,
    /// Time one file's clip sampling may take; the rest is skipped with `check_incomplete`.
    pub time_budget: Duration,
    /// Whether warnings fail a file too (`--strict`).
    pub strict: bool,
}

impl CheckOptions {
    /// The defaults: tolerances 1e-3, volume ratio 0.9, 30 samples a clip, 60 s a file.
    pub const DEFAULT: Self = Self {
        load: LoadOptions::DEFAULT,
        weight_tolerance: 1e-3,
        scale_tolerance: 1e-3,
        min_volume_ratio: 0.9,
        samples: 30,
        time_budget: Duration::from_secs(60),
        strict: false,
    };
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Loads `spec` (a path or `builtin:NAME`) and applies every rule to it.
///
/// A file that cannot be loaded gives one `load_error` finding. Runs on the calling
/// thread (and rayon's pool, for skinning); [`check_models`] adds panic isolation.
#[must_use]
pub fn check_model(spec: &str, options: &CheckOptions) -> FileReport {
    let started = Instant::now();
    let scene = match crate::model::load_model_with(spec, &options.load) {
        Ok(scene) => scene,
        Err(e) => {
            let finding = Finding::new(Rule::LoadError, e.to_string());
            return FileReport::new(spec.to_owned(), vec![finding], options.strict);
        }
    };
    let checked = check_scene_with(&scene, options, None, started + options.time_budget);
    let mut report = FileReport::new(spec.to_owned(), checked.findings, options.strict);
    report.regions_not_by_volume = checked.regions_not_by_volume;
    report
}

/// What the rules find in a loaded scene.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneCheck {
    /// Every finding, in rule order.
    pub findings: Vec<Finding>,
    /// The joint regions `lbs_collapse` measures by area or skips, with the reason.
    pub regions_not_by_volume: Vec<RegionNote>,
}

/// Applies every rule but `load_error` to a loaded scene; clip sampling stops at `deadline`.
#[must_use]
pub fn check_scene(scene: &Scene, options: &CheckOptions, deadline: Instant) -> Vec<Finding> {
    check_scene_with(scene, options, None, deadline).findings
}

/// [`check_scene`] with the scene's CoR centers when the caller has them (else `lbs_collapse`
/// computes them, with the default options, only when some region is a candidate).
#[must_use]
pub fn check_scene_with(
    scene: &Scene,
    options: &CheckOptions,
    centers: Option<&SceneCenters>,
    deadline: Instant,
) -> SceneCheck {
    let mut findings = data_faults::findings(scene);
    findings.extend(
        scene
            .warnings
            .iter()
            .map(|w| Finding::new(Rule::LoadWarning, w.clone())),
    );
    findings.extend(weights::check(scene, options));
    findings.extend(not_skinned(scene));
    findings.extend(
        scene
            .notes
            .iter()
            .map(|n| Finding::new(Rule::NotRead, n.clone())),
    );
    findings.extend(joints::ignored_node_transforms(scene));
    let (clip_findings, regions_not_by_volume) = clips::check(scene, options, centers, deadline);
    findings.extend(clip_findings);
    findings.sort_by_key(|f| f.rule);
    SceneCheck {
        findings,
        regions_not_by_volume,
    }
}

/// `not_skinned`: no node with a skin draws a mesh with weights, so nothing is skinned.
fn not_skinned(scene: &Scene) -> Option<Finding> {
    if !crate::skin::skinned_primitives(scene).is_empty() {
        return None;
    }
    let primitives: usize = scene.meshes.iter().map(|m| m.primitives.len()).sum();
    Some(Finding::new(
        Rule::NotSkinned,
        format!(
            "no skinned mesh: no node with a skin draws a mesh with weights ({} meshes, {primitives} primitives, {} skins); the skinning rules do not apply",
            scene.meshes.len(),
            scene.skins.len()
        ),
    ))
}

/// `name` of node `node`, or `node N` when it is out of range.
fn node_name(scene: &Scene, node: usize) -> String {
    scene
        .nodes
        .get(node)
        .map_or_else(|| format!("node {node}"), |n| n.name.clone())
}
