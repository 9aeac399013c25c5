//! Every USD load runs on a thread of its own, whose stack holds [`USD_MAX_NESTING`] levels.
//!
//! openusd 0.6's text parser recurses once per nested prim, dictionary, array or variant, and
//! a stack overflow aborts the process, which no catch turns into an error. Pixar opens a
//! 10,000-deep prim chain, so dqview parses one too: the parse and the composition run on a
//! thread whose stack is sized to the bound, whatever stack the caller has (a `dqview check`
//! worker has 2 MiB), and text nesting past the bound is refused before it is parsed
//! (`crate_check/text.rs`).
//!
//! Measured (the least stack a load succeeds with, at two depths): the stack grows per level by
//! 1,680 bytes for nested prims with references, 1,660 for nested prims, 1,220 for nested
//! dictionaries, 930 per bracket of prims in variants and 560 per bracket of nested variants in
//! release; the dev profile (opt-level 1, dependencies 2) is within 10% of that. 20,000 levels
//! of the worst need 34 MiB, so [`LOAD_STACK_BYTES`] leaves seven times that. The stack is
//! reserved address space: its pages are committed only when a deep file reaches them, so a
//! shallow file costs what it did on the caller's stack.

use std::any::Any;

use crate::scene::SceneError;

/// The deepest bracket nesting (`(`, `[`, `{` together) a USDA layer may have; a prim chain may
/// be nearly this deep. Deeper text is refused, the error naming this bound.
pub const USD_MAX_NESTING: usize = 20_000;

/// The loading thread's stack: 256 MiB, seven times what [`USD_MAX_NESTING`] levels of the
/// deepest-recursing construct were measured to use.
const LOAD_STACK_BYTES: usize = 256 << 20;

/// Runs `load` on a thread with a [`LOAD_STACK_BYTES`] stack and returns its result; a panic
/// on that thread (the crate's assertions) becomes [`SceneError::Usd`].
pub(super) fn on_load_thread<T: Send>(
    load: impl FnOnce() -> Result<T, SceneError> + Send,
) -> Result<T, SceneError> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name(String::from("dqview-usd-load"))
            .stack_size(LOAD_STACK_BYTES)
            .spawn_scoped(scope, load)
            .map_err(|e| {
                SceneError::Usd(format!(
                    "cannot start the USD loading thread (a {} MiB stack, for {USD_MAX_NESTING} levels of nesting): {e}",
                    LOAD_STACK_BYTES >> 20
                ))
            })?;
        thread
            .join()
            .unwrap_or_else(|panic| Err(panic_error(&*panic)))
    })
}

/// A panic's message as the one-line error the USD loader reports.
fn panic_error(panic: &(dyn Any + Send)) -> SceneError {
    let why = crate::scene::panic_text(panic).unwrap_or("unknown");
    SceneError::Usd(format!("the USD reader failed: {}", why.replace('\n', " ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_an_error() {
        let err = on_load_thread::<()>(|| panic!("assertion\nfailed")).unwrap_err();
        assert_eq!(
            err.to_string(),
            SceneError::Usd(String::from("the USD reader failed: assertion failed")).to_string()
        );
    }

    #[test]
    fn the_stack_is_the_loading_threads() {
        // 64 MiB of stack in one frame chain: far past a test thread's 2 MiB.
        fn deep(levels: usize) -> usize {
            let page = std::hint::black_box([0_u8; 4096]);
            if levels == 0 {
                0
            } else {
                deep(levels - 1) + usize::from(page[levels % 4096])
            }
        }
        assert_eq!(on_load_thread(|| Ok(deep(16 * 1024))).unwrap(), 0);
    }
}
