// Runs one page in a fresh headless Chromium (WebGL2 on SwiftShader) over the DevTools protocol
// and waits for what it reports through the `dqviewDone` binding: render.mjs's jobs and the
// package test's app (package-test).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { launchBrowser } from "./cdp.mjs";

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

/**
 * Opens `url` in a fresh headless Chromium (`options.browser`) and resolves to what the page
 * reports through its `dqviewDone` binding (JSON), or rejects with the page's error, after
 * `options.timeout` seconds, or when the browser quits; `report` gets the page's messages.
 */
export async function runPage(options, url, report) {
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
        await cdp.send("Page.navigate", { url }, session);
        const result = await Promise.race([done, limit.promise]);
        for (const m of messages) report(m);
        if (result.error) throw new Error(result.error);
        return result;
    } finally {
        limit?.cancel();
        if (cdp) await cdp.close();
        rmSync(profile, { recursive: true, force: true });
    }
}

