//! The stage's prims as the crate's default traversal (`PrimPredicate::DEFAULT_PROXIES`) visits
//! them: active, loaded, defined and not abstract, instance proxies included, parents first.
//!
//! openusd 0.6's `Stage::traverse` recomputes each prim's inherited status by walking all its
//! ancestors (its own `TODO(perf)` says so), and each of those queries hashes and compares the
//! ancestor's whole path string, so a chain `d` prims deep costs `d^3`: 1,200 nested Xforms took
//! 11 s. Walked top-down, a prim is reached only through a parent that passed, so its own
//! opinions decide: `d^2` queries here. The crate still composes each prim by walking its
//! ancestors' path strings (`enclosing_instance`, `collect_ancestor_arcs`, the load rules), so
//! a composed chain stays about `d^3`: 2.7 s at 1,000 levels, 30 s at 2,400, 3.6 minutes at
//! 4,800; a flat stage ([`super::flat`]) is walked in its specs, linear in its size.

use std::rc::Rc;

use super::source::UsdStage;
use crate::scene::SceneError;

/// A prim's path, shared by every table that names the prim: a chain `d` deep has `d^2 / 2`
/// bytes of paths, so each is held once (100 MB at 10,000 levels).
pub(super) type PrimPath = Rc<str>;

/// Every prim the default traversal visits, in its order (depth first, children in composed order).
pub(super) fn prim_paths(stage: &UsdStage) -> Result<Vec<PrimPath>, SceneError> {
    let mut out = Vec::new();
    let mut stack = stage.children("/")?;
    stack.reverse();
    while let Some(prim) = stack.pop() {
        if !stage.visits(&prim)? {
            continue;
        }
        let below = stage.children(&prim)?;
        stack.extend(below.into_iter().rev());
        out.push(PrimPath::from(prim));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use openusd::usd::Stage;

    /// The crate's own traversal of `text`, and this one (and whether the stage read flat).
    fn both(text: &str) -> (Vec<String>, Vec<String>, bool) {
        // One file per call: the tests run in parallel in one process, and a shared name let
        // one test open the other's stage.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("dqview-traverse-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("stage-{call}.usda"));
        std::fs::write(&path, text).unwrap();
        let stage = Stage::open(path.to_str().unwrap()).unwrap();
        let mut theirs = Vec::new();
        stage
            .traverse(openusd::usd::PrimPredicate::DEFAULT_PROXIES, |p| {
                theirs.push(p.as_str().to_owned());
            })
            .unwrap();
        let stage = UsdStage::new(stage);
        let flat = stage.is_flat();
        let ours = prim_paths(&stage)
            .unwrap()
            .iter()
            .map(|p| p.to_string())
            .collect();
        (theirs, ours, flat)
    }

    #[test]
    fn visits_what_the_crate_visits() {
        let text = r#"#usda 1.0
class "Base"
{
    def Xform "InClass" {}
}
def Xform "A" (
    inherits = </Base>
)
{
    def Xform "B" {}
    def Xform "Off" (
        active = false
    )
    {
        def Xform "Below" {}
    }
    over "Over"
    {
        def Xform "UnderOver" {}
    }
    def Scope "C" (
        instanceable = true
        references = </Proto>
    )
    {
    }
    def Mesh "M" {}
}
def Xform "Proto"
{
    def Xform "P1"
    {
        def Xform "P2" {}
    }
}
"#;
        let (theirs, ours, flat) = both(text);
        assert!(!flat, "inherits, references and instancing are composed");
        assert_eq!(ours, theirs);
        assert!(ours.contains(&String::from("/A/C/P1/P2")), "{ours:?}");
        assert!(ours.contains(&String::from("/A/InClass")), "{ours:?}");
        assert!(!ours.iter().any(|p| p.contains("Off") || p.contains("Over")));
    }

    #[test]
    fn a_flat_stage_visits_what_the_crate_visits() {
        let text = r#"#usda 1.0
class "Base"
{
    def Xform "InClass" {}
}
def Xform "A"
{
    def Xform "B" { def Mesh "M" {} }
    def Xform "Off" (
        active = false
    )
    {
        def Xform "Below" {}
    }
    over "Over"
    {
        def Xform "UnderOver" {}
    }
    def "Untyped" {}
}
over "Top" { def Xform "T" {} }
def Xform "Z" {}
"#;
        let (theirs, ours, flat) = both(text);
        assert!(flat, "one layer without arcs reads flat");
        assert_eq!(ours, theirs);
        assert_eq!(ours, ["/A", "/A/B", "/A/B/M", "/A/Untyped", "/Z"]);
    }
}
