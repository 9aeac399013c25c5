// dqview's 4x multisampled image, made in WebGL. dqview renders with wgpu's 4x MSAA (Vulkan's
// standard sample positions) into an sRGB target, which resolves in linear light. A WebGL
// context's own MSAA differs at edges by a sample: its pattern is upside down in image space
// (GL's origin is the bottom-left corner), and SwiftShader snaps vertices to 1/16 pixel
// (GL_SUBPIXEL_BITS 4) where lavapipe snaps to 1/256. So the image is rendered without
// antialiasing at 8x the size, where each sample position is a pixel centre and the snapping
// is 1/128 of an output pixel, in tiles; each output pixel averages its 4 samples in linear
// light and is encoded to sRGB, as dqview's resolve does.
import { Matrix4, Vector2 } from "three";

/** Vulkan's standard 4x sample positions, in pixels from the pixel's top-left corner (y down). */
export const SAMPLE_POSITIONS = [
    [0.375, 0.125],
    [0.875, 0.375],
    [0.125, 0.625],
    [0.625, 0.875],
];

/** The render scale: every sample position is a multiple of 1/8 pixel. */
const SCALE = 8;
/** Output pixels per tile side (2048 pixels rendered). */
const TILE = 256;

const linearFromSrgb = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const srgbFromLinear = (c) => (c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055);
const LINEAR = Array.from({ length: 256 }, (_, v) => linearFromSrgb(v / 255));

/**
 * The projection of the tile of output pixels [x0, x0 + w) x [y0, y0 + h) (y down) of a
 * `width` x `height` image at SCALE, shifted half a rendered pixel so that rendered pixel
 * centres fall on multiples of 1/8 output pixel: clip' = tile * clip.
 */
function tileProjection(projection, [width, height], [x0, y0, w, h]) {
    const ax = width / w;
    const ay = height / h;
    const bx = ax - 1 - (2 * x0) / w + ax / (SCALE * width);
    const by = 1 - ay + (2 * y0) / h - ay / (SCALE * height);
    // Column-major: x' = ax x + bx w, y' = ay y + by w.
    const tile = new Matrix4().set(ax, 0, 0, bx, 0, ay, 0, by, 0, 0, 1, 0, 0, 0, 0, 1);
    return tile.multiply(projection);
}

/** Adds the 4 samples of each output pixel of one rendered tile (readPixels rows, bottom first) into `sum`. */
function addSamples(pixels, [width], [x0, y0, w, h], sum) {
    const rowPixels = w * SCALE;
    for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
            const out = 3 * ((y0 + y) * width + (x0 + x));
            for (const [sx, sy] of SAMPLE_POSITIONS) {
                const column = x * SCALE + sx * SCALE;
                const row = h * SCALE - 1 - (y * SCALE + sy * SCALE);
                const i = 4 * (row * rowPixels + column);
                sum[out] += LINEAR[pixels[i]];
                sum[out + 1] += LINEAR[pixels[i + 1]];
                sum[out + 2] += LINEAR[pixels[i + 2]];
            }
        }
    }
}

/** A WebGLRenderer's drawing buffer, bottom row first (readPixels). */
function readGlPixels(renderer) {
    const gl = renderer.getContext();
    const size = renderer.getDrawingBufferSize(new Vector2());
    const pixels = new Uint8Array(4 * size.x * size.y);
    gl.readPixels(0, 0, size.x, size.y, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
    return pixels;
}

/**
 * Renders `scene` seen by `camera` as a `width` x `height` image resolved from dqview's 4
 * sample positions (the renderer: no antialiasing, pixel ratio 1; it is resized per tile).
 * `readTile(renderer)` reads each tile's pixels, bottom row first (default: WebGL's
 * readPixels). Returns ImageData, top row first.
 */
export function renderResolved4x(renderer, scene, camera, width, height, readTile = readGlPixels) {
    const projection = camera.projectionMatrix.clone();
    const sum = new Float32Array(3 * width * height);
    for (let y0 = 0; y0 < height; y0 += TILE) {
        for (let x0 = 0; x0 < width; x0 += TILE) {
            const tile = [x0, y0, Math.min(TILE, width - x0), Math.min(TILE, height - y0)];
            renderer.setSize(tile[2] * SCALE, tile[3] * SCALE, false);
            camera.projectionMatrix.copy(tileProjection(projection, [width, height], tile));
            camera.projectionMatrixInverse.copy(camera.projectionMatrix).invert();
            renderer.render(scene, camera);
            addSamples(readTile(renderer), [width, height], tile, sum);
        }
    }
    camera.projectionMatrix.copy(projection);
    camera.projectionMatrixInverse.copy(projection).invert();
    return resolvedImage(sum, width, height);
}

/** The image of `sum` (each pixel's 4 samples added in linear light), sRGB-encoded as dqview's resolve does. */
function resolvedImage(sum, width, height) {
    const image = new ImageData(width, height);
    for (let i = 0; i < width * height; i++) {
        for (let c = 0; c < 3; c++) image.data[4 * i + c] = Math.round(255 * srgbFromLinear(sum[3 * i + c] / 4));
        image.data[4 * i + 3] = 255;
    }
    return image;
}
