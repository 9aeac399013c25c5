#!/usr/bin/env node
// Times three.js frames of a model with three's own skinning (stock) and the package's methods,
// in one headless Chromium page (WebGL2 on SwiftShader, or the GPU Chromium finds), and prints
// each method's median frame time and its ratio to stock's. CoR is timed where the model has
// `dqview cor`'s `_COR_CENTER` on every skinned mesh.
//
//   node bench.mjs MODEL [--crowd N] [--frames N] [--size WxH] [--clip NAME] [--browser PATH] [--timeout S]
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { runPage } from "./browser-job.mjs";
import { serveFolders } from "./serve.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const USAGE = "usage: node bench.mjs MODEL [--crowd N] [--frames N] [--size WxH] [--clip NAME] [--browser PATH] [--timeout S]";
const METHODS = ["stock", "lbs", "dqs", "hybrid", "cor"];

/** The command line as {model, crowd, frames, width, height, clip, browser, timeout}; throws a usage message. */
function parse(argv) {
    const o = { crowd: 1, frames: 20, width: 640, height: 480, clip: null, browser: process.env.DQVIEW_CHROMIUM || "chromium", timeout: 600 };
    const rest = [];
    for (let i = 0; i < argv.length; i++) {
        const [flag, inline] = argv[i].includes("=") ? argv[i].split(/=(.*)/s) : [argv[i], undefined];
        const value = () => inline ?? argv[++i];
        if (flag === "--crowd") o.crowd = Number(value());
        else if (flag === "--frames") o.frames = Number(value());
        else if (flag === "--clip") o.clip = value();
        else if (flag === "--browser") o.browser = value();
        else if (flag === "--timeout") o.timeout = Number(value());
        else if (flag === "--size") {
            const m = /^(\d+)x(\d+)$/.exec(value() ?? "");
            if (!m) throw new Error("--size must be WxH in pixels");
            [o.width, o.height] = [Number(m[1]), Number(m[2])];
        } else if (flag.startsWith("--")) throw new Error(`unknown flag ${flag}`);
        else rest.push(argv[i]);
    }
    if (rest.length !== 1) throw new Error("one MODEL, a .glb or .gltf");
    for (const [name, v] of [["--crowd", o.crowd], ["--frames", o.frames], ["--timeout", o.timeout]]) {
        if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive whole number`);
    }
    o.model = path.resolve(rest[0]);
    if (!existsSync(o.model)) throw new Error(`${rest[0]}: no such file`);
    return o;
}

async function main(argv) {
    if (argv.includes("--help")) return console.log(USAGE);
    const o = parse(argv);
    const server = await serveFolders({ "/app/": HERE, "/model/": path.dirname(o.model) });
    try {
        const job = { model: `/model/${encodeURIComponent(path.basename(o.model))}`, crowd: o.crowd, frames: o.frames, width: o.width, height: o.height, clip: o.clip, methods: METHODS };
        const url = `${server.origin}/app/bench-page.html?job=${encodeURIComponent(JSON.stringify(job))}`;
        const r = await runPage(o, url, (m) => console.error(`bench.mjs: page: ${m}`));
        console.log(`${path.basename(o.model)} x ${o.crowd}: ${r.vertices} skinned vertices in ${r.meshes} meshes, ${o.width}x${o.height}, ${o.frames} frames a method, ${r.renderer}`);
        for (const m of METHODS.filter((m) => r.medians[m] !== undefined)) {
            console.log(`  ${m.padEnd(6)} median ${r.medians[m].toFixed(2).padStart(9)} ms  ${(r.medians[m] / r.medians.stock).toFixed(3)}x stock`);
        }
    } finally {
        await server.close();
    }
}

main(process.argv.slice(2)).then(
    () => process.exit(0),
    (e) => {
        console.error(`bench.mjs: ${e.message}`);
        process.exit(1);
    },
);
