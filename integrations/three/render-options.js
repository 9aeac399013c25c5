// render.mjs's command line, parsed and checked without touching files, the browser or three.js
// (unit-tested in test/options.test.mjs).

/** The methods: dqview's (its exported shader; CoR only with --material) and `stock`, three.js's own SkinnedMesh skinning. */
export const RENDER_METHODS = ["lbs", "dqs", "hybrid", "cor", "stock"];

export const USAGE =
    "usage: node render.mjs MODEL --method lbs|dqs|hybrid|cor|stock [--clip NAME --time S] [--twist JOINT=DEG]... " +
    "[--bend JOINT=DEG]... [--bind-pose] [--constraints] [--material KIND [--first-method M] [--beta B]] [--shadows] --camera CAMERA.json [--size WxH] " +
    "[--view mask|shaded|shadow] --out FILE.png [--renderer webgl|webgpu] " +
    "[--timeout S] [--browser PATH]";

/** A usage error: exit status 2. */
export class UsageError extends Error {}

/** Flags that take a value (`--flag VALUE` or `--flag=VALUE`). */
const TAKES_VALUE = new Set([
    "--method",
    "--clip",
    "--time",
    "--twist",
    "--bend",
    "--camera",
    "--size",
    "--view",
    "--out",
    "--timeout",
    "--browser",
    "--material",
    "--first-method",
    "--renderer",
    "--beta",
]);
/** Flags that take none. */
const SWITCHES = new Set(["--constraints", "--shadows", "--bind-pose"]);

/** `--material`'s kinds: the glTF's own materials or one of three's built-in kinds (harness-scene.js). */
export const MATERIALS = ["gltf", "mtoon", "basic", "lambert", "phong", "standard", "physical", "toon"];
/** The views: dqview's mask, the shaded look, and the shadow on the ground as a mask. */
export const VIEWS = ["mask", "shaded", "shadow"];

/**
 * The renderers: three's WebGLRenderer (default), or WebGPURenderer (on its WebGL2 backend in
 * headless Chromium) in node materials, skinned by the package's node path (node-skinning.js).
 */
export const RENDERERS = ["webgl", "webgpu"];

/** Whether `file` names a model render.mjs loads: glTF, binary glTF, or VRM (a binary glTF). */
export function isModelFile(file) {
    return /\.(glb|gltf|vrm)$/i.test(file);
}

/**
 * The flags of `argv` as {model, method, clip, time, twists, bends, constraints, camera, size,
 * view, renderer, out, timeout, browser}, or {help: true} for --help; `env` gives `DQVIEW_CHROMIUM`, the
 * default browser. Throws a UsageError for a bad command line.
 */
export function parseArgs(argv, env = {}) {
    const options = {
        twists: [],
        bends: [],
        constraints: false,
        shadows: false,
        "bind-pose": false,
        view: "mask",
        renderer: "webgl",
        timeout: 60,
        browser: env.DQVIEW_CHROMIUM || "chromium",
    };
    const positional = [];
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === "--help" || arg === "-h") return { help: true };
        if (!arg.startsWith("--")) {
            positional.push(arg);
            continue;
        }
        const at = arg.indexOf("=");
        const [flag, inline] = at < 0 ? [arg, undefined] : [arg.slice(0, at), arg.slice(at + 1)];
        if (SWITCHES.has(flag)) {
            if (inline !== undefined) throw new UsageError(`${flag} takes no value`);
            options[flag.slice(2)] = true;
            continue;
        }
        if (!TAKES_VALUE.has(flag)) throw new UsageError(`unknown flag ${flag}`);
        const value = inline ?? argv[++i];
        if (value === undefined) throw new UsageError(`${flag} needs a value`);
        if (flag === "--twist") options.twists.push(value);
        else if (flag === "--bend") options.bends.push(value);
        else options[flag.slice(2)] = value;
    }
    if (positional.length !== 1)
        throw new UsageError(positional.length === 0 ? "no MODEL given" : `one MODEL, got ${positional.join(" ")}`);
    options.model = positional[0];
    if (!RENDER_METHODS.includes(options.method)) {
        throw new UsageError(
            options.method === undefined
                ? "--method is required"
                : `unknown method \`${options.method}\` (valid: ${RENDER_METHODS.join(", ")})`,
        );
    }
    if (options.method === "cor" && options.material === undefined)
        throw new UsageError("--method cor runs in the package's path (it reads _COR_CENTER): it needs --material");
    if (!VIEWS.includes(options.view))
        throw new UsageError(`unknown view \`${options.view}\` (valid: ${VIEWS.join(", ")})`);
    if (options.material !== undefined && !MATERIALS.includes(options.material))
        throw new UsageError(`unknown material \`${options.material}\` (valid: ${MATERIALS.join(", ")})`);
    if (options["first-method"] !== undefined) {
        if (options.material === undefined)
            throw new UsageError("--first-method switches the package's method at run time: it needs --material");
        if (!RENDER_METHODS.includes(options["first-method"]))
            throw new UsageError(`unknown --first-method \`${options["first-method"]}\` (valid: ${RENDER_METHODS.join(", ")})`);
    }
    if (!RENDERERS.includes(options.renderer))
        throw new UsageError(`unknown renderer \`${options.renderer}\` (valid: ${RENDERERS.join(", ")})`);
    if (options.renderer === "webgpu" && options.material === undefined)
        throw new UsageError("--renderer webgpu skins through the package's node materials: it needs --material");
    if (options.renderer === "webgpu" && options.material === "mtoon")
        throw new UsageError(
            "--renderer webgpu takes no --material mtoon: three-vrm 3.5.5's MToonNodeMaterial imports TSL's " +
                "`transformedNormalView`, which three 0.187 no longer has",
        );
    if (options["bind-pose"] && (options.clip !== undefined || options.twists.length + options.bends.length > 0))
        throw new UsageError("--bind-pose poses every skeleton at its bind pose: it takes no --clip, --twist or --bend");
    if (options.view === "shadow" && options.material === undefined)
        throw new UsageError("--view shadow needs --material (the shadow is cast through three's own materials)");
    if (options.beta !== undefined) {
        if (options.material === undefined)
            throw new UsageError("--beta is hybrid's blend in the package's skinning: it needs --material");
        options.beta = Number(options.beta);
        if (!(options.beta >= 0 && options.beta <= 1)) throw new UsageError("--beta must be a number from 0 (LBS) to 1 (DQS)");
    }
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

/** What render.mjs prints when it wrote the image; `constraints`: how many it evaluated, null without --constraints. */
export function wroteLine(options, width, height, constraints, materials = []) {
    const evaluated =
        constraints === null ? "" : `, ${constraints} node constraint${constraints === 1 ? "" : "s"} evaluated`;
    const material = options.material === undefined ? "" : `, material ${options.material} (${materials.join(", ")})`;
    const renderer = options.renderer === "webgpu" ? ", WebGPURenderer" : "";
    return `wrote ${options.out} (${width}x${height}, ${options.method}, view ${options.view}${material}${renderer}${evaluated})`;
}
