// The camera `dqview render --camera-out` writes (src/cli/render_camera.rs `camera_json`) as a
// three.js camera: its matrices used as given, never recomputed by three.
import { PerspectiveCamera } from "three";

const MATRICES = ["view_from_world", "world_from_view", "clip_from_view_gl"];

/** Why `json` is not a dqview camera file, or null when it is. */
export function cameraProblem(json) {
    if (json === null || typeof json !== "object") return "not a JSON object";
    if (json.format !== "dqview camera 1") return `format is ${JSON.stringify(json.format)}, not "dqview camera 1"`;
    for (const key of MATRICES) {
        const m = json[key];
        if (!Array.isArray(m) || m.length !== 16 || !m.every(Number.isFinite)) return `${key} is not 16 finite numbers`;
    }
    for (const key of ["width", "height", "aspect", "near", "far", "fov_y_deg"]) {
        if (!Number.isFinite(json[key]) || json[key] <= 0) return `${key} is not a positive number`;
    }
    return null;
}

/** A PerspectiveCamera with matrixWorld = world_from_view and projectionMatrix = clip_from_view_gl (OpenGL depth). */
export function cameraFromDqview(json) {
    const camera = new PerspectiveCamera(json.fov_y_deg, json.aspect, json.near, json.far);
    camera.matrixAutoUpdate = false;
    camera.matrixWorldAutoUpdate = false;
    camera.matrix.fromArray(json.world_from_view);
    camera.matrix.decompose(camera.position, camera.quaternion, camera.scale);
    camera.matrixWorld.fromArray(json.world_from_view);
    camera.matrixWorldInverse.fromArray(json.view_from_world);
    camera.projectionMatrix.fromArray(json.clip_from_view_gl);
    camera.projectionMatrixInverse.copy(camera.projectionMatrix).invert();
    return camera;
}
