// Unit tests of the ports that need no browser: `node --test integrations/three/test/math.test.mjs`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { dqviewInfluences } from "../influences.js";
import { resolveName } from "../names.js";
import { fillPalette, splitMatrix } from "../palette.js";

/** A column-major 4x4 from a rotation about `axis` by `angle`, a translation and a diagonal scale. */
function trs([ax, ay, az], angle, [tx, ty, tz], [sx, sy, sz] = [1, 1, 1]) {
    const n = Math.hypot(ax, ay, az);
    const [x, y, z] = [ax / n, ay / n, az / n];
    const [c, s, t] = [Math.cos(angle), Math.sin(angle), 1 - Math.cos(angle)];
    const r = [
        t * x * x + c,
        t * x * y + s * z,
        t * x * z - s * y,
        t * x * y - s * z,
        t * y * y + c,
        t * y * z + s * x,
        t * x * z + s * y,
        t * y * z - s * x,
        t * z * z + c,
    ];
    return [
        ...r.slice(0, 3).map((v) => v * sx),
        0,
        ...r.slice(3, 6).map((v) => v * sy),
        0,
        ...r.slice(6, 9).map((v) => v * sz),
        0,
        tx,
        ty,
        tz,
        1,
    ];
}

/** The point `p` moved by a unit dual quaternion [real, dual] (DualQuat::transform_point3). */
function dqPoint(dq, [px, py, pz]) {
    const [x, y, z, w, dx, dy, dz, dw] = dq;
    const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    const r = [x, y, z];
    const inner = cross(r, [px, py, pz]).map((v, i) => v + w * [px, py, pz][i]);
    const rotated = cross(r, inner).map((v, i) => [px, py, pz][i] + 2 * v);
    const t = cross(r, [dx, dy, dz]).map((v, i) => 2 * (w * [dx, dy, dz][i] - dw * r[i] + v));
    return rotated.map((v, i) => v + t[i]);
}

const matPoint = (m, [x, y, z]) => [0, 1, 2].map((i) => m[i] * x + m[4 + i] * y + m[8 + i] * z + m[12 + i]);
const close = (a, b, eps = 1e-9) => a.every((v, i) => Math.abs(v - b[i]) < eps);

function palette(skinning, capacity = 4) {
    const arrays = {
        dualQuats: new Float32Array(8 * capacity),
        matrices: new Float32Array(16 * capacity),
        scaleShears: new Float32Array(12 * capacity),
    };
    return { ...fillPalette(skinning, arrays), ...arrays };
}

test("a rigid matrix splits into a dual quaternion that moves points as the matrix does", () => {
    for (const angle of [0.3, 2.9, Math.PI, -3.1]) {
        const m = trs([0.3, -1, 0.4], angle, [1, 2, -3]);
        const s = splitMatrix(m);
        assert.ok(s.isRigid && !s.wasNonFinite);
        const p = palette([m]);
        assert.equal(p.nonRigid, false);
        assert.ok(close(dqPoint(p.dualQuats.slice(0, 8), [0.5, -2, 7]), matPoint(m, [0.5, -2, 7]), 1e-5));
        // S is the identity for a rigid palette, std140 columns padded.
        assert.deepEqual([...p.scaleShears.slice(0, 12)], [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
    }
});

test("scale, shear and mirrors go into S with M = [R | t] S", () => {
    const shear = [1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    const base = trs([0, 1, 0], 0.8, [1, 1, 1], [2, 0.5, 3]);
    const mul = (a, b) =>
        Array.from({ length: 16 }, (_, k) =>
            [0, 1, 2, 3].reduce((s, i) => s + a[4 * i + (k % 4)] * b[4 * Math.floor(k / 4) + i], 0),
        );
    for (const m of [
        mul(base, shear),
        trs([1, 0, 0], 1, [0, 0, 0], [-1, 1, 1]),
        trs([0, 0, 1], 0.2, [0, 0, 0], [1, 1 + 4e-5, 1]),
    ]) {
        const p = palette([m]);
        assert.equal(p.nonRigid, true);
        const s = p.scaleShears;
        const rigid = (v) => dqPoint(p.dualQuats.slice(0, 8), v).map((x, i) => x - m[12 + i]);
        // [R | t] S applied to each axis equals M's columns.
        for (let c = 0; c < 3; c++) {
            const rs = rigid([s[4 * c], s[4 * c + 1], s[4 * c + 2]]);
            assert.ok(close(rs, m.slice(4 * c, 4 * c + 3), 1e-5), `column ${c}: ${rs} vs ${m.slice(4 * c, 4 * c + 3)}`);
        }
    }
});

test("non-finite matrices become the identity, and joints past the skin read as the identity", () => {
    const bad = trs([0, 1, 0], 0.5, [0, 0, 0]);
    bad[13] = NaN;
    const p = palette([bad, trs([1, 0, 0], 0.2, [0, 1, 0])], 3);
    assert.ok(splitMatrix(bad).wasNonFinite);
    assert.deepEqual([...p.matrices.slice(0, 16)], [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    assert.deepEqual([...p.dualQuats.slice(0, 8)], [0, 0, 0, 1, 0, 0, 0, 0]);
    assert.deepEqual([...p.dualQuats.slice(16, 24)], [0, 0, 0, 1, 0, 0, 0, 0]);
});

/** A stand-in for a three BufferAttribute of itemSize 4. */
const attribute = (rows) => ({ count: rows.length, getComponent: (v, k) => rows[v][k] });

test("influences are merged, renormalised and sorted heaviest first, ties by joint", () => {
    const geometry = {
        attributes: {
            position: { count: 4 },
            skinIndex: attribute([
                [3, 1, 2, 0],
                [5, 5, 2, 0],
                [0, 1, 2, 3],
                [7, 8, 9, 4],
            ]),
            skinWeight: attribute([
                [0.2, 0.6, 0, 0.2],
                [0.3, 0.3, 0.9, 0],
                [0, 0, 0, 0],
                [0.5, 1e-9, -1, NaN],
            ]),
        },
    };
    const {
        joints: [joints],
        weights: [weights],
    } = dqviewInfluences(geometry, 4);
    assert.deepEqual([...joints.slice(0, 4)], [1, 0, 3, 0]);
    assert.ok(close([...weights.slice(0, 4)], [0.6, 0.2, 0.2, 0], 1e-7));
    assert.deepEqual([...joints.slice(4, 8)], [2, 5, 0, 0]);
    assert.ok(close([...weights.slice(4, 8)], [0.6, 0.4, 0, 0], 1e-7));
    assert.deepEqual([...weights.slice(8, 12)], [0, 0, 0, 0]);
    assert.deepEqual([...joints.slice(12, 16)], [7, 0, 0, 0]);
    assert.deepEqual([...weights.slice(12, 16)], [1, 0, 0, 0]);
});

test("names resolve as dqview resolves them", () => {
    const entries = ["mixamorig:Hips", "LowerArm.L", "lowerarm.R", "Spine"].map((name, index) => ({ index, name }));
    assert.equal(resolveName("joint", entries, "LowerArm.L"), 1);
    assert.equal(resolveName("joint", entries, "LOWERARM.r"), 2);
    assert.equal(resolveName("joint", entries, "Hips"), 0);
    assert.equal(resolveName("joint", entries, "3"), 3);
    assert.throws(() => resolveName("joint", entries, "LowerArm.X"), /did you mean `LowerArm.L`, `lowerarm.R` or/);
});
