//! Every shader `dqview shader` writes, checked by validators that are not naga: Khronos
//! glslang (GLSL 330/450, GLSL ES 300/310, and its HLSL front-end) and spirv-tools
//! (`spirv-val`); the SPIR-V is also translated to MSL by SPIRV-Cross. No MSL compiler runs
//! on Linux, so the MSL is checked for the interface its header states. Each validator is
//! first shown to reject a broken copy, so a pass means something. Also checks that the
//! command writes what the library exports.
//!
//! The tools come from Debian (`glslang-tools`, `spirv-tools`, `spirv-cross`, installed by
//! `.ci/run`); without them the test prints `SKIPPED`, unless `DQVIEW_REQUIRE_DATA` is set.

mod support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use dqview::render::shader_export::{
    DEFAULT_EXPORT_JOINTS, ExportInfluences, ExportPalette, ExportStage, ShaderRequest,
    ShaderTarget, export_shader,
};
use dqview::skin::SkinningMode;

const METHODS: [SkinningMode; 5] = [
    SkinningMode::Lbs,
    SkinningMode::Dqs,
    SkinningMode::Hybrid,
    SkinningMode::Cor,
    SkinningMode::Ddm,
];
const STAGES: [ExportStage; 2] = [ExportStage::Vertex, ExportStage::Compute];
const INFLUENCES: [ExportInfluences; 2] = [ExportInfluences::Four, ExportInfluences::Eight];
const PALETTES: [ExportPalette; 2] = [
    ExportPalette::Uniform(DEFAULT_EXPORT_JOINTS),
    ExportPalette::Storage,
];

/// Whether every tool is on PATH; else a loud skip (or a failure in CI).
fn tools(test: &str) -> bool {
    let missing: Vec<&str> = ["glslangValidator", "spirv-val", "spirv-cross"]
        .into_iter()
        .filter(|t| Command::new(t).arg("--version").output().is_err())
        .collect();
    if missing.is_empty() {
        return true;
    }
    let required = std::env::var_os("DQVIEW_REQUIRE_DATA").is_some();
    assert!(
        !required,
        "{test}: {missing:?} not installed, and DQVIEW_REQUIRE_DATA is set"
    );
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {missing:?} not installed"
    );
    false
}

/// Runs `program args`; (success, stdout + stderr).
fn run(program: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new(program)
        .args(args)
        .output()
        .expect("run validator");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn stage_name(stage: ExportStage) -> &'static str {
    match stage {
        ExportStage::Vertex => "vert",
        ExportStage::Compute => "comp",
    }
}

/// Validates `file` (written for `r`) with the target's independent tool.
fn validate(r: &ShaderRequest, file: &Path, dir: &Path) -> (bool, String) {
    let path = file.to_str().expect("utf-8 path");
    match r.target {
        ShaderTarget::Glsl | ShaderTarget::GlslEs => {
            // glslang picks the stage from the extension and the rules from #version.
            let staged = file.with_extension(stage_name(r.stage));
            std::fs::copy(file, &staged).expect("copy");
            run("glslangValidator", &[staged.to_str().expect("utf-8")])
        }
        ShaderTarget::Hlsl => {
            let spv = dir.join("hlsl.spv");
            run(
                "glslangValidator",
                &[
                    "-D",
                    "-V",
                    "-S",
                    stage_name(r.stage),
                    "-e",
                    r.entry_point(),
                    "-o",
                    spv.to_str().expect("utf-8"),
                    path,
                ],
            )
        }
        ShaderTarget::Spirv => {
            let (ok, text) = run("spirv-val", &[path]);
            if !ok {
                return (ok, text);
            }
            run(
                "spirv-cross",
                &[
                    "--msl",
                    path,
                    "--output",
                    dir.join("cross.metal").to_str().expect("utf-8"),
                ],
            )
        }
        ShaderTarget::Msl => {
            let text = std::fs::read_to_string(file).expect("read");
            let header: Vec<&str> = text.lines().take_while(|l| l.starts_with("//")).collect();
            let qualifier = match r.stage {
                ExportStage::Vertex => "vertex ",
                ExportStage::Compute => "kernel ",
            };
            let ok = text.contains("#include <metal_stdlib>") && text.contains(qualifier);
            // Every buffer the header names is bound in the code.
            let buffers_bound = header
                .iter()
                .filter_map(|l| l.split("[[buffer(").nth(1))
                .all(|rest| {
                    let slot = rest.split(')').next().unwrap_or_default();
                    text.lines()
                        .skip(header.len())
                        .any(|l| l.contains(&format!("[[buffer({slot})]]")))
                });
            (ok && buffers_bound, String::new())
        }
        ShaderTarget::Wgsl => {
            let text = std::fs::read_to_string(file).expect("read");
            match naga::front::wgsl::parse_str(&text) {
                Ok(m) => {
                    let v = naga::valid::Validator::new(
                        naga::valid::ValidationFlags::all(),
                        naga::valid::Capabilities::default(),
                    )
                    .validate(&m);
                    (v.is_ok(), format!("{v:?}").chars().take(400).collect())
                }
                Err(e) => (false, e.emit_to_string(&text)),
            }
        }
    }
}

/// A broken copy of `bytes` the target's validator must reject.
fn broken(target: ShaderTarget, bytes: &[u8]) -> Vec<u8> {
    match target {
        ShaderTarget::Spirv => {
            // The first OpTypeFloat (opcode 22) declared 13 bits wide.
            let mut words: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let mut at = 5;
            while at < words.len() {
                let (count, opcode) = ((words[at] >> 16) as usize, words[at] & 0xffff);
                if opcode == 22 {
                    words[at + 2] = 13;
                    break;
                }
                at += count.max(1);
            }
            words.iter().flat_map(|w| w.to_le_bytes()).collect()
        }
        _ => {
            // A keyword split in two: a syntax error in every language.
            let text = String::from_utf8_lossy(bytes).into_owned();
            let text = text.replacen("return", "retur n", 1);
            text.into_bytes()
        }
    }
}

fn file_name(r: &ShaderRequest) -> String {
    let ext = match r.target {
        ShaderTarget::Wgsl => "wgsl",
        ShaderTarget::Glsl | ShaderTarget::GlslEs => "glsl",
        ShaderTarget::Hlsl => "hlsl",
        ShaderTarget::Msl => "metal",
        ShaderTarget::Spirv => "spv",
    };
    let palette = match r.palette {
        ExportPalette::Uniform(_) => "uniform",
        ExportPalette::Storage => "storage",
    };
    format!(
        "{}_{}_{}_{palette}_{}.{ext}",
        r.target.name(),
        r.method.name(),
        r.stage.name(),
        r.influences.count()
    )
}

#[test]
fn independent_validators_accept_every_export_and_reject_broken_ones() {
    let test = "independent_validators_accept_every_export_and_reject_broken_ones";
    if !tools(test) {
        return;
    }
    let dir = support::scratch_dir("shader_validators");
    let mut checked = 0;
    for target in ShaderTarget::ALL {
        for method in METHODS {
            for stage in STAGES {
                for (palette, influences) in PALETTES
                    .into_iter()
                    .flat_map(|p| INFLUENCES.map(|i| (p, i)))
                {
                    let r = ShaderRequest {
                        target,
                        method,
                        palette,
                        stage,
                        influences,
                    };
                    let bytes = export_shader(&r).expect("export").code.to_bytes();
                    let file: PathBuf = dir.join(file_name(&r));
                    std::fs::write(&file, &bytes).expect("write");
                    let (ok, log) = validate(&r, &file, &dir);
                    assert!(ok, "{} ({}):\n{log}", r.command_line(), file.display());
                    checked += 1;
                    // The validator rejects a broken copy (MSL has no validator to break).
                    if target != ShaderTarget::Msl
                        && method == SkinningMode::Dqs
                        && palette == PALETTES[0]
                        && influences == ExportInfluences::Four
                    {
                        let bad = dir.join(format!("broken_{}", file_name(&r)));
                        std::fs::write(&bad, broken(target, &bytes)).expect("write");
                        let (ok, _) = validate(&r, &bad, &dir);
                        assert!(
                            !ok,
                            "{}: the validator accepts a broken copy",
                            r.command_line()
                        );
                    }
                }
            }
        }
    }
    assert_eq!(checked, 6 * METHODS.len() * 2 * 2 * 2);
}

#[test]
fn the_command_writes_what_the_library_exports() {
    let dir = support::scratch_dir("shader_command");
    let out = dir.join("dqs.glsl");
    let o = support::dqview_in(
        &[
            "shader",
            "--target",
            "glsl-es",
            "--method",
            "hybrid",
            "--out",
            out.to_str().expect("utf-8"),
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", support::stderr_of(&o));
    let r = ShaderRequest {
        target: ShaderTarget::GlslEs,
        method: SkinningMode::Hybrid,
        palette: ExportPalette::Uniform(DEFAULT_EXPORT_JOINTS),
        stage: ExportStage::Vertex,
        influences: ExportInfluences::Four,
    };
    assert_eq!(
        std::fs::read(&out).expect("written"),
        export_shader(&r).expect("export").code.to_bytes()
    );
    for (args, message) in [
        (vec!["--target", "cuda"], "unknown --target `cuda`"),
        (
            vec!["--target", "glsl", "--method", "corr"],
            "unknown --method `corr`",
        ),
        (
            vec!["--target", "glsl", "--stage", "mesh"],
            "unknown --stage `mesh`",
        ),
        (
            vec!["--target", "glsl", "--joints", "5000"],
            "--joints 5000",
        ),
        (
            vec!["--target", "glsl", "--joints", "8", "--storage"],
            "cannot be used with",
        ),
        (
            vec!["--target", "glsl", "--influences", "6"],
            "--influences 6: the shader reads 4 or 8",
        ),
    ] {
        let mut all = vec!["shader"];
        all.extend(args);
        all.extend(["--out", out.to_str().expect("utf-8")]);
        let o = support::dqview_in(&all, &dir);
        let err = support::stderr_of(&o);
        assert!(
            !o.status.success() && err.contains(message),
            "{all:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{all:?}: {err}");
    }
}
