//! The heatmap views' colour range, from the pose on screen, scanned on a background thread.
//!
//! A scan skins every vertex in each pane's mode (tens of milliseconds on a big character),
//! so it never runs on the frame thread: the views keep the last range until the new one
//! arrives, and a screenshot frame waits for it.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Instant;

use glam::Mat4;

use crate::analysis::{HeatBetas, HeatQuantity, HeatRange, HeatRangeSpec, pose_heat_range};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{SceneBetas, SceneCenters, SkinningMode};
use crate::ui::HeatRangeMode;

/// What a computed range depends on.
#[derive(Clone, Debug, PartialEq)]
struct HeatKey {
    quantity: HeatQuantity,
    modes: Vec<SkinningMode>,
    beta_scale: f32,
    betas_revision: u64,
    has_centers: bool,
    globals: Vec<Mat4>,
    morph_weights: Vec<Vec<f32>>,
}

/// A scan running on its thread, for `key`.
struct HeatJob {
    key: HeatKey,
    result: mpsc::Receiver<HeatRange>,
    started: Instant,
}

/// The last computed range, what it was computed for, and the scan in flight.
#[derive(Default)]
pub struct HeatRanges {
    key: Option<HeatKey>,
    range: Option<HeatRange>,
    job: Option<HeatJob>,
}

/// What the range is computed from this frame.
pub struct HeatInputs<'a> {
    /// The model (shared with the scan's thread).
    pub scene: &'a Arc<Scene>,
    /// The pose drawn.
    pub pose: &'a Pose,
    /// The panes' modes.
    pub modes: Vec<SkinningMode>,
    /// The hybrid's per-vertex betas and their revision (bumped when they change).
    pub betas: (&'a SceneBetas, u64),
    /// The beta scale.
    pub beta_scale: f32,
    /// The rest bounding-box diagonal.
    pub diagonal: f32,
    /// The CoR centers once computed (the CoR distance view measures from them).
    pub centers: Option<Arc<SceneCenters>>,
}

impl HeatInputs<'_> {
    /// The key of a range computed from these inputs.
    fn key(&self, quantity: HeatQuantity) -> HeatKey {
        HeatKey {
            quantity,
            modes: self.modes.clone(),
            beta_scale: self.beta_scale,
            betas_revision: self.betas.1,
            has_centers: self.centers.is_some(),
            globals: self.pose.global.clone(),
            morph_weights: self.pose.morph_weights.clone(),
        }
    }
}

impl HeatRanges {
    /// The range `quantity` is drawn with under `mode` (auto: of this pose, scanned in the
    /// background when the pose, panes or betas change, the last one shown meanwhile; hold:
    /// the last auto one; fixed: the default). `wait` (a screenshot frame) blocks for the scan.
    pub fn range(
        &mut self,
        quantity: HeatQuantity,
        mode: HeatRangeMode,
        inputs: &HeatInputs,
        wait: bool,
    ) -> HeatRange {
        self.poll(wait);
        let held = self.held(quantity);
        match (mode, held) {
            (HeatRangeMode::Fixed, _) => return quantity.default_range(),
            (HeatRangeMode::Hold, Some(range)) => return range,
            _ => {}
        }
        let key = inputs.key(quantity);
        if self.key.as_ref() == Some(&key) {
            return held.unwrap_or_else(|| quantity.default_range());
        }
        // One scan at a time: while the pose keeps changing (a playing clip) the next scan
        // starts when this one lands, for the pose of that frame.
        if self.job.is_none() {
            self.start(key, inputs);
            if wait {
                self.poll(true);
            }
        }
        self.held(quantity)
            .unwrap_or_else(|| quantity.default_range())
    }

    /// Whether a scan is running (the viewer draws again when it lands).
    #[must_use]
    pub fn is_running(&self) -> bool {
        self.job.is_some()
    }

    /// Starts a scan for `key` on its own thread.
    fn start(&mut self, key: HeatKey, inputs: &HeatInputs) {
        let (tx, rx) = mpsc::channel();
        let scene = Arc::clone(inputs.scene);
        let pose = inputs.pose.clone();
        let betas = inputs.betas.0.clone();
        let centers = inputs.centers.clone();
        let (quantity, modes, scale, diagonal) = (
            key.quantity,
            key.modes.clone(),
            key.beta_scale,
            inputs.diagonal,
        );
        let spawned = std::thread::Builder::new()
            .name("dqview-heat-range".into())
            .spawn(move || {
                let betas = HeatBetas {
                    betas: Some(&betas),
                    scale,
                    centers: centers.as_deref(),
                    ddm: None,
                    dm: None,
                };
                let spec = HeatRangeSpec::default();
                let range = pose_heat_range(&scene, &pose, quantity, &modes, betas, diagonal, spec);
                // The viewer may have moved on (receiver gone): nothing to report then.
                let _ = tx.send(range);
            });
        match spawned {
            Ok(_) => {
                self.job = Some(HeatJob {
                    key,
                    result: rx,
                    started: Instant::now(),
                });
            }
            Err(e) => {
                // No thread: the default range, and no retry every frame.
                log::warn!("cannot start the heat-range scan: {e}");
                self.range = Some(key.quantity.default_range());
                self.key = Some(key);
            }
        }
    }

    /// Takes a landed scan's range (waiting for it when `wait`).
    fn poll(&mut self, wait: bool) {
        let Some(job) = self.job.take() else {
            return;
        };
        match super::job::receive(&job.result, wait) {
            Ok(range) => {
                log::debug!(
                    "heat range {range:?} in {:.1} ms",
                    job.started.elapsed().as_secs_f64() * 1e3
                );
                self.key = Some(job.key);
                self.range = Some(range);
            }
            Err(mpsc::TryRecvError::Empty) => self.job = Some(job),
            Err(mpsc::TryRecvError::Disconnected) => {
                log::warn!("the heat-range scan ended without a range");
                self.range = Some(job.key.quantity.default_range());
                self.key = Some(job.key);
            }
        }
    }

    /// The last computed range if it is one of `quantity`.
    fn held(&self, quantity: HeatQuantity) -> Option<HeatRange> {
        self.range
            .filter(|_| self.key.as_ref().is_some_and(|k| k.quantity == quantity))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::twisted_pose;
    use crate::builtin::builtin_scene;
    use crate::skin::rest_bounds;

    /// The range the frame thread used to compute itself: the independent answer.
    fn direct(scene: &Scene, pose: &Pose, betas: &SceneBetas, diagonal: f32) -> HeatRange {
        let betas = HeatBetas {
            betas: Some(betas),
            scale: 1.0,
            centers: None,
            ddm: None,
            dm: None,
        };
        let modes = [SkinningMode::Lbs, SkinningMode::Dqs];
        let spec = HeatRangeSpec::default();
        pose_heat_range(
            scene,
            pose,
            HeatQuantity::Collapse,
            &modes,
            betas,
            diagonal,
            spec,
        )
    }

    #[test]
    fn the_scan_runs_off_the_frame_thread_and_its_range_lands_later() {
        let scene = Arc::new(builtin_scene("twist").expect("builtin"));
        let (lo, hi) = rest_bounds(&scene).expect("vertices");
        let diagonal = (hi - lo).length();
        let betas = SceneBetas::default();
        let pose = twisted_pose(&scene, "tip", 170.0);
        let inputs = HeatInputs {
            scene: &scene,
            pose: &pose,
            modes: vec![SkinningMode::Lbs, SkinningMode::Dqs],
            betas: (&betas, 0),
            beta_scale: 1.0,
            diagonal,
            centers: None,
        };
        let quantity = HeatQuantity::Collapse;
        let mut ranges = HeatRanges::default();
        // The first frame does not wait: the default range while the scan runs.
        let first = ranges.range(quantity, HeatRangeMode::Auto, &inputs, false);
        assert_eq!(first, quantity.default_range());
        assert!(ranges.is_running());
        let expected = direct(&scene, &pose, &betas, diagonal);
        assert_ne!(
            expected,
            quantity.default_range(),
            "a twist narrows the range"
        );
        let mut landed = first;
        for _ in 0..500 {
            landed = ranges.range(quantity, HeatRangeMode::Auto, &inputs, false);
            if !ranges.is_running() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!ranges.is_running(), "the scan did not land in 5 s");
        assert_eq!(landed, expected);

        // A new pose: the old range is shown until the new scan lands; a waiting frame gets it.
        let pose = twisted_pose(&scene, "tip", 60.0);
        let inputs = HeatInputs {
            pose: &pose,
            ..inputs
        };
        let stale = ranges.range(quantity, HeatRangeMode::Auto, &inputs, false);
        assert_eq!(stale, expected);
        let held = ranges.range(quantity, HeatRangeMode::Hold, &inputs, false);
        assert!(held == expected || !ranges.is_running());
        let fresh = ranges.range(quantity, HeatRangeMode::Auto, &inputs, true);
        assert_eq!(fresh, direct(&scene, &pose, &betas, diagonal));
        assert_ne!(fresh, expected, "60 degrees pinches less than 170");
        assert!(!ranges.is_running());
        let fixed = ranges.range(quantity, HeatRangeMode::Fixed, &inputs, false);
        assert_eq!(fixed, quantity.default_range());
    }
}
