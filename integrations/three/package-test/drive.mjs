// Serves the app folder and the model's, runs the app's page in headless Chromium and writes its
// PNG: `node drive.mjs TOOLS APP MODEL CAMERA.json METHOD CLIP TIME OUT.png CHROMIUM`, TOOLS the
// dqview integration folder (its browser-job.mjs and serve.mjs, which the package does not ship).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [tools, app, model, cameraFile, method, clip, time, out, browser] = process.argv.slice(2);
const { runPage } = await import(pathToFileURL(path.join(tools, "browser-job.mjs")).href);
const { serveFolders } = await import(pathToFileURL(path.join(tools, "serve.mjs")).href);
const camera = JSON.parse(readFileSync(cameraFile, "utf8"));
const server = await serveFolders({ "/app/": app, "/model/": path.dirname(path.resolve(model)) });
try {
    const job = {
        model: `/model/${encodeURIComponent(path.basename(model))}`,
        method,
        clip,
        time: Number(time),
        camera,
        width: camera.width,
        height: camera.height,
    };
    const url = `${server.origin}/app/index.html?job=${encodeURIComponent(JSON.stringify(job))}`;
    const result = await runPage({ browser, timeout: 60 }, url, (m) => console.error(`page: ${m}`));
    writeFileSync(out, Buffer.from(result.png.replace(/^data:image\/png;base64,/, ""), "base64"));
    console.log(`wrote ${out} (${result.meshes} skinned meshes)`);
} finally {
    await server.close();
}
