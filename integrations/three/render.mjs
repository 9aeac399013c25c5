#!/usr/bin/env node
// Renders a glTF model with three.js in headless Chromium (WebGL2 on SwiftShader), skinned with
// dqview's exported shader (lbs, dqs, hybrid) or three.js's own SkinnedMesh skinning (stock),
// posed and framed as `dqview render` was, and writes a PNG. `--renderer webgpu` draws with
// WebGPURenderer (its WebGL2 backend) in node materials, skinned by the package's node path.
//
//   node render.mjs MODEL --method lbs|dqs|hybrid|cor|stock [--clip NAME --time S] [--twist JOINT=DEG]...
//        [--bend JOINT=DEG]... [--constraints] --camera CAMERA.json [--size WxH] [--view mask|shaded]
//        [--beta B] --out FILE.png [--renderer webgl|webgpu] [--timeout S] [--browser PATH]
//
// MODEL is a .glb, .gltf or .vrm (a binary glTF). --constraints evaluates the model's
// VRMC_node_constraint constraints (three-vrm's loader plugin) after the pose; without it they
// are ignored, as a stock engine ignores them.
//
// CAMERA.json is what `dqview render --camera-out` writes. Exit status 2 for bad flags, 1 for
// any other failure, each with one line on stderr.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { runPage } from "./browser-job.mjs";
import { isModelFile, parseArgs, USAGE, UsageError, wroteLine } from "./render-options.js";
import { serveFolders } from "./serve.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** three-vrm's VRMC_node_constraint loader plugin, for --constraints. */
const CONSTRAINT_PACKAGE = "@pixiv/three-vrm-node-constraint";
/** three-vrm's MToon material loader plugin, for --material mtoon. */
const MTOON_PACKAGE = "@pixiv/three-vrm-materials-mtoon";

const MATRICES = ["view_from_world", "world_from_view", "clip_from_view_gl"];

/** Why `json` is not a dqview camera file, or null when it is. */
function cameraProblem(json) {
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

/** The camera file, checked, and the image size: --size, else the camera's own. */
function readCamera(file, size) {
    let camera;
    try {
        camera = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
        throw new Error(`--camera ${file}: ${e.code === "ENOENT" ? "no such file" : (e.code ?? "not JSON")}`);
    }
    const problem = cameraProblem(camera);
    if (problem) throw new Error(`--camera ${file}: not a dqview camera file (${problem})`);
    let [width, height] = [camera.width, camera.height];
    if (size !== undefined) {
        const m = /^(\d+)x(\d+)$/.exec(size);
        if (!m || Number(m[1]) < 1 || Number(m[2]) < 1 || Number(m[1]) > 8192 || Number(m[2]) > 8192) {
            throw new UsageError(`--size must be WxH in pixels (1 to 8192), got \`${size}\``);
        }
        [width, height] = [Number(m[1]), Number(m[2])];
    }
    // The projection has the camera's aspect baked in: another one would stretch the image.
    if (Math.abs(width / height - camera.aspect) > 1e-3 * camera.aspect) {
        const aspect = (width / height).toFixed(4);
        const made = `${camera.aspect.toFixed(4)} (${camera.width}x${camera.height})`;
        throw new UsageError(`--size ${width}x${height} has aspect ${aspect}, the camera ${made}`);
    }
    return { camera, width, height };
}

/** Runs the page for `job` in a fresh browser; resolves to {png: the PNG bytes, constraints, materials}. */
async function renderInBrowser(options, job, origin) {
    const url = `${origin}/app/render-page.html?job=${encodeURIComponent(JSON.stringify(job))}`;
    const result = await runPage(options, url, (m) => console.error(`render.mjs: page: ${m}`));
    const png = Buffer.from(result.png.replace(/^data:image\/png;base64,/, ""), "base64");
    return { png, constraints: result.constraints, materials: result.materials ?? [] };
}

/** Checks the files, serves them, renders and writes the PNG. */
async function main(argv) {
    const options = parseArgs(argv, process.env);
    if (options.help) {
        console.log(USAGE);
        return;
    }
    const model = path.resolve(options.model);
    if (!existsSync(model) || !statSync(model).isFile()) throw new Error(`${options.model}: no such file`);
    if (!isModelFile(model)) throw new Error(`${options.model}: not a .glb, .gltf or .vrm file`);
    if (!existsSync(path.join(HERE, "node_modules/three/package.json"))) {
        throw new Error(`three.js is not installed: run \`npm ci\` in ${HERE}`);
    }
    if (options.constraints && !existsSync(path.join(HERE, "node_modules", CONSTRAINT_PACKAGE, "package.json"))) {
        throw new Error(`--constraints: ${CONSTRAINT_PACKAGE} is not installed: run \`npm ci\` in ${HERE}`);
    }
    if (options.material === "mtoon" && !existsSync(path.join(HERE, "node_modules", MTOON_PACKAGE, "package.json"))) {
        throw new Error(`--material mtoon: ${MTOON_PACKAGE} is not installed: run \`npm ci\` in ${HERE}`);
    }
    const { camera, width, height } = readCamera(options.camera, options.size);
    const outDir = path.dirname(path.resolve(options.out));
    if (!existsSync(outDir) || !statSync(outDir).isDirectory())
        throw new Error(`--out ${options.out}: no folder ${outDir}`);
    const server = await serveFolders({ "/app/": HERE, "/model/": path.dirname(model) });
    try {
        const job = {
            model: `/model/${encodeURIComponent(path.basename(model))}`,
            modelName: options.model,
            method: options.method,
            clip: options.clip ?? null,
            time: options.time ?? null,
            twists: options.twists,
            bends: options.bends,
            constraints: options.constraints,
            material: options.material ?? null,
            bindPose: options["bind-pose"],
            firstMethod: options["first-method"] ?? null,
            shadows: options.shadows,
            renderer: options.renderer,
            beta: options.beta ?? 1,
            camera,
            width,
            height,
            view: options.view,
        };
        const { png, constraints, materials } = await renderInBrowser(options, job, server.origin);
        writeFileSync(options.out, png);
        console.log(wroteLine(options, width, height, options.constraints ? constraints : null, materials));
    } finally {
        await server.close();
    }
}

main(process.argv.slice(2)).then(
    () => process.exit(0),
    (e) => {
        console.error(`render.mjs: ${e.message}${e instanceof UsageError ? " (see node render.mjs --help)" : ""}`);
        process.exit(e instanceof UsageError ? 2 : 1);
    },
);
