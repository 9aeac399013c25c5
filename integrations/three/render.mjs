#!/usr/bin/env node
// Renders a glTF model with three.js and dqview's exported skinning in headless Chromium
// (WebGL2 on SwiftShader), posed and framed as `dqview render` was, and writes a PNG.
//
//   node render.mjs MODEL --method lbs|dqs|hybrid [--clip NAME --time S] [--twist JOINT=DEG]...
//        --camera CAMERA.json [--size WxH] [--view mask|shaded] --out FILE.png
//        [--timeout S] [--browser PATH]
//
// CAMERA.json is what `dqview render --camera-out` writes. Exit status 2 for bad flags, 1 for
// any other failure, each with one line on stderr.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { launchBrowser } from "./cdp.mjs";
import { serveFolders } from "./serve.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const USAGE =
    "usage: node render.mjs MODEL --method lbs|dqs|hybrid [--clip NAME --time S] [--twist JOINT=DEG]... " +
    "--camera CAMERA.json [--size WxH] [--view mask|shaded] --out FILE.png [--timeout S] [--browser PATH]";

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

/** A usage error: exit status 2. */
class UsageError extends Error {}

/** The flags of `argv` as {model, method, clip, time, twists, camera, size, view, out, timeout, browser}. */
function parseArgs(argv) {
    const options = { twists: [], view: "mask", timeout: 60, browser: process.env.DQVIEW_CHROMIUM || "chromium" };
    const positional = [];
    const takes = new Set([
        "--method",
        "--clip",
        "--time",
        "--twist",
        "--camera",
        "--size",
        "--view",
        "--out",
        "--timeout",
        "--browser",
    ]);
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === "--help" || arg === "-h") {
            console.log(USAGE);
            process.exit(0);
        }
        if (!arg.startsWith("--")) {
            positional.push(arg);
            continue;
        }
        const at = arg.indexOf("=");
        const [flag, inline] = at < 0 ? [arg, undefined] : [arg.slice(0, at), arg.slice(at + 1)];
        if (!takes.has(flag)) throw new UsageError(`unknown flag ${flag}`);
        const value = inline ?? argv[++i];
        if (value === undefined) throw new UsageError(`${flag} needs a value`);
        if (flag === "--twist") options.twists.push(value);
        else options[flag.slice(2)] = value;
    }
    if (positional.length !== 1)
        throw new UsageError(positional.length === 0 ? "no MODEL given" : `one MODEL, got ${positional.join(" ")}`);
    options.model = positional[0];
    if (!["lbs", "dqs", "hybrid"].includes(options.method)) {
        throw new UsageError(
            options.method === undefined
                ? "--method is required"
                : `unknown method \`${options.method}\` (valid: lbs, dqs, hybrid)`,
        );
    }
    if (!["mask", "shaded"].includes(options.view))
        throw new UsageError(`unknown view \`${options.view}\` (valid: mask, shaded)`);
    if (options.time !== undefined) {
        options.time = Number(options.time);
        if (!Number.isFinite(options.time)) throw new UsageError("--time must be a finite number of seconds");
    }
    options.timeout = Number(options.timeout);
    if (!(options.timeout > 0)) throw new UsageError("--timeout must be a positive number of seconds");
    if (options.camera === undefined)
        throw new UsageError("--camera CAMERA.json is required (`dqview render --camera-out` writes it)");
    if (options.out === undefined) throw new UsageError("--out FILE.png is required");
    return options;
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

/** Runs the page for `job` in a fresh browser; resolves to the PNG bytes. */
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
        return Buffer.from(result.png.replace(/^data:image\/png;base64,/, ""), "base64");
    } finally {
        limit?.cancel();
        if (cdp) await cdp.close();
        rmSync(profile, { recursive: true, force: true });
    }
}

/** Checks the files, serves them, renders and writes the PNG. */
async function main(argv) {
    const options = parseArgs(argv);
    const model = path.resolve(options.model);
    if (!existsSync(model) || !statSync(model).isFile()) throw new Error(`${options.model}: no such file`);
    if (!/\.(glb|gltf)$/i.test(model)) throw new Error(`${options.model}: not a .glb or .gltf file`);
    if (!existsSync(path.join(HERE, "node_modules/three/package.json"))) {
        throw new Error(`three.js is not installed: run \`npm ci\` in ${HERE}`);
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
            camera,
            width,
            height,
            view: options.view,
        };
        const png = await renderInBrowser(options, job, server.origin);
        writeFileSync(options.out, png);
        console.log(`wrote ${options.out} (${width}x${height}, ${options.method}, view ${options.view})`);
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
