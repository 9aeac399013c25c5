#!/usr/bin/env node
// Renders a glTF model with three.js in headless Chromium (WebGL2 on SwiftShader), skinned with
// dqview's exported shader (lbs, dqs, hybrid) or three.js's own SkinnedMesh skinning (stock),
// posed and framed as `dqview render` was, and writes a PNG.
//
//   node render.mjs MODEL --method lbs|dqs|hybrid|stock [--clip NAME --time S] [--twist JOINT=DEG]...
//        [--bend JOINT=DEG]... [--constraints] --camera CAMERA.json [--size WxH] [--view mask|shaded]
//        --out FILE.png [--timeout S] [--browser PATH]
//
// MODEL is a .glb, .gltf or .vrm (a binary glTF). --constraints evaluates the model's
// VRMC_node_constraint constraints (three-vrm's loader plugin) after the pose; without it they
// are ignored, as a stock engine ignores them.
//
// CAMERA.json is what `dqview render --camera-out` writes. Exit status 2 for bad flags, 1 for
// any other failure, each with one line on stderr.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { launchBrowser } from "./cdp.mjs";
import { isModelFile, parseArgs, USAGE, UsageError, wroteLine } from "./render-options.js";
import { serveFolders } from "./serve.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The Chromium flags: headless, WebGL2 through ANGLE on SwiftShader (no GPU needed). */
const CHROMIUM_FLAGS = [
    "--headless=new",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--mute-audio",
];

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

/** The page's errors and warnings as they come (`messages`), and `done`: what it reports through `dqviewDone`. */
function watchPage(cdp) {
    const messages = [];
    const done = new Promise((resolve, reject) => {
        cdp.onEvent(({ method, params }) => {
            if (method === "Runtime.bindingCalled" && params.name === "dqviewDone") resolve(JSON.parse(params.payload));
            if (method === "Runtime.exceptionThrown") {
                messages.push(params.exceptionDetails.exception?.description ?? params.exceptionDetails.text);
            }
            if (method === "Runtime.consoleAPICalled" && ["error", "warning"].includes(params.type)) {
                messages.push(params.args.map((a) => a.value ?? a.description ?? "").join(" "));
            }
            if (method === "Log.entryAdded" && params.entry.level === "error") {
                messages.push(params.entry.text + (params.entry.url ? ` (${params.entry.url})` : ""));
            }
        });
        cdp.child.once("exit", () => reject(new Error(`the browser quit (${cdp.exited}): ${cdp.lastStderrLine()}`)));
    });
    // Settled after the race is won elsewhere (the browser closed at the end): unheard.
    done.catch(() => {});
    return { done, messages };
}

/** A promise rejected after `seconds`, naming the page's last message; `cancel()` stops it. */
function deadline(seconds, messages) {
    let timer;
    const promise = new Promise((_, reject) => {
        timer = setTimeout(() => {
            const last = messages.length > 0 ? messages[messages.length - 1] : "none";
            reject(new Error(`timed out after ${seconds} s waiting for the page (last page message: ${last})`));
        }, seconds * 1000);
    });
    promise.catch(() => {});
    return { promise, cancel: () => clearTimeout(timer) };
}

/** Runs the page for `job` in a fresh browser; resolves to {png: the PNG bytes, constraints: how many it evaluated}. */
async function renderInBrowser(options, job, origin) {
    const profile = mkdtempSync(path.join(tmpdir(), "dqview-three-"));
    const flags = [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`];
    if (process.getuid?.() === 0) flags.push("--no-sandbox");
    let cdp = null;
    let limit = null;
    try {
        cdp = await launchBrowser(options.browser, [...flags, "about:blank"]);
        const { done, messages } = watchPage(cdp);
        limit = deadline(options.timeout, messages);
        const session = await Promise.race([cdp.attachToPage(), limit.promise]);
        await cdp.send("Runtime.enable", {}, session);
        await cdp.send("Log.enable", {}, session);
        await cdp.send("Runtime.addBinding", { name: "dqviewDone" }, session);
        const url = `${origin}/app/render-page.html?job=${encodeURIComponent(JSON.stringify(job))}`;
        await cdp.send("Page.navigate", { url }, session);
        const result = await Promise.race([done, limit.promise]);
        for (const m of messages) console.error(`render.mjs: page: ${m}`);
        if (result.error) throw new Error(result.error);
        const png = Buffer.from(result.png.replace(/^data:image\/png;base64,/, ""), "base64");
        return { png, constraints: result.constraints, materials: result.materials ?? [] };
    } finally {
        limit?.cancel();
        if (cdp) await cdp.close();
        rmSync(profile, { recursive: true, force: true });
    }
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
