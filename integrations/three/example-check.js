// The example page's self-check (`example.html?test=1`, run by tests/three_example.rs): loads the
// model in the URL box as a user would, twists a forearm with the panel, draws every method (CoR
// refused without centres, then drawn from the same model with `dqview cor`'s `_COR_CENTER`,
// models/Adventurer_cor.gltf) and scrubs a clip, and reports through `dqviewDone` how many
// pixels each change moved.

/** The canvas's pixels after drawing one frame at the panel's state. */
function snapshot({ renderer, scene, camera, pose }) {
    pose(0);
    renderer.render(scene, camera);
    const gl = renderer.getContext();
    const { width, height } = gl.canvas;
    const pixels = new Uint8Array(4 * width * height);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
    return pixels;
}

/** Pixels whose colour differs by more than 8 in some channel. */
function differ(a, b) {
    let n = 0;
    for (let i = 0; i < a.length; i += 4) {
        if (Math.abs(a[i] - b[i]) > 8 || Math.abs(a[i + 1] - b[i + 1]) > 8 || Math.abs(a[i + 2] - b[i + 2]) > 8) n++;
    }
    return n;
}

/** Sets a panel control as a user would and lets its handler run. */
async function set($, id, value, event) {
    $(id).value = value;
    $(id).dispatchEvent(new Event(event));
    await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Loads `url` as a user would (URL box, Load) and twists its left forearm 170 degrees; its meshes. */
async function twisted({ $, load, state }, url) {
    $("url").value = url;
    await load(url);
    const joint = [...$("joint").options].find((o) => o.text === "LowerArm.L");
    if (!joint) throw new Error("no LowerArm.L in the joint list");
    await set($, "joint", joint.value, "change");
    await set($, "twist", "170", "input");
    return state.skinning.meshes.length;
}

/** Runs the check with the page's pieces and reports the figures (or the error). */
export async function selfCheck(page) {
    const { $, state } = page;
    try {
        await twisted(page, $("url").value);
        const drawn = {};
        for (const method of ["stock", "lbs", "dqs", "hybrid"]) {
            await set($, "method", method, "input");
            drawn[method] = snapshot(page);
        }
        const picture = page.renderer.domElement.toDataURL("image/png");
        await set($, "method", "cor", "input");
        const corRefused = { method: $("method").value, status: $("status").textContent };
        const withCenters = await twisted(page, "models/Adventurer_cor.gltf");
        await set($, "method", "dqs", "input");
        drawn.dqsWithCenters = snapshot(page);
        await set($, "method", "cor", "input");
        drawn.cor = snapshot(page);
        const run = [...$("clip").options].find((o) => o.text === "Run");
        await set($, "clip", run.value, "change");
        await set($, "time", "0", "input");
        const start = snapshot(page);
        await set($, "time", "0.3", "input");
        const later = snapshot(page);
        window.dqviewDone(
            JSON.stringify({
                meshes: state.skinning.meshes.length,
                joints: $("joint").options.length,
                clips: $("clip").options.length - 1,
                paused: !$("play").checked,
                stockVsDqs: differ(drawn.stock, drawn.dqs),
                stockVsLbs: differ(drawn.stock, drawn.lbs),
                dqsVsHybrid: differ(drawn.dqs, drawn.hybrid),
                corRefused,
                corMethod: state.skinning.method,
                corVsDqs: differ(drawn.dqsWithCenters, drawn.cor),
                sameModelDqs: differ(drawn.dqs, drawn.dqsWithCenters),
                withCenters,
                scrubbed: differ(start, later),
                status: $("status").textContent,
                picture,
            }),
        );
    } catch (e) {
        window.dqviewDone(JSON.stringify({ error: String(e?.message ?? e) }));
    }
}
