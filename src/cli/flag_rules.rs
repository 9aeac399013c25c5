//! Which shared flags a run was given, so a command can refuse those it would ignore.
//!
//! Flags with a default value cannot tell "not given" from "given the default"; a flag
//! counts as given here when it differs from its default (giving the default changes
//! nothing, so nothing is ignored).

use anyhow::{Result, bail};

use super::{CorArgs, LoadArgs};

/// The CoR precompute flags that differ from their defaults (`--bulge-compensation` is not
/// one: it corrects DQS, not the precompute).
#[must_use]
pub fn cor_precompute_given(cor: &CorArgs) -> Vec<&'static str> {
    let default = CorArgs::default();
    [
        (cor.cor_sigma != default.cor_sigma, "--cor-sigma"),
        (cor.cor_no_subdivide, "--cor-no-subdivide"),
        (
            !cor.cor_method.eq_ignore_ascii_case(&default.cor_method),
            "--cor-method",
        ),
        (cor.cor_bins != default.cor_bins, "--cor-bins"),
        (cor.no_cor_cache, "--no-cor-cache"),
    ]
    .into_iter()
    .filter_map(|(given, flag)| given.then_some(flag))
    .collect()
}

/// Refuses CoR precompute flags where nothing computes centers of rotation; `why` ends
/// the sentence and says what would use them ("the mode is dqs (CoR needs --mode cor)").
pub fn refuse_cor_precompute(cor: &CorArgs, why: &str) -> Result<()> {
    refuse_setup(&cor_precompute_given(cor), "the CoR precompute", why)
}

/// Refuses `given` flags that set up `what` where nothing uses it: "FLAGS set(s) up WHAT, but WHY".
pub fn refuse_setup(given: &[&str], what: &str, why: &str) -> Result<()> {
    if !given.is_empty() {
        bail!(
            "{} set{} up {what}, but {why}",
            given.join(", "),
            if given.len() == 1 { "s" } else { "" },
        );
    }
    Ok(())
}

/// The load flags that differ from their defaults.
#[must_use]
pub fn load_given(load: &LoadArgs) -> Vec<&'static str> {
    let default = LoadArgs::default();
    [
        (load.max_vertices != default.max_vertices, "--max-vertices"),
        (load.max_joints != default.max_joints, "--max-joints"),
        (
            load.max_buffer_bytes != default.max_buffer_bytes,
            "--max-buffer-bytes",
        ),
        (load.allow_external_uris, "--allow-external-uris"),
    ]
    .into_iter()
    .filter_map(|(given, flag)| given.then_some(flag))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_count_as_not_given_and_each_change_is_named() {
        assert!(cor_precompute_given(&CorArgs::default()).is_empty());
        let cor = CorArgs {
            cor_sigma: 0.2,
            no_cor_cache: true,
            ..CorArgs::default()
        };
        assert_eq!(
            cor_precompute_given(&cor),
            ["--cor-sigma", "--no-cor-cache"]
        );
        let err = refuse_cor_precompute(&cor, "the mode is dqs").expect_err("refused");
        assert_eq!(
            err.to_string(),
            "--cor-sigma, --no-cor-cache set up the CoR precompute, but the mode is dqs"
        );
        assert!(load_given(&LoadArgs::default()).is_empty());
        let load = LoadArgs {
            max_joints: 3,
            ..LoadArgs::default()
        };
        assert_eq!(load_given(&load), ["--max-joints"]);
    }
}
