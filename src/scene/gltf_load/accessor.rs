//! Accessor checks: every byte an accessor reads is inside its buffer view before gltf reads it.
//!
//! Validation is skipped when parsing, so gltf's readers would panic (or
//! allocate whatever a count claims) on a bad accessor. Each accessor is checked
//! here, for the use it is put to, right before it is read.

use gltf::accessor::{DataType, Dimensions};
use gltf::json::accessor::sparse::Sparse;
use gltf::json::validation::Checked;

use super::source::Data;
use crate::scene::SceneError;

/// Most elements an accessor with no buffer view may have; its zeros are not backed by file bytes.
pub(super) const MAX_UNBACKED_ELEMENTS: u64 = 1 << 24;

/// The layouts an accessor may have for one use.
pub(super) struct Format {
    /// Element type (SCALAR, VEC3, ...).
    pub dims: Dimensions,
    /// Accepted component types.
    pub types: &'static [DataType],
}

impl Format {
    /// Human-readable list of the accepted layouts, e.g. `VEC4 of U8/U16`.
    fn describe(&self) -> String {
        let types: Vec<String> = self.types.iter().map(|t| format!("{t:?}")).collect();
        format!("{:?} of {}", self.dims, types.join("/"))
    }
}

/// VEC3 floats: positions, normals, translations, scales.
pub(super) const VEC3_F32: Format = Format {
    dims: Dimensions::Vec3,
    types: &[DataType::F32],
};
/// POSITION: floats, or integers under KHR_mesh_quantization.
pub(super) const POSITIONS: Format = Format {
    dims: Dimensions::Vec3,
    types: &[
        DataType::F32,
        DataType::I8,
        DataType::U8,
        DataType::I16,
        DataType::U16,
    ],
};
/// NORMAL: floats, or normalised signed integers under KHR_mesh_quantization.
pub(super) const NORMALS: Format = Format {
    dims: Dimensions::Vec3,
    types: &[DataType::F32, DataType::I8, DataType::I16],
};
/// TANGENT: floats, or normalised signed integers under KHR_mesh_quantization.
pub(super) const TANGENTS: Format = Format {
    dims: Dimensions::Vec4,
    types: &[DataType::F32, DataType::I8, DataType::I16],
};
/// Morph target POSITION/NORMAL/TANGENT deltas: floats, or integers under KHR_mesh_quantization.
pub(super) const MORPH_DELTAS: Format = Format {
    dims: Dimensions::Vec3,
    types: &[
        DataType::F32,
        DataType::I8,
        DataType::U8,
        DataType::I16,
        DataType::U16,
    ],
};
/// SCALAR floats: key times.
pub(super) const SCALAR_F32: Format = Format {
    dims: Dimensions::Scalar,
    types: &[DataType::F32],
};
/// MAT4 floats: inverse bind matrices.
pub(super) const MAT4_F32: Format = Format {
    dims: Dimensions::Mat4,
    types: &[DataType::F32],
};
/// Vertex indices.
pub(super) const INDICES: Format = Format {
    dims: Dimensions::Scalar,
    types: &[DataType::U8, DataType::U16, DataType::U32],
};
/// TEXCOORD_n (signed integers only under KHR_mesh_quantization).
pub(super) const TEX_COORDS: Format = Format {
    dims: Dimensions::Vec2,
    types: &[
        DataType::F32,
        DataType::U8,
        DataType::U16,
        DataType::I8,
        DataType::I16,
    ],
};
/// JOINTS_n.
pub(super) const JOINTS: Format = Format {
    dims: Dimensions::Vec4,
    types: &[DataType::U8, DataType::U16],
};
/// WEIGHTS_n.
pub(super) const WEIGHTS: Format = Format {
    dims: Dimensions::Vec4,
    types: &[DataType::U8, DataType::U16, DataType::F32],
};
/// Rotation keys (normalised integers or floats).
pub(super) const ROTATIONS: Format = Format {
    dims: Dimensions::Vec4,
    types: &[
        DataType::I8,
        DataType::U8,
        DataType::I16,
        DataType::U16,
        DataType::F32,
    ],
};
/// Morph weight keys (normalised integers or floats).
pub(super) const MORPH_WEIGHTS: Format = Format {
    dims: Dimensions::Scalar,
    types: &[
        DataType::I8,
        DataType::U8,
        DataType::I16,
        DataType::U16,
        DataType::F32,
    ],
};

/// An accessor whose bytes have all been bounds-checked, ready for gltf's readers.
#[derive(Clone, Debug)]
pub(super) struct Valid<'a> {
    /// Accessor index in the file.
    pub index: usize,
    /// Number of elements.
    pub count: usize,
    /// Component type.
    pub data_type: DataType,
    /// Bytes per element.
    pub elem_size: usize,
    /// Whether integer components map to [0, 1] or [-1, 1].
    pub normalized: bool,
    /// Its elements decoded from a Draco stream (packed), for an accessor without a buffer view.
    pub decoded: Option<&'a [u8]>,
    /// gltf's handle, for its readers.
    pub inner: gltf::Accessor<'a>,
}

impl<'a> Data<'a> {
    /// Checks accessor `index` for a use with layout `format`; `usage` names that use in errors.
    pub fn accessor(
        &self,
        index: usize,
        format: &Format,
        usage: &dyn Fn() -> String,
    ) -> Result<Valid<'a>, SceneError> {
        let json = self
            .json
            .accessors
            .get(index)
            .ok_or_else(|| SceneError::IndexOutOfRange {
                referrer: usage(),
                kind: "accessor",
                index,
                count: self.json.accessors.len(),
            })?;
        let (Checked::Valid(component), Checked::Valid(dims)) = (&json.component_type, &json.type_)
        else {
            return Err(SceneError::UnknownEnumValue {
                referrer: format!("accessor {index}"),
                field: "componentType or type",
            });
        };
        let data_type = component.0;
        if *dims != format.dims || !format.types.contains(&data_type) {
            return Err(SceneError::AccessorFormat {
                accessor: index,
                usage: usage(),
                found: format!("{dims:?} of {data_type:?}"),
                expected: format.describe(),
            });
        }
        let invalid = |reason: String| SceneError::AccessorInvalid {
            accessor: index,
            reason,
        };
        let count = json.count.0;
        if count == 0 {
            return Err(invalid("count is 0".to_owned()));
        }
        let elem_size = data_type.size() * dims.multiplicity();
        let decoded = self.draco.get(&index).map(Vec::as_slice);
        match json.buffer_view {
            Some(view) => {
                let offset = json.byte_offset.map_or(0, |o| o.0);
                self.span(index, "elements", view.value(), offset, count, elem_size)?;
            }
            // The Draco decoder packed `count` elements in this layout; checked all the same.
            None if decoded
                .is_some_and(|d| d.len() as u128 != u128::from(count) * elem_size as u128) =>
            {
                return Err(invalid(format!(
                    "its Draco-decoded data does not hold {count} elements of {elem_size} bytes"
                )));
            }
            None if decoded.is_some() => {}
            None if count > MAX_UNBACKED_ELEMENTS => {
                return Err(invalid(format!(
                    "has no buffer view but {count} elements (at most {MAX_UNBACKED_ELEMENTS} are zero-filled)"
                )));
            }
            None => {}
        }
        if let Some(sparse) = &json.sparse {
            self.check_sparse(index, count, elem_size, sparse)?;
        }
        let count =
            usize::try_from(count).map_err(|_| invalid(format!("count {count} is too large")))?;
        let inner = self
            .doc
            .accessors()
            .nth(index)
            .ok_or_else(|| invalid("missing from the document".to_owned()))?;
        Ok(Valid {
            index,
            count,
            data_type,
            elem_size,
            normalized: json.normalized,
            decoded: decoded.filter(|_| json.buffer_view.is_none()),
            inner,
        })
    }

    /// Checks that `count` elements of `elem_size` bytes at `offset` fit in buffer view `view`.
    ///
    /// Returns the view's bytes and the stride gltf's readers will use.
    fn span(
        &self,
        accessor: usize,
        part: &'static str,
        view: usize,
        offset: u64,
        count: u64,
        elem_size: usize,
    ) -> Result<(&'a [u8], usize), SceneError> {
        let bytes = self.view_bytes(view, &|| format!("accessor {accessor} ({part})"))?;
        let stride = self.view_stride(view).unwrap_or(elem_size);
        if stride < elem_size {
            return Err(SceneError::AccessorInvalid {
                accessor,
                reason: format!(
                    "buffer view {view} has byteStride {stride}, less than the {elem_size}-byte element"
                ),
            });
        }
        // u128 cannot overflow here: each factor is below 2^64.
        let needed = u128::from(offset)
            + stride as u128 * u128::from(count.saturating_sub(1))
            + elem_size as u128;
        if needed > bytes.len() as u128 {
            return Err(SceneError::AccessorOutOfBounds {
                accessor,
                part,
                view,
                needed,
                available: bytes.len(),
            });
        }
        Ok((bytes, stride))
    }

    /// Checks a sparse section: bounds of indices and values, and indices strictly increasing below `count`.
    fn check_sparse(
        &self,
        accessor: usize,
        count: u64,
        elem_size: usize,
        sparse: &Sparse,
    ) -> Result<(), SceneError> {
        let invalid = |reason: String| SceneError::AccessorInvalid { accessor, reason };
        let sparse_count = sparse.count.0;
        if sparse_count == 0 || sparse_count > count {
            return Err(invalid(format!(
                "sparse count {sparse_count} is not in 1..={count}"
            )));
        }
        let index_type = match &sparse.indices.component_type {
            Checked::Valid(t) if matches!(t.0, DataType::U8 | DataType::U16 | DataType::U32) => t.0,
            _ => return Err(invalid("sparse indices are not U8, U16 or U32".to_owned())),
        };
        let index_size = index_type.size();
        let (bytes, stride) = self.span(
            accessor,
            "sparse indices",
            sparse.indices.buffer_view.value(),
            sparse.indices.byte_offset.0,
            sparse_count,
            index_size,
        )?;
        self.span(
            accessor,
            "sparse values",
            sparse.values.buffer_view.value(),
            sparse.values.byte_offset.0,
            sparse_count,
            elem_size,
        )?;
        // gltf applies values only at indices it meets in order; anything else would be silently dropped.
        let start = usize::try_from(sparse.indices.byte_offset.0).unwrap_or(usize::MAX);
        let mut previous: Option<u64> = None;
        for k in 0..usize::try_from(sparse_count).unwrap_or(0) {
            let at = start + k * stride;
            let raw = bytes.get(at..at + index_size).unwrap_or(&[]);
            let value = match *raw {
                [a] => u64::from(a),
                [a, b] => u64::from(u16::from_le_bytes([a, b])),
                [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
                _ => return Err(invalid("sparse indices could not be read".to_owned())),
            };
            if value >= count || previous.is_some_and(|p| value <= p) {
                return Err(invalid(format!(
                    "sparse index {value} at position {k} is not strictly increasing below {count}"
                )));
            }
            previous = Some(value);
        }
        Ok(())
    }
}
