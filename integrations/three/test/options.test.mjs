// Unit tests of render.mjs's command line (render-options.js), no browser or three.js needed:
// `node --test integrations/three/test/options.test.mjs`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { isModelFile, parseArgs, RENDER_METHODS, UsageError, wroteLine } from "../render-options.js";

const REQUIRED = ["--camera", "cam.json", "--out", "out.png"];

/** The UsageError `argv` gives, as its message. */
function usageError(argv) {
    try {
        parseArgs(argv);
    } catch (e) {
        assert.ok(e instanceof UsageError, `${argv.join(" ")}: ${e}`);
        return e.message;
    }
    assert.fail(`${argv.join(" ")} parsed`);
}

test("--method takes dqview's four methods and stock; cor only in the package's path", () => {
    assert.deepEqual(RENDER_METHODS, ["lbs", "dqs", "hybrid", "cor", "stock"]);
    for (const method of RENDER_METHODS) {
        assert.equal(parseArgs(["m.glb", "--method", method, "--material", "standard", ...REQUIRED]).method, method);
    }
    assert.match(usageError(["m.glb", "--method", "cor", ...REQUIRED]), /--method cor .* needs --material/);
    assert.equal(parseArgs(["m.glb", "--method=stock", ...REQUIRED]).method, "stock");
    assert.equal(
        usageError(["m.glb", "--method", "Stock", ...REQUIRED]),
        "unknown method `Stock` (valid: lbs, dqs, hybrid, cor, stock)",
    );
    assert.equal(usageError(["m.glb", ...REQUIRED]), "--method is required");
});

test("stock takes the pose flags as the other methods do", () => {
    const argv = ["m.gltf", "--method", "stock", "--clip", "Run", "--time", "0.375", "--twist", "A=10", "--twist=B=-5"];
    const options = parseArgs([...argv, ...REQUIRED]);
    assert.equal(options.clip, "Run");
    assert.equal(options.time, 0.375);
    assert.deepEqual(options.twists, ["A=10", "B=-5"]);
    assert.equal(options.constraints, false);
    assert.equal(options.view, "mask");
});

test("--bend is repeatable, as --twist is, and kept apart from it", () => {
    const argv = ["m.gltf", "--method", "stock", "--bend", "UpperArm.L=40", "--twist", "A=10", "--bend=B=-5"];
    const options = parseArgs([...argv, ...REQUIRED]);
    assert.deepEqual(options.bends, ["UpperArm.L=40", "B=-5"]);
    assert.deepEqual(options.twists, ["A=10"]);
    assert.deepEqual(parseArgs(["m.glb", "--method", "lbs", ...REQUIRED]).bends, []);
    assert.equal(usageError(["m.glb", "--method", "stock", ...REQUIRED, "--bend"]), "--bend needs a value");
});

test("--constraints is a switch, for every method", () => {
    for (const method of RENDER_METHODS) {
        const options = parseArgs(["m.vrm", "--constraints", "--method", method, "--material", "gltf", ...REQUIRED]);
        assert.equal(options.constraints, true);
        assert.equal(options.model, "m.vrm");
    }
    assert.equal(
        usageError(["m.glb", "--method", "stock", "--constraints=yes", ...REQUIRED]),
        "--constraints takes no value",
    );
    // A switch does not eat the next word: here the model.
    assert.equal(parseArgs(["--method", "stock", "--constraints", "m.glb", ...REQUIRED]).model, "m.glb");
});

test("the other flags are checked as before", () => {
    assert.equal(usageError(["m.glb", "--method", "stock", "--constrain", ...REQUIRED]), "unknown flag --constrain");
    assert.equal(usageError(["--method", "stock", ...REQUIRED]), "no MODEL given");
    assert.equal(usageError(["a.glb", "b.glb", "--method", "stock", ...REQUIRED]), "one MODEL, got a.glb b.glb");
    assert.equal(
        usageError(["m.glb", "--method", "stock", "--time", "soon", ...REQUIRED]),
        "--time must be a finite number of seconds",
    );
    assert.equal(
        usageError(["m.glb", "--method", "stock", "--view", "depth", ...REQUIRED]),
        "unknown view `depth` (valid: mask, shaded, shadow)",
    );
    assert.match(usageError(["m.glb", "--method", "stock", "--out", "o.png"]), /^--camera CAMERA.json is required/);
    assert.equal(usageError(["m.glb", "--method", "stock", "--camera", "c.json"]), "--out FILE.png is required");
    assert.equal(
        usageError(["m.glb", "--method", "stock", "--timeout", "0", ...REQUIRED]),
        "--timeout must be a positive number of seconds",
    );
    assert.equal(usageError(["m.glb", "--method"]), "--method needs a value");
    assert.deepEqual(parseArgs(["m.glb", "--help"]), { help: true });
});

test("the package path's flags: --material, --first-method, --shadows, --view shadow, --bind-pose", () => {
    const own = parseArgs(["m.glb", "--method", "dqs", "--material", "toon", "--first-method", "stock", "--shadows", ...REQUIRED]);
    assert.equal(own.material, "toon");
    assert.equal(own["first-method"], "stock");
    assert.equal(own.shadows, true);
    assert.equal(
        usageError(["m.glb", "--method", "dqs", "--material", "wood", ...REQUIRED]),
        "unknown material `wood` (valid: gltf, mtoon, basic, lambert, phong, standard, physical, toon)",
    );
    assert.equal(
        usageError(["m.glb", "--method", "dqs", "--first-method", "lbs", ...REQUIRED]),
        "--first-method switches the package's method at run time: it needs --material",
    );
    assert.equal(
        usageError(["m.glb", "--method", "dqs", "--material", "gltf", "--first-method", "ddm", ...REQUIRED]),
        "unknown --first-method `ddm` (valid: lbs, dqs, hybrid, cor, stock)",
    );
    assert.equal(
        usageError(["m.glb", "--method", "dqs", "--view", "shadow", ...REQUIRED]),
        "--view shadow needs --material (the shadow is cast through three's own materials)",
    );
    assert.equal(
        usageError(["m.glb", "--method", "dqs", "--bind-pose", "--twist", "A=1", ...REQUIRED]),
        "--bind-pose poses every skeleton at its bind pose: it takes no --clip, --twist or --bend",
    );
});

test("the browser defaults to DQVIEW_CHROMIUM, else chromium", () => {
    assert.equal(parseArgs(["m.glb", "--method", "stock", ...REQUIRED]).browser, "chromium");
    const env = { DQVIEW_CHROMIUM: "/opt/chromium" };
    assert.equal(parseArgs(["m.glb", "--method", "stock", ...REQUIRED], env).browser, "/opt/chromium");
    assert.equal(parseArgs(["m.glb", "--method", "stock", "--browser", "b", ...REQUIRED], env).browser, "b");
});

test("models are .glb, .gltf or .vrm files", () => {
    for (const file of ["a.glb", "b.GLTF", "dir.x/c.vrm", "D.VRM"]) assert.ok(isModelFile(file), file);
    for (const file of ["a.fbx", "a.vrm.json", "glb", "a.usdz"]) assert.ok(!isModelFile(file), file);
});

test("the written line names the constraints evaluated only with --constraints", () => {
    const options = { out: "o.png", method: "stock", view: "mask" };
    assert.equal(wroteLine(options, 384, 384, null), "wrote o.png (384x384, stock, view mask)");
    assert.equal(
        wroteLine(options, 384, 384, 0),
        "wrote o.png (384x384, stock, view mask, 0 node constraints evaluated)",
    );
    assert.equal(wroteLine(options, 8, 4, 1), "wrote o.png (8x4, stock, view mask, 1 node constraint evaluated)");
});

test("--renderer takes webgl (the default) or webgpu, which skins through node materials", () => {
    const material = ["--material", "standard"];
    assert.equal(parseArgs(["m.glb", "--method", "dqs", ...REQUIRED]).renderer, "webgl");
    const options = parseArgs(["m.glb", "--method", "dqs", ...material, "--renderer", "webgpu", ...REQUIRED]);
    assert.equal(options.renderer, "webgpu");
    assert.equal(
        wroteLine({ ...options, out: "o.png" }, 8, 4, null, ["MeshStandardNodeMaterial"]),
        "wrote o.png (8x4, dqs, view mask, material standard (MeshStandardNodeMaterial), WebGPURenderer)",
    );
    assert.equal(
        usageError(["m.glb", "--method", "dqs", ...material, "--renderer", "webgpu2", ...REQUIRED]),
        "unknown renderer `webgpu2` (valid: webgl, webgpu)",
    );
    assert.equal(
        usageError(["m.glb", "--method", "dqs", "--renderer", "webgpu", ...REQUIRED]),
        "--renderer webgpu skins through the package's node materials: it needs --material",
    );
    assert.match(usageError(["m.glb", "--method", "dqs", "--material", "mtoon", "--renderer=webgpu", ...REQUIRED]), /MToonNodeMaterial/);
});

test("--beta sets hybrid's blend in the package's skinning", () => {
    const material = ["--material", "standard"];
    assert.equal(parseArgs(["m.glb", "--method", "hybrid", ...material, "--beta", "0.5", ...REQUIRED]).beta, 0.5);
    assert.equal(parseArgs(["m.glb", "--method", "hybrid", ...material, ...REQUIRED]).beta, undefined);
    assert.equal(
        usageError(["m.glb", "--method", "hybrid", "--beta", "0.5", ...REQUIRED]),
        "--beta is hybrid's blend in the package's skinning: it needs --material",
    );
    for (const bad of ["1.5", "-0.1", "x"]) {
        assert.equal(
            usageError(["m.glb", "--method", "hybrid", ...material, "--beta", bad, ...REQUIRED]),
            "--beta must be a number from 0 (LBS) to 1 (DQS)",
        );
    }
});
