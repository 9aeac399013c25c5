// Runs the Khronos glTF-Validator (npm package `gltf-validator`) on one .gltf/.glb file.
//
// Usage: node tests/support/validate.mjs VALIDATOR_DIR FILE
// VALIDATOR_DIR is the folder `npm install gltf-validator` ran in (it holds node_modules/);
// .ci/run installs it and passes it to the tests as DQVIEW_GLTF_VALIDATOR.
// Prints one JSON line {"errors", "warnings", "infos", "hints", "messages"} (messages: the
// errors, each "CODE at POINTER: message") and exits 0, or 2 when the file cannot be read.
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import path from "node:path";

const [dir, file] = process.argv.slice(2);
if (!dir || !file) {
    console.error("usage: node validate.mjs VALIDATOR_DIR FILE");
    process.exit(2);
}
const require = createRequire(path.join(path.resolve(dir), "package.json"));
const validator = require("gltf-validator");
const full = path.resolve(file);
let bytes;
try {
    bytes = await readFile(full);
} catch (e) {
    console.error(`cannot read ${full}: ${e}`);
    process.exit(2);
}
const report = await validator.validateBytes(new Uint8Array(bytes), {
    uri: path.basename(full),
    maxIssues: 100000,
    externalResourceFunction: (uri) =>
        readFile(path.resolve(path.dirname(full), decodeURIComponent(uri))),
});
const issues = report.issues;
const messages = issues.messages
    .filter((m) => m.severity === 0)
    .map((m) => `${m.code} at ${m.pointer ?? "?"}: ${m.message}`);
console.log(JSON.stringify({
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    infos: issues.numInfos,
    hints: issues.numHints,
    messages,
}));
