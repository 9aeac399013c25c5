// A static file server on 127.0.0.1 (node's `http`, no dependencies) for the render page:
// each URL prefix maps to one folder, and nothing outside those folders is served.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";

const TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".glsl": "text/plain; charset=utf-8",
    ".glb": "model/gltf-binary",
    ".gltf": "model/gltf+json",
    // VRM is binary glTF.
    ".vrm": "model/gltf-binary",
    ".bin": "application/octet-stream",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".ktx2": "image/ktx2",
};

/** The file `urlPath` names under one of `roots` ({"/prefix/": folder}), or null. */
function resolveFile(roots, urlPath) {
    for (const [prefix, folder] of Object.entries(roots)) {
        if (!urlPath.startsWith(prefix)) continue;
        const relative = decodeURIComponent(urlPath.slice(prefix.length));
        const full = path.resolve(folder, relative);
        if (full === folder || full.startsWith(folder + path.sep)) return full;
    }
    return null;
}

/** Serves `roots` ({"/prefix/": folder}, first match wins) on `port` (0: a free one); resolves to {origin, close()}. */
export function serveFolders(roots, port = 0) {
    const absolute = Object.fromEntries(Object.entries(roots).map(([p, f]) => [p, path.resolve(f)]));
    const server = createServer(async (request, response) => {
        const urlPath = new URL(request.url, "http://localhost").pathname;
        const file = resolveFile(absolute, urlPath);
        const info = file && (await stat(file).catch(() => null));
        if (!info?.isFile()) {
            response.writeHead(404, { "content-type": "text/plain" }).end(`not found: ${urlPath}`);
            return;
        }
        const type = TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
        response.writeHead(200, { "content-type": type, "content-length": info.size, "cache-control": "no-store" });
        createReadStream(file).pipe(response);
    });
    return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
            const { port } = server.address();
            resolve({
                origin: `http://127.0.0.1:${port}`,
                close: () =>
                    new Promise((done) => {
                        server.close(done);
                        server.closeAllConnections();
                    }),
            });
        });
    });
}
