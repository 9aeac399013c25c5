//! TEMPORARY stack probe (will be replaced).
use std::path::PathBuf;

fn text(kind: &str, n: usize) -> String {
    match kind {
        "prim" => format!("#usda 1.0\n{}{}", "def Xform \"a\"\n{\n".repeat(n), "}\n".repeat(n)),
        "tdict" => format!(
            "#usda 1.0\n(\n    customLayerData = {{\n{}{}    }}\n)\n",
            "dictionary a = {\n".repeat(n),
            "}\n".repeat(n)
        ),
        "udict" => format!(
            "#usda 1.0\n(\n    customLayerData = {{\n a = {}1{}\n    }}\n)\n",
            "{ a = ".repeat(n),
            " }".repeat(n)
        ),
        "array" => format!(
            "#usda 1.0\ndef \"A\"\n{{\n    double x = 1 (\n        foo = {}1{}\n    )\n}}\n",
            "[".repeat(n),
            "]".repeat(n)
        ),
        "variant" => format!(
            "#usda 1.0\ndef \"a\"\n{{\n{}{}}}\n",
            "variantSet \"v\" = {\n\"x\" {\n".repeat(n / 2),
            "}\n}\n".repeat(n / 2)
        ),
        "vprim" => format!(
            "#usda 1.0\n{}{}",
            "def \"a\"\n{\nvariantSet \"v\" = {\n\"x\" {\n".repeat(n / 3),
            "}\n}\n}\n".repeat(n / 3)
        ),
        "vsel" => format!(
            "#usda 1.0\n{}{}",
            "def \"a\" (\n variants = {\n string v = \"x\"\n }\n)\n{\nvariantSet \"v\" = {\n\"x\" {\n".repeat(n / 3),
            "}\n}\n}\n".repeat(n / 3)
        ),
        _ => panic!("{kind}"),
    }
}

#[test]
#[ignore]
fn probe() {
    let kind = std::env::var("PROBE_KIND").unwrap();
    let n: usize = std::env::var("PROBE_DEPTH").unwrap().parse().unwrap();
    let stack: usize = std::env::var("PROBE_STACK").unwrap().parse().unwrap();
    let path = PathBuf::from(format!("/tmp/probe/{kind}-{n}.usda"));
    std::fs::write(&path, text(&kind, n)).unwrap();
    let r = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            dqview::scene::load_usd_path_with(&path, &dqview::scene::LoadOptions::DEFAULT)
                .map(|s| s.nodes.len())
                .map_err(|e| e.to_string())
        })
        .unwrap()
        .join()
        .unwrap();
    println!("RESULT {r:?}");
}
