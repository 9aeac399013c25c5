// The joint palette exactly as dqview builds it, ported from its Rust: each skinning matrix M_j
// split into a rotation R_j, translation t_j and scale/shear S_j with M_j = [R_j | t_j] S_j,
// R_j as a unit dual quaternion. Matrices are column-major arrays (three's `elements` order).
//
// Rust sources: src/skin/palette.rs `JointPalette::rebuild`, src/skin/rigid_split.rs `split`
// and `split_rotation`, src/dq/polar.rs `split_rigid`, `rotation_of`, `polar_iteration`,
// `gram_schmidt`, `is_rigid_gram`, src/dq/mod.rs `DualQuat::from_rotation_translation`, and
// glam 0.34's `Quat::from_mat3` / `Mat3::from_quat` / `Mat3::inverse`.

const F32_EPSILON = 2 ** -23;
/** dq::RIGID_TOLERANCE: the largest |S - I| entry for which a joint still counts as rigid. */
const RIGID_TOLERANCE = 32 * F32_EPSILON;
/** rigid_split.rs ORTHONORMAL_TOLERANCE: the largest |A^T A - I| entry of the fast path. */
const ORTHONORMAL_TOLERANCE = 1e-4;
/** dq::MAX_MATRIX_ENTRY: a larger entry counts as non-finite. */
const MAX_MATRIX_ENTRY = 1e36;

const IDENTITY3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

// 3x3 matrices: 9 numbers, column-major; column c is [3c, 3c + 1, 3c + 2].
const col = (m, c) => [m[3 * c], m[3 * c + 1], m[3 * c + 2]];
const fromCols = (a, b, c) => [...a, ...b, ...c];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const scale3 = (m, s) => m.map((x) => x * s);
const add3 = (a, b) => a.map((x, i) => x + b[i]);
const sub3 = (a, b) => a.map((x, i) => x - b[i]);
const transpose = (m) => [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]];
const frobenius = (m) => Math.sqrt(m.reduce((s, x) => s + x * x, 0));
const determinant = (m) => dot(col(m, 2), cross(col(m, 0), col(m, 1)));
const isFinite3 = (m) => m.every(Number.isFinite);
const absDiffEq = (a, b, tolerance) => a.every((x, i) => Math.abs(x - b[i]) <= tolerance);

function mul3(a, b) {
    const out = new Array(9);
    for (let c = 0; c < 3; c++) {
        for (let r = 0; r < 3; r++) {
            out[3 * c + r] = a[r] * b[3 * c] + a[3 + r] * b[3 * c + 1] + a[6 + r] * b[3 * c + 2];
        }
    }
    return out;
}

/** glam `Mat3::inverse`: the cofactor rows over the determinant (not checked). */
function inverse3(m) {
    const [x, y, z] = [col(m, 0), col(m, 1), col(m, 2)];
    const [t0, t1, t2] = [cross(y, z), cross(z, x), cross(x, y)];
    const inv = 1 / dot(z, t2);
    return transpose(fromCols(t0, t1, t2).map((v) => v * inv));
}

/** The upper 3x3 of a column-major 4x4. */
const mat3FromMat4 = (m) => [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]];

/** glam `Quat::from_mat3` (DirectXMath's `XMQuaternionRotationMatrix`): [x, y, z, w]. */
function quatFromMat3(m) {
    const [m00, m01, m02, m10, m11, m12, m20, m21, m22] = m;
    if (m22 <= 0) {
        const dif10 = m11 - m00;
        const omm22 = 1 - m22;
        if (dif10 <= 0) {
            const fourXsq = omm22 - dif10;
            const inv = 0.5 / Math.sqrt(fourXsq);
            return [fourXsq * inv, (m01 + m10) * inv, (m02 + m20) * inv, (m12 - m21) * inv];
        }
        const fourYsq = omm22 + dif10;
        const inv = 0.5 / Math.sqrt(fourYsq);
        return [(m01 + m10) * inv, fourYsq * inv, (m12 + m21) * inv, (m20 - m02) * inv];
    }
    const sum10 = m11 + m00;
    const opm22 = 1 + m22;
    if (sum10 <= 0) {
        const fourZsq = opm22 - sum10;
        const inv = 0.5 / Math.sqrt(fourZsq);
        return [(m02 + m20) * inv, (m12 + m21) * inv, fourZsq * inv, (m01 - m10) * inv];
    }
    const fourWsq = opm22 + sum10;
    const inv = 0.5 / Math.sqrt(fourWsq);
    return [(m12 - m21) * inv, (m20 - m02) * inv, (m01 - m10) * inv, fourWsq * inv];
}

/** glam `Mat3::from_quat` of a unit quaternion [x, y, z, w]. */
function mat3FromQuat([x, y, z, w]) {
    const [x2, y2, z2] = [x + x, y + y, z + z];
    const [xx, xy, xz, yy, yz, zz] = [x * x2, x * y2, x * z2, y * y2, y * z2, z * z2];
    const [wx, wy, wz] = [w * x2, w * y2, w * z2];
    return [1 - (yy + zz), xy + wz, xz - wy, xy - wz, 1 - (xx + zz), yz + wx, xz + wy, yz - wx, 1 - (xx + yy)];
}

function normalizeQuat(q) {
    const inv = 1 / Math.hypot(q[0], q[1], q[2], q[3]);
    return q.map((v) => v * inv);
}

/** glam `Quat` multiplication a * b (Hamilton product), [x, y, z, w]. */
function mulQuat([x0, y0, z0, w0], [x1, y1, z1, w1]) {
    return [
        w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1,
        w0 * y1 - x0 * z1 + y0 * w1 + z0 * x1,
        w0 * z1 + x0 * y1 - y0 * x1 + z0 * w1,
        w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1,
    ];
}

/** glam `Vec3::try_normalize`: null when 1/|v| is not finite and positive. */
function tryNormalize(v) {
    const rcp = 1 / Math.hypot(v[0], v[1], v[2]);
    return Number.isFinite(rcp) && rcp > 0 ? v.map((x) => x * rcp) : null;
}

/** glam `Vec3::any_orthonormal_vector` (Pixar's branchless basis). */
function anyOrthonormal([x, y, z]) {
    const sign = z < 0 || Object.is(z, -0) ? -1 : 1;
    const a = -1 / (sign + z);
    return [x * y * a, sign + y * y * a, -y];
}

/** polar.rs `gram_schmidt`: an orthonormal frame from a possibly singular matrix's columns, largest first. */
function gramSchmidt(a) {
    const cols = [col(a, 0), col(a, 1), col(a, 2)];
    const order = [0, 1, 2].sort((i, j) => dot(cols[j], cols[j]) - dot(cols[i], cols[i]));
    const basis = [null, null, null];
    const first = tryNormalize(cols[order[0]]) ?? [1, 0, 0];
    basis[order[0]] = first;
    const along = dot(first, cols[order[1]]);
    const secondRaw = cols[order[1]].map((x, i) => x - first[i] * along);
    const second = tryNormalize(secondRaw) ?? anyOrthonormal(first);
    basis[order[1]] = second;
    const third = cross(first, second);
    basis[order[2]] = dot(cols[order[2]], third) < 0 ? third.map((x) => -x) : third;
    return fromCols(basis[0], basis[1], basis[2]);
}

/** polar.rs `polar_iteration`: Higham's scaled Newton iteration to the orthogonal polar factor. */
function polarIteration(a) {
    let x = a;
    for (let i = 0; i < 30; i++) {
        const invT = transpose(inverse3(x));
        const g = Math.sqrt(frobenius(invT) / frobenius(x));
        const next = scale3(add3(scale3(x, g), scale3(invT, 1 / g)), 0.5);
        const diff = frobenius(sub3(next, x));
        x = next;
        if (!isFinite3(x)) return gramSchmidt(a);
        if (diff < 1e-7) break;
    }
    return x;
}

/** polar.rs `rotation_of`: the proper rotation nearest to `a` (a mirror's sign moved out). */
function rotationOf(input) {
    const largest = Math.max(0, ...input.map(Math.abs));
    const a = largest > 1e15 || (largest > 0 && largest < 1e-15) ? scale3(input, 1 / largest) : input;
    const norm = frobenius(a);
    if (Number.isNaN(norm) || norm <= 1e-20) return IDENTITY3;
    const relDet = Math.abs(determinant(a)) / (norm / Math.sqrt(3)) ** 3;
    const q = relDet > 1e-5 ? polarIteration(a) : gramSchmidt(a);
    return determinant(q) < 0 ? scale3(q, -1) : q;
}

/** The Gram matrix A^T A and det A of the upper 3x3 A of `m` (polar.rs `gram_and_det`). */
function gramAndDet(m) {
    const a = mat3FromMat4(m);
    return { a, ata: mul3(transpose(a), a), det: determinant(a) };
}

/** polar.rs `is_rigid_gram`: S = I within RIGID_TOLERANCE, tested on A^T A, and no mirror. */
const isRigidGram = (ata, det) => det > 0 && absDiffEq(ata, IDENTITY3, 2 * RIGID_TOLERANCE);

const NON_FINITE = {
    rotation: [0, 0, 0, 1],
    translation: [0, 0, 0],
    scaleShear: IDENTITY3,
    isRigid: true,
    wasNonFinite: true,
};

/** polar.rs `split_rigid`: polar decomposition A = R S, R proper, a mirror in S. */
function splitRigid(m) {
    if (m.some((x) => !Number.isFinite(x) || Math.abs(x) > MAX_MATRIX_ENTRY)) return NON_FINITE;
    const a = mat3FromMat4(m);
    const rotation = normalizeQuat(quatFromMat3(rotationOf(a)));
    // R again from the quaternion, so that S absorbs its rounding.
    const scaleShear = mul3(transpose(mat3FromQuat(rotation)), a);
    if (!(rotation.every(Number.isFinite) && isFinite3(scaleShear))) return NON_FINITE;
    const { ata, det } = gramAndDet(m);
    return {
        rotation,
        translation: [m[12], m[13], m[14]],
        scaleShear,
        isRigid: isRigidGram(ata, det),
        wasNonFinite: false,
    };
}

/** rigid_split.rs `split_rotation`: one Newton-Schulz step for a 3x3 that is a rotation up to rounding. */
function splitRotation(m) {
    if (!m.every((x) => Math.abs(x) <= MAX_MATRIX_ENTRY)) return null;
    const { a, ata, det } = gramAndDet(m);
    if (!absDiffEq(ata, IDENTITY3, ORTHONORMAL_TOLERANCE) || det <= 0) return null;
    const q = mul3(a, sub3(scale3(IDENTITY3, 1.5), scale3(ata, 0.5)));
    return {
        rotation: normalizeQuat(quatFromMat3(q)),
        translation: [m[12], m[13], m[14]],
        // S = R^T A, the square root of A^T A: (I + A^T A) / 2 to second order.
        scaleShear: scale3(add3(IDENTITY3, ata), 0.5),
        isRigid: isRigidGram(ata, det),
        wasNonFinite: false,
    };
}

/** Splits a column-major 4x4 as dqview's palette does (rigid_split.rs `split`). */
export function splitMatrix(m) {
    return splitRotation(m) ?? splitRigid(m);
}

/** DualQuat::from_rotation_translation: [real x, y, z, w, dual x, y, z, w], dual = 0.5 (t, 0) real. */
export function dualQuatOf(rotation, [tx, ty, tz]) {
    const dual = mulQuat([tx, ty, tz, 0], rotation).map((v) => v * 0.5);
    return [...rotation, ...dual];
}

const IDENTITY4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/**
 * Fills the exported shader's palette arrays from skinning matrices (column-major 4x4 arrays),
 * as JointPalette::rebuild: `dualQuats` 8 floats a joint, `matrices` 16, `scaleShears` 12 (std140
 * mat3 columns padded to vec4); joints past the list get the identity. Returns `nonRigid`
 * (some joint has scale, shear or a mirror, so DQS blends S first; S is the identity otherwise).
 */
export function fillPalette(skinning, { dualQuats, matrices, scaleShears }) {
    const splits = skinning.map(splitMatrix);
    const nonRigid = !splits.every((s) => s.isRigid);
    const capacity = matrices.length / 16;
    for (let j = 0; j < capacity; j++) {
        const s = splits[j];
        const m = s === undefined || s.wasNonFinite ? IDENTITY4 : skinning[j];
        matrices.set(m, 16 * j);
        dualQuats.set(s === undefined ? [0, 0, 0, 1, 0, 0, 0, 0] : dualQuatOf(s.rotation, s.translation), 8 * j);
        const sj = s !== undefined && nonRigid ? s.scaleShear : IDENTITY3;
        scaleShears.set([sj[0], sj[1], sj[2], 0, sj[3], sj[4], sj[5], 0, sj[6], sj[7], sj[8], 0], 12 * j);
    }
    return { nonRigid };
}
