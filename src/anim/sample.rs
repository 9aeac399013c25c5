//! Keyframe sampling: STEP, LINEAR (slerp for rotations) and CUBICSPLINE.

use glam::{Quat, Vec3};

use crate::scene::{Animation, Channel, Interpolation, Property};

/// Length of a clip in seconds: the latest key time over all its channels.
#[must_use]
pub fn clip_duration_s(animation: &Animation) -> f32 {
    animation
        .channels
        .iter()
        .filter_map(|c| c.times_s.last().copied())
        .filter(|t| t.is_finite())
        .fold(0.0, f32::max)
}

/// Samples a channel at `time_s` (clamped to its keys) into `out` (resized to its component count).
///
/// Returns false, leaving `out` empty, when the channel has no keys or too few values.
pub fn sample_channel(channel: &Channel, time_s: f32, out: &mut Vec<f32>) -> bool {
    let n = channel.components();
    out.clear();
    let keys = channel.times_s.len();
    let stride = match channel.interpolation {
        Interpolation::CubicSpline => 3 * n,
        _ => n,
    };
    if keys == 0 || n == 0 || channel.values.len() < keys * stride {
        return false;
    }
    let (k, s, dt) = locate(&channel.times_s, time_s);
    let value = |key: usize, part: usize| -> &[f32] {
        let start = key * stride + part * n;
        channel.values.get(start..start + n).unwrap_or(&[])
    };
    match channel.interpolation {
        Interpolation::Step => out.extend_from_slice(value(k, 0)),
        Interpolation::Linear => {
            if s == 0.0 {
                out.extend_from_slice(value(k, 0));
            } else if channel.property == Property::Rotation {
                // Keys are often not exactly unit (3-digit exports); slerp needs unit inputs.
                let a = unit_quat_from(value(k, 0));
                let b = unit_quat_from(value(k + 1, 0));
                out.extend_from_slice(&slerp_shortest(a, b, s).to_array());
            } else {
                let (a, b) = (value(k, 0), value(k + 1, 0));
                out.extend(a.iter().zip(b).map(|(a, b)| a + (b - a) * s));
            }
        }
        Interpolation::CubicSpline => {
            if s == 0.0 {
                out.extend_from_slice(value(k, 1));
            } else {
                // Hermite basis; tangents are scaled by the key interval (glTF spec, Appendix C).
                let (s2, s3) = (s * s, s * s * s);
                let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                let h10 = s3 - 2.0 * s2 + s;
                let h01 = -2.0 * s3 + 3.0 * s2;
                let h11 = s3 - s2;
                let (v0, b0) = (value(k, 1), value(k, 2));
                let (v1, a1) = (value(k + 1, 1), value(k + 1, 0));
                for i in 0..n {
                    out.push(h00 * v0[i] + h10 * dt * b0[i] + h01 * v1[i] + h11 * dt * a1[i]);
                }
            }
            if channel.property == Property::Rotation {
                let q = quat_from(out).normalize();
                out.clear();
                out.extend_from_slice(&q.to_array());
            }
        }
    }
    out.len() == n
}

/// Finds the key interval for `t`: (key index k, fraction s in [0, 1), interval length).
///
/// Times before the first key or after the last clamp to that key with s = 0.
fn locate(times: &[f32], t: f32) -> (usize, f32, f32) {
    let last = times.len() - 1;
    if t.is_nan() || t <= times[0] {
        return (0, 0.0, 0.0);
    }
    if t >= times[last] {
        return (last, 0.0, 0.0);
    }
    // First key strictly after t; t > times[0] so it is at least 1.
    let next = times.partition_point(|&x| x <= t).clamp(1, last);
    let k = next - 1;
    let dt = times[next] - times[k];
    let s = if dt > 0.0 {
        ((t - times[k]) / dt).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (k, s, dt)
}

/// Spherical interpolation along the shorter arc, normalised.
fn slerp_shortest(a: Quat, b: Quat, s: f32) -> Quat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    a.slerp(b, s).normalize()
}

/// A quaternion from four floats (x, y, z, w); identity when fewer.
fn quat_from(v: &[f32]) -> Quat {
    match v {
        [x, y, z, w, ..] => Quat::from_xyzw(*x, *y, *z, *w),
        _ => Quat::IDENTITY,
    }
}

/// A vector from three floats; zero when fewer.
pub(crate) fn vec3_from(v: &[f32]) -> Vec3 {
    match v {
        [x, y, z, ..] => Vec3::new(*x, *y, *z),
        _ => Vec3::ZERO,
    }
}

/// A unit quaternion from four floats; identity when fewer or degenerate.
pub(crate) fn unit_quat_from(v: &[f32]) -> Quat {
    let q = quat_from(v);
    let len = q.length();
    if len.is_finite() && len > 1e-6 {
        q / len
    } else {
        Quat::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(
        property: Property,
        interpolation: Interpolation,
        times: &[f32],
        values: &[f32],
    ) -> Channel {
        Channel {
            node: 0,
            property,
            interpolation,
            times_s: times.to_vec(),
            values: values.to_vec(),
        }
    }

    #[test]
    fn linear_translation_and_clamping() {
        let c = channel(
            Property::Translation,
            Interpolation::Linear,
            &[1.0, 3.0],
            &[0.0, 0.0, 0.0, 2.0, 4.0, 6.0],
        );
        let mut out = Vec::new();
        assert!(sample_channel(&c, 2.0, &mut out));
        assert_eq!(out, vec![1.0, 2.0, 3.0]);
        sample_channel(&c, 0.0, &mut out);
        assert_eq!(out, vec![0.0, 0.0, 0.0]);
        sample_channel(&c, 10.0, &mut out);
        assert_eq!(out, vec![2.0, 4.0, 6.0]);
        sample_channel(&c, f32::NAN, &mut out);
        assert_eq!(out, vec![0.0, 0.0, 0.0]);
    }

    #[test]
    fn step_holds_previous_key() {
        let c = channel(
            Property::Scale,
            Interpolation::Step,
            &[0.0, 1.0],
            &[1.0, 1.0, 1.0, 2.0, 2.0, 2.0],
        );
        let mut out = Vec::new();
        sample_channel(&c, 0.99, &mut out);
        assert_eq!(out, vec![1.0, 1.0, 1.0]);
        sample_channel(&c, 1.0, &mut out);
        assert_eq!(out, vec![2.0, 2.0, 2.0]);
    }

    #[test]
    fn linear_rotation_takes_shortest_arc() {
        let a = Quat::from_rotation_z(0.2);
        let b = -Quat::from_rotation_z(0.6);
        let mut values = a.to_array().to_vec();
        values.extend_from_slice(&b.to_array());
        let c = channel(
            Property::Rotation,
            Interpolation::Linear,
            &[0.0, 1.0],
            &values,
        );
        let mut out = Vec::new();
        sample_channel(&c, 0.5, &mut out);
        let q = unit_quat_from(&out);
        let expected = Quat::from_rotation_z(0.4);
        assert!(
            q.abs_diff_eq(expected, 1e-5) || q.abs_diff_eq(-expected, 1e-5),
            "{q}"
        );
    }

    #[test]
    fn cubic_spline_uses_scaled_tangents() {
        // One component (scale x/y/z identical) from 0 at t=0 to 1 at t=2, out-tangent 1 and in-tangent 0.
        let key0 = [
            0.0, 0.0, 0.0, /*v*/ 0.0, 0.0, 0.0, /*b*/ 1.0, 1.0, 1.0,
        ];
        let key1 = [/*a*/ 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0];
        let values: Vec<f32> = key0.iter().chain(&key1).copied().collect();
        let c = channel(
            Property::Scale,
            Interpolation::CubicSpline,
            &[0.0, 2.0],
            &values,
        );
        let mut out = Vec::new();
        sample_channel(&c, 1.0, &mut out);
        // s = 0.5: h01 = 0.5, h10 = 0.125, dt = 2: 0.5 + 0.125 * 2 * 1 = 0.75.
        assert!((out[0] - 0.75).abs() < 1e-6, "{out:?}");
        sample_channel(&c, 2.0, &mut out);
        assert_eq!(out[0], 1.0);
    }

    #[test]
    fn short_channels_are_refused() {
        let c = channel(
            Property::Translation,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[0.0; 5],
        );
        let mut out = Vec::new();
        assert!(!sample_channel(&c, 0.5, &mut out));
        assert!(out.is_empty());
    }
}
