//! Lane math of the packed fast path: four vertices at a time, one glam `Vec4` per quantity.
//!
//! Blends run per vertex across components (a joint's dual quaternion is two
//! `Vec4`s, its LBS matrix three row `Vec4`s), so fetching a joint is two or three
//! aligned loads rather than a gather. A 4x4 transpose then turns four vertices'
//! blends into lanes, and everything after (normalise, quaternion to matrix,
//! transform, normals) runs on four vertices per instruction. glam's `Vec4` is an
//! SSE2 register on x86-64 (and a NEON one on aarch64), so the default target
//! vectorises this with no target features and no unsafe code.
//!
//! The math is the reference's (`cpu.rs`), in the same order of operations
//! where it matters (the blends); rare cases (degenerate blends, collapsed
//! normals, non-finite results) take a cold per-vertex path with the reference's rules.

// Lane loops index several arrays by the same vertex or row on purpose.
#![allow(clippy::needless_range_loop)]

use glam::{Mat4, Vec3, Vec4, Vec4Swizzles};

/// Vertices per group (lanes of a `Vec4`).
pub(super) const GROUP: usize = 4;

/// Four vertices: bind positions and normals as lanes, influences per vertex.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Group {
    /// Bind positions, x, y and z lanes.
    pub(super) p: Lanes3,
    /// Bind normals, x, y and z lanes.
    pub(super) n: Lanes3,
    /// `w[v]`: the four weights of vertex `v`, heaviest first (0 in unused slots).
    pub(super) w: [Vec4; GROUP],
    /// `j[v]`: the four joints of vertex `v` (clamped to the palette's identity entry when past it).
    pub(super) j: [[u16; 4]; GROUP],
}

/// Four 3-vectors as x, y and z lanes.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Lanes3 {
    /// x of each lane.
    pub(super) x: Vec4,
    /// y of each lane.
    pub(super) y: Vec4,
    /// z of each lane.
    pub(super) z: Vec4,
}

impl Lanes3 {
    /// Lane `l` as a vector.
    fn lane(&self, l: usize) -> Vec3 {
        Vec3::new(self.x[l], self.y[l], self.z[l])
    }

    /// Sets lane `l`.
    fn set_lane(&mut self, l: usize, v: Vec3) {
        self.x[l] = v.x;
        self.y[l] = v.y;
        self.z[l] = v.z;
    }

    /// Packs up to four vectors into lanes (missing ones are zero).
    pub(super) fn from_vectors(v: &[Vec3]) -> Self {
        let mut out = Self::default();
        for (l, v) in v.iter().take(GROUP).enumerate() {
            out.set_lane(l, *v);
        }
        out
    }

    /// Writes the lanes to `out` (at most four vectors; a tail group writes fewer).
    #[inline(always)]
    fn store(&self, out: &mut [Vec3]) {
        let (x, y, z) = (self.x, self.y, self.z);
        // x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3: three whole-register stores.
        let interleaved = [
            Vec4::new(x.x, y.x, z.x, x.y),
            Vec4::new(y.y, z.y, x.z, y.z),
            Vec4::new(z.z, x.w, y.w, z.w),
        ];
        let out: &mut [f32] = bytemuck::cast_slice_mut(out);
        if let Some(full) = out.get_mut(..3 * GROUP) {
            let full: &mut [[f32; 4]] = bytemuck::cast_slice_mut(full);
            for (o, v) in full.iter_mut().zip(interleaved) {
                *o = v.to_array();
            }
        } else {
            let flat: [f32; 3 * GROUP] = bytemuck::cast(interleaved.map(|v| v.to_array()));
            let n = out.len();
            out.copy_from_slice(&flat[..n]);
        }
    }

    /// Squared length of each lane.
    fn length_squared(&self) -> Vec4 {
        self.x * self.x + self.y * self.y + self.z * self.z
    }

    /// Each lane normalised; lanes `try_normalize` refuses (zero or non-finite) are `None` in the mask.
    fn try_normalize(&self) -> (Self, glam::BVec4A) {
        let inv = Vec4::ONE / self.length_squared().sqrt();
        let ok = inv.is_finite_mask() & inv.cmpgt(Vec4::ZERO);
        let n = Self {
            x: self.x * inv,
            y: self.y * inv,
            z: self.z * inv,
        };
        (n, ok)
    }

    /// Lanes from `a` where `mask` is set, else from `b`.
    fn select(mask: glam::BVec4A, a: &Self, b: &Self) -> Self {
        Self {
            x: Vec4::select(mask, a.x, b.x),
            y: Vec4::select(mask, a.y, b.y),
            z: Vec4::select(mask, a.z, b.z),
        }
    }
}

/// One joint's dual quaternion: real and dual parts, (x, y, z, w) each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct JointDq {
    /// Rotation quaternion.
    pub(super) real: Vec4,
    /// Dual part, 0.5 * t * real.
    pub(super) dual: Vec4,
}

/// One joint's LBS skinning matrix: its top three rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct JointRows {
    /// Rows 0, 1 and 2 of the matrix.
    pub(super) rows: [Vec4; 3],
}

impl JointRows {
    /// The top three rows of `m`.
    pub(super) fn from_mat4(m: Mat4) -> Self {
        Self {
            rows: [m.row(0), m.row(1), m.row(2)],
        }
    }
}

/// Skinned positions and normals of one group, as lanes.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Skinned {
    /// Positions.
    pub(super) p: Lanes3,
    /// Unit normals.
    pub(super) n: Lanes3,
}

impl Skinned {
    /// Writes up to four vertices (fewer for a tail group).
    #[inline(always)]
    pub(super) fn store(&self, positions: &mut [Vec3], normals: &mut [Vec3]) {
        self.p.store(positions);
        self.n.store(normals);
    }

    /// Hybrid: positions lerped by `beta` per lane, normals lerped then renormalised (DQS's when that fails).
    pub(super) fn lerp(lbs: &Self, dqs: &Self, beta: Vec4) -> Self {
        let one_minus = Vec4::ONE - beta;
        let mix = |a: &Lanes3, b: &Lanes3| Lanes3 {
            x: a.x * one_minus + b.x * beta,
            y: a.y * one_minus + b.y * beta,
            z: a.z * one_minus + b.z * beta,
        };
        let (n, ok) = mix(&lbs.n, &dqs.n).try_normalize();
        Self {
            p: mix(&lbs.p, &dqs.p),
            n: Lanes3::select(ok, &n, &dqs.n),
        }
    }

    /// Replaces non-finite lanes by the bind position and normal, as the reference does.
    #[inline(always)]
    pub(super) fn finite_or_bind(&mut self, bind: &Group) {
        // One sum of everything: finite unless some entry is not (an overflowing sum of
        // finite values only sends us to the exact per-lane check below).
        let sum = self.p.x + self.p.y + self.p.z + self.n.x + self.n.y + self.n.z;
        if sum.is_finite_mask().all() {
            return;
        }
        for l in 0..GROUP {
            if !self.p.lane(l).is_finite() {
                self.p.set_lane(l, finite_or(bind.p.lane(l), Vec3::ZERO));
            }
            if !self.n.lane(l).is_finite() {
                self.n.set_lane(l, finite_or(bind.n.lane(l), Vec3::Y));
            }
        }
    }
}

/// `v` when finite, else `fallback`.
fn finite_or(v: Vec3, fallback: Vec3) -> Vec3 {
    if v.is_finite() { v } else { fallback }
}

/// Joint lookup: the entry of joint `j`, the identity for joints past the palette.
pub(super) trait Joints<T: Copy> {
    /// The entry of joint `j`.
    fn get(&self, j: u16) -> T;
}

/// Palettes of up to 256 entries padded with identities, for meshes whose joints are all below 256:
/// a `u8` index into a 256-array needs no bounds check or clamp.
pub(super) struct Small<'a, T>(pub(super) &'a [T; 256]);

impl<T: Copy> Joints<T> for Small<'_, T> {
    #[inline(always)]
    fn get(&self, j: u16) -> T {
        // The caller checked that every joint of the mesh is below 256.
        self.0[usize::from(j as u8)]
    }
}

/// Any palette: joints past its end read the identity.
pub(super) struct Clamped<'a, T> {
    /// The joints' entries.
    pub(super) entries: &'a [T],
    /// The identity entry.
    pub(super) identity: T,
}

impl<T: Copy> Joints<T> for Clamped<'_, T> {
    #[inline(always)]
    fn get(&self, j: u16) -> T {
        *self.entries.get(usize::from(j)).unwrap_or(&self.identity)
    }
}

/// Linear blend skinning of one group: M = sum w_i M_i; normals by M's cofactor matrix.
#[inline]
pub(super) fn lbs_group(g: &Group, palette: &impl Joints<JointRows>) -> Skinned {
    // Blend per vertex: three rows a joint, in the reference's order (w0 M0 + w1 M1 + ...).
    let mut rows = [[Vec4::ZERO; GROUP]; 3];
    for v in 0..GROUP {
        let [j0, j1, j2, j3] = g.j[v];
        let (m0, m1, m2, m3) = (
            palette.get(j0),
            palette.get(j1),
            palette.get(j2),
            palette.get(j3),
        );
        let w = g.w[v];
        let (w0, w1, w2, w3) = (w.xxxx(), w.yyyy(), w.zzzz(), w.wwww());
        for r in 0..3 {
            rows[r][v] = m0.rows[r] * w0 + m1.rows[r] * w1 + m2.rows[r] * w2 + m3.rows[r] * w3;
        }
    }
    // Lanes: m[r][c] holds entry (r, c) of the four vertices' matrices.
    let m = rows.map(|r| {
        let t = Mat4::from_cols(r[0], r[1], r[2], r[3]).transpose();
        [t.x_axis, t.y_axis, t.z_axis, t.w_axis]
    });
    let p = Lanes3 {
        x: m[0][0] * g.p.x + m[0][1] * g.p.y + m[0][2] * g.p.z + m[0][3],
        y: m[1][0] * g.p.x + m[1][1] * g.p.y + m[1][2] * g.p.z + m[1][3],
        z: m[2][0] * g.p.x + m[2][1] * g.p.y + m[2][2] * g.p.z + m[2][3],
    };
    // Columns of the 3x3 part, their cross products (the cofactor matrix's columns) and the determinant.
    let col = |c: usize| Lanes3 {
        x: m[0][c],
        y: m[1][c],
        z: m[2][c],
    };
    let (a, b, c) = (col(0), col(1), col(2));
    let (bc, ca, ab) = (cross(&b, &c), cross(&c, &a), cross(&a, &b));
    let det = a.x * bc.x + a.y * bc.y + a.z * bc.z;
    let sign = Vec4::select(det.cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE);
    let cof_n = Lanes3 {
        x: (bc.x * g.n.x + ca.x * g.n.y + ab.x * g.n.z) * sign,
        y: (bc.y * g.n.x + ca.y * g.n.y + ab.y * g.n.z) * sign,
        z: (bc.z * g.n.x + ca.z * g.n.y + ab.z * g.n.z) * sign,
    };
    let (n, ok) = cof_n.try_normalize();
    let mut out = Skinned { p, n };
    if !ok.all() {
        // Cofactor collapsed the normal (singular M): the reference tries M n, then the bind normal.
        for l in 0..GROUP {
            if !ok.test(l) {
                let a3 = glam::Mat3::from_cols(a.lane(l), b.lane(l), c.lane(l));
                let bind = g.n.lane(l);
                out.n
                    .set_lane(l, (a3 * bind).try_normalize().unwrap_or(bind));
            }
        }
    }
    out
}

/// Per-lane cross product.
#[inline(always)]
fn cross(a: &Lanes3, b: &Lanes3) -> Lanes3 {
    Lanes3 {
        x: a.y * b.z - a.z * b.y,
        y: a.z * b.x - a.x * b.z,
        z: a.x * b.y - a.y * b.x,
    }
}

/// Dual quaternion skinning of one group (rigid palette), influence 0 as the sign pivot.
#[inline]
pub(super) fn dqs_group(g: &Group, palette: &impl Joints<JointDq>) -> Skinned {
    let mut real = [Vec4::ZERO; GROUP];
    let mut dual = [Vec4::ZERO; GROUP];
    for v in 0..GROUP {
        let [j0, j1, j2, j3] = g.j[v];
        let (q0, q1, q2, q3) = (
            palette.get(j0),
            palette.get(j1),
            palette.get(j2),
            palette.get(j3),
        );
        // Antipodality: flip the weight of each influence whose rotation points away from
        // the pivot's (q and -q are the same motion, but a mixed-sign sum takes the long way).
        // The four dot products at once: transpose the products, add the rows.
        let r0 = q0.real;
        let t = Mat4::from_cols(r0 * r0, q1.real * r0, q2.real * r0, q3.real * r0).transpose();
        let dots = t.x_axis + t.y_axis + t.z_axis + t.w_axis;
        let w = g.w[v];
        let w = Vec4::select(dots.cmplt(Vec4::ZERO), -w, w);
        let (w0, w1, w2, w3) = (w.xxxx(), w.yyyy(), w.zzzz(), w.wwww());
        real[v] = q0.real * w0 + q1.real * w1 + q2.real * w2 + q3.real * w3;
        dual[v] = q0.dual * w0 + q1.dual * w1 + q2.dual * w2 + q3.dual * w3;
    }
    let r = Mat4::from_cols(real[0], real[1], real[2], real[3]).transpose();
    let d = Mat4::from_cols(dual[0], dual[1], dual[2], dual[3]).transpose();
    let (mut rx, mut ry, mut rz, mut rw) = (r.x_axis, r.y_axis, r.z_axis, r.w_axis);
    let (mut dx, mut dy, mut dz, mut dw) = (d.x_axis, d.y_axis, d.z_axis, d.w_axis);
    let len = (rx * rx + ry * ry + rz * rz + rw * rw).sqrt();
    // Unit rotations and weights summing to 1 keep len finite and the dual part finite
    // (palette entries are at most 1e36), so only a (near) zero len needs the fallback; NaN fails too.
    let ok = len.cmpgt(Vec4::splat(1e-6));
    let mut inv = Vec4::ONE / len;
    if !ok.all() {
        // A blend with no rotation left (or overflowed): the reference falls back to the pivot.
        for l in 0..GROUP {
            if !ok.test(l) {
                // The pivot, normalised (identity when it has no rotation either). Its dual part
                // is not made orthogonal: that changes only the scalar part of t, never t.
                let pivot = palette.get(g.j[l][0]);
                let (pr, pd) = (pivot.real, pivot.dual);
                let plen = pr.length();
                let (qr, qd, q_inv) = if plen.is_finite() && plen > 1e-12 && pd.is_finite() {
                    (pr, pd, 1.0 / plen)
                } else {
                    (Vec4::W, Vec4::ZERO, 1.0)
                };
                (rx[l], ry[l], rz[l], rw[l]) = (qr.x, qr.y, qr.z, qr.w);
                (dx[l], dy[l], dz[l], dw[l]) = (qd.x, qd.y, qd.z, qd.w);
                inv[l] = q_inv;
            }
        }
    }
    let (rx, ry, rz, rw) = (rx * inv, ry * inv, rz * inv, rw * inv);
    let (dx, dy, dz, dw) = (dx * inv, dy * inv, dz * inv, dw * inv);
    // Rotation matrix of the unit quaternion, once per vertex, applied to position and normal.
    let (x2, y2, z2) = (rx + rx, ry + ry, rz + rz);
    let (xx, yy, zz) = (rx * x2, ry * y2, rz * z2);
    let (xy, xz, yz) = (rx * y2, rx * z2, ry * z2);
    let (wx, wy, wz) = (rw * x2, rw * y2, rw * z2);
    let m = [
        [Vec4::ONE - (yy + zz), xy - wz, xz + wy],
        [xy + wz, Vec4::ONE - (xx + zz), yz - wx],
        [xz - wy, yz + wx, Vec4::ONE - (xx + yy)],
    ];
    // Translation t = 2 (r.w d.xyz - d.w r.xyz + r.xyz x d.xyz).
    let two = Vec4::splat(2.0);
    let t = [
        two * (rw * dx - dw * rx + (ry * dz - rz * dy)),
        two * (rw * dy - dw * ry + (rz * dx - rx * dz)),
        two * (rw * dz - dw * rz + (rx * dy - ry * dx)),
    ];
    let apply = |v: &Lanes3, r: usize| m[r][0] * v.x + m[r][1] * v.y + m[r][2] * v.z;
    let p = Lanes3 {
        x: apply(&g.p, 0) + t[0],
        y: apply(&g.p, 1) + t[1],
        z: apply(&g.p, 2) + t[2],
    };
    let rotated = Lanes3 {
        x: apply(&g.n, 0),
        y: apply(&g.n, 1),
        z: apply(&g.n, 2),
    };
    let (n, ok) = rotated.try_normalize();
    Skinned {
        p,
        n: Lanes3::select(ok, &n, &g.n),
    }
}
