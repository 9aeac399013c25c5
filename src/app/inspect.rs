//! Rig inspection in the viewer: ratio series on a background thread, DQS flips, warnings, betas.
//!
//! The series runs on its own thread (rayon inside) and reports through a
//! channel and two atomics, so the frame loop only polls. A change of clip,
//! joint, overrides or betas (flags, map, strength) starts a new run after a short pause
//! (debounce); the old run is cancelled.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use super::redraw::NextFrame;
use crate::analysis::{
    BlendPairs, RatioSeries, SeriesAxis, SeriesRequest, TwistFlips, ratio_series,
    ratio_series_with_region, twist_flips,
};
use crate::anim::{JointAngles, JointOverrides};
use crate::scene::Scene;
use crate::skin::{BetaChoice, BetaSources, HybridFlags, SceneBetas, SceneCenters, hybrid_betas};
use crate::ui::ViewerState;

/// Samples of a series: 2.5 degrees per step on a twist sweep.
const SERIES_SAMPLES: usize = 289;
/// Inputs must stay unchanged this long before a new series starts.
const DEBOUNCE: Duration = Duration::from_millis(300);
/// While a clip plays, flips are recomputed at most this often.
const FLIP_INTERVAL: Duration = Duration::from_millis(250);

/// What a series depends on; a new run starts when it changes.
#[derive(Clone, Debug, PartialEq)]
struct SeriesKey {
    axis: SeriesAxis,
    /// The overrides, without the swept joint's twist (the sweep replaces it).
    overrides: JointOverrides,
    /// The generation of the betas shown (flags, painted map, strength, uniform beta).
    betas_generation: u64,
    /// Whether CoR centers were there (a run without them has no CoR line).
    with_cor: bool,
    /// The parameters of the DDM matrices there (a run without them has no DDM line).
    with_ddm: Option<crate::skin::ddm::DdmParams>,
    /// The selected joint, whose region gets lines of its own.
    region: Option<usize>,
}

/// A series being computed on another thread.
struct Job {
    key: SeriesKey,
    cancel: Arc<AtomicBool>,
    done: Arc<AtomicUsize>,
    total: usize,
    result: mpsc::Receiver<Option<RatioSeries>>,
    started: Instant,
}

impl Drop for Job {
    fn drop(&mut self) {
        // The thread sees this between samples and ends without a result.
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// What the flips were last computed for.
#[derive(Clone, Debug, PartialEq)]
struct FlipKey {
    joints: Vec<usize>,
    clip: Option<usize>,
    time_s: f32,
    overrides: JointOverrides,
}

/// Inspection of one loaded model.
pub struct Inspector {
    scene: Arc<Scene>,
    /// Blended joint pairs per skin (scanned once).
    pairs: Vec<BlendPairs>,
    /// Hybrid betas shown, by [`hybrid_betas`]: the painted map, else the file's map as stored,
    /// else the current flags', times the strength (or one uniform beta).
    pub betas: SceneBetas,
    /// Where `betas` come from, in words.
    pub betas_source: String,
    /// The strength, uniform beta and paint mode `betas` were made for.
    betas_made_for: Option<(f32, Option<f32>, bool)>,
    /// Bumped whenever `betas` changes.
    betas_generation: u64,
    /// The current flags' betas, and the flags revision they come from.
    flag_betas: SceneBetas,
    betas_revision: Option<u64>,
    /// The painted map and its revision, when there is one.
    painted: Option<(SceneBetas, u64)>,
    /// Whether `betas` changed since they were last handed out for upload.
    betas_dirty: bool,
    job: Option<Job>,
    /// The key of the series shown, or of the last run cancelled by the user.
    settled: Option<SeriesKey>,
    /// The newest wanted key and when it was first wanted.
    wanted: Option<(SeriesKey, Instant)>,
    flip_key: Option<FlipKey>,
    flips_at: Option<Instant>,
    flips: Vec<TwistFlips>,
    /// CoR centers once the viewer's precompute has them.
    cor_centers: Option<Arc<SceneCenters>>,
    /// DDM matrices once the viewer's precompute has them.
    ddm: Option<Arc<crate::skin::ddm::SceneDdm>>,
}

impl Inspector {
    /// An inspector of `scene`; nothing runs until [`Inspector::update`].
    #[must_use]
    pub fn new(scene: Arc<Scene>) -> Self {
        let pairs = (0..scene.skins.len())
            .map(|s| BlendPairs::of_skin(&scene, s))
            .collect();
        Self {
            scene,
            pairs,
            betas: SceneBetas::default(),
            betas_source: String::new(),
            betas_made_for: None,
            flag_betas: SceneBetas::default(),
            betas_revision: None,
            betas_generation: 0,
            painted: None,
            betas_dirty: true,
            job: None,
            settled: None,
            wanted: None,
            flip_key: None,
            flips_at: None,
            flips: Vec::new(),
            cor_centers: None,
            ddm: None,
        }
    }

    /// Hands over the CoR centers (once the precompute is done), for a CoR line in the plot.
    pub fn set_cor_centers(&mut self, centers: Option<Arc<SceneCenters>>) {
        self.cor_centers = centers;
    }

    /// Hands over the DDM matrices (once the precompute is done), for a DDM line in the plot.
    pub fn set_ddm(&mut self, ddm: Option<Arc<crate::skin::ddm::SceneDdm>>) {
        self.ddm = ddm;
    }

    /// Default DQS flags of every skin (twist/roll names, joints the clip mostly twists).
    #[must_use]
    pub fn default_flags(
        &self,
        clip: Option<usize>,
        overrides: &JointOverrides,
    ) -> Vec<HybridFlags> {
        (0..self.scene.skins.len())
            .map(|s| HybridFlags::defaults(&self.scene, s, clip, overrides))
            .collect()
    }

    /// New betas when the flags or the painted map changed since the last call (to upload), else `None`.
    pub fn betas_if_changed(&mut self, state: &mut ViewerState) -> Option<&SceneBetas> {
        if std::mem::take(&mut state.hybrid.reset_defaults) {
            state.hybrid.flags = self.default_flags(state.playback.clip, &state.joints.overrides);
            state.hybrid.revision += 1;
        }
        let none = JointOverrides::new();
        let flags = &state.hybrid.flags;
        if self.betas_revision != Some(state.hybrid.revision) {
            self.betas_revision = Some(state.hybrid.revision);
            let stored = BetaSources {
                flags: Some(flags),
                ..BetaSources::stored(None, &none)
            };
            self.flag_betas = hybrid_betas(&self.scene, &stored).betas;
            self.betas_dirty = true;
        }
        // While painting the mesh shows the map itself, at full strength.
        let painting = state.paint.enabled;
        let s = &state.skinning;
        let made_for = Some((s.beta, s.uniform_beta, painting));
        if self.betas_made_for != made_for {
            self.betas_made_for = made_for;
            self.betas_dirty = true;
        }
        if !std::mem::take(&mut self.betas_dirty) {
            return None;
        }
        let sources = BetaSources {
            choice: match s.uniform_beta {
                Some(b) if !painting => BetaChoice::Uniform(b),
                _ => BetaChoice::Stored,
            },
            map: self.painted.as_ref().map(|(m, _)| m),
            flags: Some(flags),
            strength: if painting { 1.0 } else { s.beta },
            ..BetaSources::stored(None, &none)
        };
        let hybrid = hybrid_betas(&self.scene, &sources);
        self.betas = hybrid.betas;
        self.betas_source = hybrid.source;
        self.betas_generation += 1;
        Some(&self.betas)
    }

    /// The betas shown and their generation (bumped whenever they change).
    #[must_use]
    pub fn shown_betas(&self) -> (&SceneBetas, u64) {
        (&self.betas, self.betas_generation)
    }

    /// The betas without a painted map, at full strength: the file's `_DQS_BLEND` as stored,
    /// the flags' where it has none.
    #[must_use]
    pub fn flag_betas(&self) -> &SceneBetas {
        &self.flag_betas
    }

    /// Hands over the painted map (`None`: the flags' betas again) at `revision`.
    pub fn set_painted(&mut self, map: Option<&SceneBetas>, revision: u64) {
        let current = self.painted.as_ref().map(|(_, r)| *r);
        if map.is_none() && current.is_none() {
            return;
        }
        if current == Some(revision) && map.is_some() {
            return;
        }
        self.painted = map.map(|m| (m.clone(), revision));
        self.betas_dirty = true;
    }

    /// Polls and (re)starts the series, recomputes flips, and sets the warning.
    ///
    /// `wait` (scripted runs, before a screenshot) starts a pending run at once and
    /// blocks until it ends; interactive frames never block.
    pub fn update(&mut self, state: &mut ViewerState, now: Instant, wait: bool) {
        self.update_series(state, now, wait);
        self.update_flips(state, now, wait);
        state.inspect.warning = self.warning(state);
    }

    /// When the plot next needs a frame: its job's progress, or the end of a pending debounce.
    #[must_use]
    pub fn next_frame(&self, now: Instant) -> NextFrame {
        let debounce = match (&self.wanted, &self.job) {
            (Some((key, since)), job)
                if self.settled.as_ref() != Some(key)
                    && job.as_ref().map(|j| &j.key) != Some(key) =>
            {
                NextFrame::At(*since + DEBOUNCE)
            }
            _ => NextFrame::OnInput,
        };
        NextFrame::progress_if(now, self.job.is_some()).sooner(debounce)
    }

    /// The series part of [`Inspector::update`].
    fn update_series(&mut self, state: &mut ViewerState, now: Instant, wait: bool) {
        if std::mem::take(&mut state.inspect.cancel)
            && let Some(job) = self.job.take()
        {
            self.settled = Some(job.key.clone());
        }
        let key = self.key(state);
        state.inspect.note = key.is_none().then(|| {
            "No clip: select a joint (tree or viewport) to plot the volume over its twist, \
             -360° to 360°"
                .to_owned()
        });
        let Some(key) = key else {
            self.job = None;
            self.wanted = None;
            state.inspect.series = None;
            state.inspect.progress = None;
            return;
        };
        let running = self.job.as_ref().map(|j| &j.key);
        if self.settled.as_ref() != Some(&key) && running != Some(&key) {
            let since = match &self.wanted {
                Some((k, t)) if *k == key => *t,
                _ => {
                    self.wanted = Some((key.clone(), now));
                    now
                }
            };
            if wait || self.settled.is_none() || now.duration_since(since) >= DEBOUNCE {
                self.start(key);
            }
        }
        self.poll(state, wait);
    }

    /// The series the current state asks for: over the clip, or the selected joint's twist.
    fn key(&self, state: &ViewerState) -> Option<SeriesKey> {
        let axis = match (state.playback.clip, state.joints.selected) {
            (Some(clip), _) => SeriesAxis::ClipTime { clip },
            (None, Some(joint)) => SeriesAxis::Twist { joint },
            (None, None) => return None,
        };
        let mut overrides = state.joints.overrides.clone();
        if let SeriesAxis::Twist { joint } = axis {
            let a = overrides.get(joint);
            overrides.set(
                joint,
                JointAngles {
                    twist_deg: 0.0,
                    ..a
                },
            );
        }
        Some(SeriesKey {
            axis,
            overrides,
            betas_generation: self.betas_generation,
            with_cor: self.cor_centers.is_some(),
            with_ddm: self.ddm.as_ref().map(|d| d.params),
            region: state.joints.selected,
        })
    }

    /// Cancels any run and starts one for `key` on a new thread.
    fn start(&mut self, key: SeriesKey) {
        self.job = None;
        self.wanted = None;
        let request = SeriesRequest {
            axis: key.axis,
            samples: SERIES_SAMPLES,
            base_clip: None,
            base_time_s: 0.0,
            overrides: key.overrides.clone(),
            betas: self.betas.clone(),
            // Spelled per vertex with the strength applied: the same betas the panes draw.
            beta_scale: 1.0,
            cor_centers: self.cor_centers.clone().filter(|_| key.with_cor),
            ddm: self.ddm.clone().filter(|_| key.with_ddm.is_some()),
            dm: None,
        };
        let total = crate::analysis::series_x(&self.scene, &request).len();
        let cancel = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::channel();
        let (scene, thread_cancel, thread_done) =
            (self.scene.clone(), cancel.clone(), done.clone());
        let region = key.region;
        let spawned = std::thread::Builder::new()
            .name("dqview-analysis".into())
            .spawn(move || {
                let progress = |d: usize, _total: usize| {
                    thread_done.fetch_max(d, Ordering::Relaxed);
                };
                // A joint without a region (a root, an IK target) plots the whole mesh only.
                let series = match region {
                    Some(joint) => {
                        ratio_series_with_region(&scene, &request, joint, &thread_cancel, &progress)
                            .unwrap_or_else(|_| {
                                ratio_series(&scene, &request, &thread_cancel, &progress)
                            })
                    }
                    None => ratio_series(&scene, &request, &thread_cancel, &progress),
                };
                // The viewer may have moved on (receiver gone): nothing to report then.
                let _ = tx.send(series);
            });
        if let Err(e) = spawned {
            log::warn!("cannot start the analysis thread: {e}");
            self.settled = Some(key);
            return;
        }
        log::debug!("analysis started: {:?}, {} samples", key.axis, total);
        self.job = Some(Job {
            key,
            cancel,
            done,
            total,
            result: rx,
            started: Instant::now(),
        });
    }

    /// Takes a finished result, or reports progress.
    fn poll(&mut self, state: &mut ViewerState, wait: bool) {
        let Some(job) = &self.job else {
            state.inspect.progress = None;
            return;
        };
        match super::job::receive(&job.result, wait) {
            Ok(series) => {
                if let Some(job) = self.job.take() {
                    log::info!(
                        "series over {:?}: {} samples in {:.2} s{}",
                        job.key.axis,
                        job.total,
                        job.started.elapsed().as_secs_f64(),
                        if series.is_some() { "" } else { " (cancelled)" }
                    );
                    self.settled = Some(job.key.clone());
                }
                if let Some(series) = series {
                    state.inspect.series = Some(Arc::new(series));
                }
                state.inspect.progress = None;
            }
            Err(mpsc::TryRecvError::Empty) => {
                state.inspect.progress = Some((job.done.load(Ordering::Relaxed), job.total));
            }
            Err(mpsc::TryRecvError::Disconnected) => {
                // The thread died without a result; keep the old series.
                if let Some(job) = self.job.take() {
                    self.settled = Some(job.key.clone());
                }
                state.inspect.progress = None;
            }
        }
    }

    /// Flips of the selected joint and of every twisted joint, at the current pose.
    fn update_flips(&mut self, state: &mut ViewerState, now: Instant, wait: bool) {
        let mut joints: Vec<usize> = state
            .joints
            .overrides
            .angles
            .iter()
            .filter(|(_, a)| a.twist_deg != 0.0)
            .map(|(&n, _)| n)
            .collect();
        if let Some(s) = state.joints.selected
            && !joints.contains(&s)
        {
            joints.push(s);
        }
        let p = &state.playback;
        let key = FlipKey {
            joints,
            clip: p.clip,
            time_s: p.time_s,
            overrides: state.joints.overrides.clone(),
        };
        let throttled = p.playing
            && !wait
            && self
                .flips_at
                .is_some_and(|t| now.duration_since(t) < FLIP_INTERVAL);
        if self.flip_key.as_ref() != Some(&key) && !throttled {
            self.flips = key
                .joints
                .iter()
                .filter_map(|&j| self.flips_of(j, key.clip, key.time_s, &key.overrides))
                .collect();
            self.flip_key = Some(key);
            self.flips_at = Some(now);
        }
        state.inspect.flips = state
            .joints
            .selected
            .and_then(|s| self.flips.iter().find(|f| f.joint == s).cloned());
    }

    /// Flips of `joint` over every skin it belongs to (nearest bounds win).
    fn flips_of(
        &self,
        joint: usize,
        clip: Option<usize>,
        time_s: f32,
        overrides: &JointOverrides,
    ) -> Option<TwistFlips> {
        let mut merged: Option<TwistFlips> = None;
        for pairs in &self.pairs {
            let in_skin = self
                .scene
                .skins
                .get(pairs.skin)
                .is_some_and(|s| s.joints.contains(&joint));
            if !in_skin {
                continue;
            }
            let f = twist_flips(&self.scene, pairs, joint, clip, time_s, overrides);
            merged = Some(match merged {
                None => f,
                Some(mut m) => {
                    m.above_deg = [m.above_deg, f.above_deg]
                        .into_iter()
                        .flatten()
                        .reduce(f32::min);
                    m.below_deg = [m.below_deg, f.below_deg]
                        .into_iter()
                        .flatten()
                        .reduce(f32::max);
                    m.pairs.extend(f.pairs);
                    m
                }
            });
        }
        merged
    }

    /// The status line's warning: a twist past its flip, or a clip past a flip at this time.
    fn warning(&self, state: &ViewerState) -> Option<String> {
        let name = |n: usize| {
            self.scene
                .nodes
                .get(n)
                .map_or_else(|| format!("node {n}"), |node| node.name.clone())
        };
        for f in &self.flips {
            let twist = state.joints.overrides.get(f.joint).twist_deg;
            if let Some(flip) = f.passed_flip_deg(twist) {
                return Some(format!(
                    "DQS flip: joint {} twist {twist:.0}° passes {flip:.0}°, the skin takes the short arc",
                    name(f.joint)
                ));
            }
        }
        let series = state.inspect.series.as_deref()?;
        let SeriesAxis::ClipTime { clip } = series.axis else {
            return None;
        };
        if state.playback.clip != Some(clip) {
            return None;
        }
        let t = state.playback.time_s;
        let nearest = series
            .x
            .iter()
            .enumerate()
            .min_by(|a, b| (a.1 - t).abs().total_cmp(&(b.1 - t).abs()))
            .map(|(i, _)| i)?;
        series.dqs_flipped.get(nearest).copied().unwrap_or(false).then(|| {
            format!(
                "DQS flip: at {t:.2} s blended joints turn more than 180° apart, the skin takes the short arc"
            )
        })
    }
}
