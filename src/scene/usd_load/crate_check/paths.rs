//! PATHS: the crate's path tree (`read_paths`, `build_compressed_paths` in openusd 0.6).

use super::{Limits, Reader, decode, encoded_ints, quantity};

/// PATHS (`read_paths`): `path_count`, then the encoded path tree, walked as
/// `build_compressed_paths` walks it; returns `path_count`.
pub(super) fn paths(r: &mut Reader, tokens: &[u64], limits: &Limits) -> Result<u64, String> {
    let path_count = r.u64("PATHS count")?;
    let at = r.pos;
    let count = r.u64("PATHS entry count")?;
    let indices = encoded_ints(r, count, false, "PATHS path indices", limits)?;
    let elements = encoded_ints(r, count, false, "PATHS element tokens", limits)?;
    let jumps = encoded_ints(r, count, false, "PATHS jumps", limits)?;
    // The reader allocates `path_count` paths, and each encoded entry fills the slot its path
    // index names; a valid file fills every slot, so it has no more paths than entries.
    if path_count > count {
        return Err(format!(
            "USDC PATHS at byte {at} claim {} paths, but encode only {} entries",
            quantity(path_count),
            quantity(count)
        ));
    }
    let tree = PathTree {
        indices: decode(&indices, count, "PATHS path indices")?,
        elements: decode(&elements, count, "PATHS element tokens")?,
        jumps: decode(&jumps, count, "PATHS jumps")?,
        path_count,
        tokens,
        max_bytes: limits.max_bytes,
    };
    tree.walk()
        .map_err(|e| format!("USDC PATHS at byte {at}: {e}"))?;
    Ok(path_count)
}

/// The decoded path tree of PATHS.
struct PathTree<'a> {
    /// Each entry's path slot (u32).
    indices: Vec<i64>,
    /// Each entry's element token (i32; negative for a property).
    elements: Vec<i64>,
    /// Each entry's jump (i32): -1 child only, 0 sibling only, > 0 both (sibling that far on).
    jumps: Vec<i64>,
    /// `path_count`: the slots.
    path_count: u64,
    /// Each token's length.
    tokens: &'a [u64],
    /// The cap on the path names built.
    max_bytes: u64,
}

impl PathTree<'_> {
    /// Walks the entries as `build_compressed_paths` does, checking each index it uses unchecked.
    ///
    /// Each entry of a valid tree is reached once; refusing a second visit keeps a crafted jump
    /// table from making the reader's walk exponential. Each entry's path is its parent's name
    /// plus a separator and its token, built as a new `String`: a deep chain of short entries
    /// makes these quadratic in the entries, so their total is held to the cap.
    fn walk(&self) -> Result<(), String> {
        let count = self.indices.len();
        if count == 0 {
            return Ok(());
        }
        let mut reached = vec![false; count];
        // The name length in each path slot; `None` until written (an empty path: a child
        // under an unwritten slot restarts at the root, as in the reader).
        let mut slots: Vec<Option<u64>> = vec![None; self.path_count as usize];
        let mut total = 0_u64;
        // (entry, its parent's name length, `None` for the empty path).
        let mut pending = vec![(0_usize, None)];
        while let Some((mut entry, mut parent)) = pending.pop() {
            loop {
                if entry >= count {
                    return Err(format!("a jump leads to entry {entry} of {count}"));
                }
                if std::mem::replace(&mut reached[entry], true) {
                    return Err(format!("entry {entry} is reached twice"));
                }
                let slot = self.indices[entry] as u32 as usize;
                let length = match parent {
                    // The root ("/") fills the slot of its entry number, not of its path index.
                    None => self.fill(entry, 1, &mut slots)?,
                    Some(parent) => {
                        let token = (self.elements[entry] as i32).unsigned_abs();
                        let Some(&token_length) = self.tokens.get(token as usize) else {
                            return Err(format!(
                                "entry {entry} names token {token} of {}",
                                self.tokens.len()
                            ));
                        };
                        self.fill(slot, parent + 1 + token_length, &mut slots)?
                    }
                };
                parent = Some(parent.unwrap_or(1));
                // A `String` per path: its bytes and its 24-byte header.
                total = total.saturating_add(length + 24);
                if total > self.max_bytes {
                    return Err(format!(
                        "its path names take more than {} bytes, the limit (raise it with --max-buffer-bytes)",
                        quantity(self.max_bytes)
                    ));
                }
                let jump = self.jumps[entry] as i32;
                let has_child = jump > 0 || jump == -1;
                let has_sibling = jump >= 0;
                if has_child {
                    if has_sibling {
                        pending.push((entry + jump as usize, parent));
                    }
                    let Some(&filled) = slots.get(slot) else {
                        return Err(format!(
                            "entry {entry} names path {slot} of {}",
                            self.path_count
                        ));
                    };
                    parent = filled;
                }
                if !has_child && !has_sibling {
                    break;
                }
                entry += 1;
            }
        }
        Ok(())
    }

    /// Writes a name of `length` bytes to path slot `slot`, refusing one past `path_count`;
    /// returns `length`.
    fn fill(&self, slot: usize, length: u64, slots: &mut [Option<u64>]) -> Result<u64, String> {
        match slots.get_mut(slot) {
            Some(filled) => {
                *filled = Some(length);
                Ok(length)
            }
            None => Err(format!("an entry names path {slot} of {}", self.path_count)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_trees_are_walked_once() {
        let tree = |jumps: Vec<i64>| PathTree {
            indices: (0..jumps.len() as i64).collect(),
            elements: vec![0; jumps.len()],
            path_count: jumps.len() as u64,
            jumps,
            tokens: &[10],
            max_bytes: 1 << 20,
        };
        // The root with child a, whose sibling b (2 on) has no children: fine.
        assert_eq!(tree(vec![-1, 2, -2, -2]).walk(), Ok(()));
        // Each entry a child and, 1 on, a sibling: the reader's walk is exponential.
        let err = tree(vec![-1, 1, 1, -2]).walk().unwrap_err();
        assert!(err.contains("reached twice"), "{err}");
        let err = tree(vec![-1, -1, -1, -1]).walk().unwrap_err();
        assert!(err.contains("jump leads to entry 4"), "{err}");
        let mut bad = tree(vec![-1, -2]);
        bad.elements[1] = -5;
        assert!(bad.walk().unwrap_err().contains("names token 5"));
        // A chain of 2,000 names, each its parent's plus 11 bytes: 22 MB of names from a few KB.
        let mut chain = vec![-1; 2000];
        chain[1999] = -2;
        assert_eq!(
            tree(chain[..300].iter().copied().chain([-2]).collect()).walk(),
            Ok(())
        );
        let err = tree(chain).walk().unwrap_err();
        assert!(
            err.contains("path names take more than 1,048,576 bytes"),
            "{err}"
        );
    }
}
