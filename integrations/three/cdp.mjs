// A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe`: the browser reads
// NUL-terminated JSON messages on its fd 3 and writes them on its fd 4. No dependencies.
import { spawn } from "node:child_process";

/** Launches `browser` with `flags` and a debugging pipe; resolves to a connected `Cdp`. */
export function launchBrowser(browser, flags) {
    const child = spawn(browser, [...flags, "--remote-debugging-pipe"], {
        stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    });
    return new Promise((resolve, reject) => {
        child.once("error", (e) => reject(new Error(`cannot start ${browser}: ${e.message}`)));
        child.once("spawn", () => resolve(new Cdp(child)));
    });
}

/** One browser process and its protocol connection: commands, events, sessions. */
export class Cdp {
    constructor(child) {
        this.child = child;
        this.nextId = 1;
        this.pending = new Map();
        this.listeners = [];
        this.stderr = "";
        this.exited = null;
        let buffered = Buffer.alloc(0);
        child.stdio[4].on("data", (chunk) => {
            buffered = Buffer.concat([buffered, chunk]);
            let end;
            while ((end = buffered.indexOf(0)) >= 0) {
                const text = buffered.subarray(0, end).toString("utf8");
                buffered = buffered.subarray(end + 1);
                this.receive(JSON.parse(text));
            }
        });
        child.stderr.on("data", (chunk) => {
            // Keep the tail only: enough to say why the browser failed.
            this.stderr = (this.stderr + chunk.toString("utf8")).slice(-4000);
        });
        child.on("exit", (code, signal) => {
            this.exited = signal ? `signal ${signal}` : `exit code ${code}`;
            const error = new Error(`the browser quit (${this.exited}): ${this.lastStderrLine()}`);
            for (const { reject } of this.pending.values()) reject(error);
            this.pending.clear();
        });
        // A browser that quits early closes the pipe; writes then fail, which `exit` reports.
        child.stdio[3].on("error", () => {});
    }

    /** The last non-empty line the browser wrote on stderr. */
    lastStderrLine() {
        const lines = this.stderr.split("\n").filter((l) => l.trim() !== "");
        return lines.length > 0 ? lines[lines.length - 1].trim() : "no message";
    }

    /** Routes a message to its command's promise or to the event listeners. */
    receive(message) {
        if (message.id !== undefined) {
            const waiting = this.pending.get(message.id);
            this.pending.delete(message.id);
            if (!waiting) return;
            if (message.error) {
                waiting.reject(new Error(`${waiting.method}: ${message.error.message}`));
            } else {
                waiting.resolve(message.result);
            }
            return;
        }
        for (const listener of this.listeners) listener(message);
    }

    /** Sends `method` with `params` (to `sessionId` when given); resolves to its result. */
    send(method, params = {}, sessionId = undefined) {
        if (this.exited) {
            return Promise.reject(new Error(`the browser quit (${this.exited}): ${this.lastStderrLine()}`));
        }
        const id = this.nextId++;
        const message = { id, method, params };
        if (sessionId) message.sessionId = sessionId;
        return new Promise((resolve, reject) => {
            this.pending.set(id, { resolve, reject, method });
            this.child.stdio[3].write(JSON.stringify(message) + "\0");
        });
    }

    /** Calls `listener(message)` for every event. */
    onEvent(listener) {
        this.listeners.push(listener);
    }

    /** Attaches to the first page target; resolves to its session id. */
    async attachToPage() {
        const { targetInfos } = await this.send("Target.getTargets");
        let page = targetInfos.find((t) => t.type === "page");
        if (!page) {
            const { targetId } = await this.send("Target.createTarget", { url: "about:blank" });
            page = { targetId };
        }
        const { sessionId } = await this.send("Target.attachToTarget", {
            targetId: page.targetId,
            flatten: true,
        });
        return sessionId;
    }

    /** Asks the browser to quit, and kills it if it has not after a second. */
    async close() {
        if (this.exited) return;
        const gone = new Promise((resolve) => this.child.once("exit", resolve));
        this.send("Browser.close").catch(() => {});
        const timer = setTimeout(() => this.child.kill("SIGKILL"), 1000);
        await gone;
        clearTimeout(timer);
    }
}
