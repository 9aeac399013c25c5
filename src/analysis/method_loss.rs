//! Whether a region's loss is the skinning method's or the pose's: one rule for `check` and `report`.
//!
//! A region that loses volume under every mode alike (a crumpled shoulder, a squashed clip) is
//! the pose: no flag or blend map brings it back. Only a region LBS shrinks clearly more than
//! both DQS and CoR (the candy wrapper, the pinched elbow) is LBS's fault.

/// Largest spread (largest less smallest ratio) of a region's ratios under the modes at which
/// they count as the same: the pose takes the volume, not the method.
pub const SAME_RATIO_SPREAD: f64 = 0.02;

/// Whether LBS loses clearly more of a region than DQS and CoR at one pose.
///
/// True when the LBS ratio to rest is below `min_ratio` and below `min_ratio` times both the
/// DQS and the CoR ratio, LBS loses at least [`LOSS_FACTOR`] times what each of them loses (so
/// most of the loss is LBS's, not the pose's), and DQS and CoR keep a positive measure (a region
/// inside out under them too is not measured meaningfully at that pose). `cor` `None`: DQS alone
/// is compared.
#[must_use]
pub fn lbs_loses_more(lbs: f64, dqs: f64, cor: Option<f64>, min_ratio: f64) -> bool {
    let keeps = |other: f64| {
        other > 0.0 && lbs < min_ratio * other && 1.0 - lbs >= LOSS_FACTOR * (1.0 - other)
    };
    lbs.is_finite() && lbs < min_ratio && keeps(dqs) && cor.is_none_or(keeps)
}

/// How many times what DQS and CoR lose LBS must lose for the loss to be LBS's: at 2, at least
/// half of it is the method's, not the pose's.
pub const LOSS_FACTOR: f64 = 2.0;

/// Whether every ratio of `ratios` (one per mode, NaN left out) lies within [`SAME_RATIO_SPREAD`]
/// of the others: the modes lose the same, so the pose, not the method, takes it.
#[must_use]
pub fn same_in_every_mode(ratios: &[f64]) -> bool {
    let finite: Vec<f64> = ratios.iter().copied().filter(|r| r.is_finite()).collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    finite.len() >= 2 && hi - lo <= SAME_RATIO_SPREAD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lbs_must_lose_clearly_more_than_dqs_and_cor() {
        // builtin:twist at 180 degrees: LBS 0.713, DQS 0.999.
        assert!(lbs_loses_more(0.713, 0.999, Some(1.0), 0.9));
        assert!(lbs_loses_more(0.713, 0.999, None, 0.9));
        // The pose: CoR loses as much.
        assert!(!lbs_loses_more(0.746, 1.002, Some(0.76), 0.9));
        // Not below the threshold, or not clearly below DQS.
        assert!(!lbs_loses_more(0.95, 1.0, Some(1.0), 0.9));
        assert!(!lbs_loses_more(0.85, 0.9, Some(1.0), 0.9));
        // A finger curled shut: LBS 0.568, DQS 0.702, CoR 0.674; most of the loss is the pose.
        assert!(!lbs_loses_more(0.568, 0.702, Some(0.674), 0.9));
        // A knee: LBS 0.838, DQS 0.958, CoR 0.936; LBS loses 0.162, CoR 0.064.
        assert!(lbs_loses_more(0.838, 0.958, Some(0.936), 0.9));
        // Open or flat regions measured as volumes: -0.000 vs -0.000, -1.997 vs -1.997.
        assert!(!lbs_loses_more(-0.0001, -0.00005, Some(-0.00005), 0.9));
        assert!(!lbs_loses_more(-1.997, -1.997, Some(-1.99), 0.9));
        assert!(!lbs_loses_more(-7.661, -7.880, None, 0.9));
        assert!(!lbs_loses_more(f64::NAN, 1.0, Some(1.0), 0.9));
    }

    #[test]
    fn the_same_loss_in_every_mode_is_the_pose() {
        assert!(same_in_every_mode(&[0.75, 0.76, 0.755, 0.752]));
        assert!(!same_in_every_mode(&[0.56, 0.995, 0.9, 1.0]));
        assert!(same_in_every_mode(&[0.8, f64::NAN, 0.81]));
        assert!(!same_in_every_mode(&[0.8]));
    }
}
