//! Primitive topology: triangle strips and fans become triangle lists.

use gltf::mesh::Mode;

/// Converts a strip or fan to a list with glTF's winding; a list is returned as is.
///
/// Other modes (points, lines) give an empty list; callers drop those primitives first.
#[must_use]
pub(super) fn triangle_list(mode: Mode, indices: Vec<u32>) -> Vec<u32> {
    let corners = |i: usize| indices.get(i).copied().unwrap_or(0);
    let triangles = indices.len().saturating_sub(2);
    match mode {
        Mode::Triangles => indices,
        // glTF 2.0 spec, 3.7.2.1: triangle i of a strip is (i, i + 1 + i % 2, i + 2 - i % 2).
        Mode::TriangleStrip => (0..triangles)
            .flat_map(|i| [corners(i), corners(i + 1 + i % 2), corners(i + 2 - i % 2)])
            .collect(),
        // Triangle i of a fan is (i + 1, i + 2, 0).
        Mode::TriangleFan => (0..triangles)
            .flat_map(|i| [corners(i + 1), corners(i + 2), corners(0)])
            .collect(),
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_keep_winding() {
        let list = triangle_list(Mode::TriangleStrip, vec![0, 1, 2, 3, 4]);
        assert_eq!(list, vec![0, 1, 2, 1, 3, 2, 2, 3, 4]);
    }

    #[test]
    fn fans_share_the_first_vertex() {
        let list = triangle_list(Mode::TriangleFan, vec![0, 1, 2, 3]);
        assert_eq!(list, vec![1, 2, 0, 2, 3, 0]);
    }

    #[test]
    fn short_input_gives_no_triangles() {
        assert!(triangle_list(Mode::TriangleStrip, vec![0, 1]).is_empty());
    }
}
