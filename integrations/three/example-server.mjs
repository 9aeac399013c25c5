#!/usr/bin/env node
// Serves the example page: `node example-server.mjs [--models DIR] [--port N]`, then open the
// printed URL. DIR (default: dqview's shared characters, $DQVIEW_CHARACTERS) is served as models/.
import path from "node:path";
import { fileURLToPath } from "node:url";

import { serveFolders } from "./serve.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const value = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
const models = value("--models", process.env.DQVIEW_CHARACTERS ?? path.join(here, "models"));
const server = await serveFolders({ "/models/": models, "/": here }, Number(value("--port", 8000)));
console.log(`serving ${here} and ${models} as models/: open ${server.origin}/example.html (Ctrl-C stops)`);
