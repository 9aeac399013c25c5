// The camera `dqview render --camera-out` writes (src/cli/render_camera.rs `camera_json`) as a
// three.js camera: its matrices used as given, never recomputed by three. render.mjs checks the file.
import { PerspectiveCamera } from "three";

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
