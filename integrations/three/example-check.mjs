#!/usr/bin/env node
// Runs the example page's self-check in headless Chromium and prints its figures as JSON:
// `node example-check.mjs --models DIR [--browser PATH] [--picture OUT.png]` (DIR holds
// Adventurer.gltf, served as models/). tests/three_example.rs runs it.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { runPage } from "./browser-job.mjs";
import { serveFolders } from "./serve.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const value = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
const models = value("--models", process.env.DQVIEW_CHARACTERS);
if (!models) {
    console.error("example-check.mjs: --models DIR is required (the folder holding Adventurer.gltf)");
    process.exit(2);
}
const server = await serveFolders({ "/models/": models, "/": here });
try {
    const browser = value("--browser", process.env.DQVIEW_CHROMIUM || "chromium");
    const result = await runPage({ browser, timeout: 120 }, `${server.origin}/example.html?test=1`, (m) =>
        console.error(`example-check.mjs: page: ${m}`),
    );
    const picture = value("--picture");
    if (picture) writeFileSync(picture, Buffer.from(result.picture.split(",")[1], "base64"));
    delete result.picture;
    console.log(JSON.stringify(result));
} catch (e) {
    console.error(`example-check.mjs: ${e.message}`);
    process.exitCode = 1;
} finally {
    await server.close();
}
