//! Vertex colours: `COLOR_0` as VEC3 or VEC4 of floats or normalised U8/U16, into linear RGBA.

use glam::Vec4;
use gltf::accessor::{DataType, Dimensions};
use gltf::json::mesh::Primitive as JsonPrimitive;
use gltf::json::validation::Checked;
use gltf::mesh::Semantic;

use super::accessor::{Format, Valid};
use super::mesh::vertex_attribute;
use super::source::Data;
use crate::scene::SceneError;

/// COLOR_n as RGB: floats or normalised unsigned integers.
const COLORS_RGB: Format = Format {
    dims: Dimensions::Vec3,
    types: &[DataType::F32, DataType::U8, DataType::U16],
};
/// COLOR_n as RGBA: floats or normalised unsigned integers.
const COLORS_RGBA: Format = Format {
    dims: Dimensions::Vec4,
    types: &[DataType::F32, DataType::U8, DataType::U16],
};

/// Reads `COLOR_0` of mesh `m` primitive `p`, if present.
///
/// A broken COLOR_0 (wrong type, wrong count, out-of-bounds accessor) only
/// loses the colours, with a warning; exceeding a load limit still refuses the file.
/// Non-finite colours become white and are counted as sanitised.
pub(super) fn load_colors(
    data: &Data<'_>,
    (m, p): (usize, usize),
    prim: &JsonPrimitive,
    vertices: usize,
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<Vec4>>, SceneError> {
    let semantic = Semantic::Colors(0);
    let Some(index) = prim.attributes.get(&Checked::Valid(semantic.clone())) else {
        return Ok(None);
    };
    // The element type picks the format; anything else fails the RGBA check with a clear message.
    let rgb = matches!(
        data.json.accessors.get(index.value()).map(|a| &a.type_),
        Some(Checked::Valid(Dimensions::Vec3))
    );
    let format = if rgb { &COLORS_RGB } else { &COLORS_RGBA };
    let here = format!("mesh {m} primitive {p}");
    let read = vertex_attribute(data, m, p, prim, vertices, semantic, format).and_then(|acc| {
        acc.map(|acc| read_colors(data, acc, rgb, &here, warnings))
            .transpose()
    });
    match read {
        Ok(colors) => Ok(colors),
        Err(e @ SceneError::LimitExceeded { .. }) => Err(e),
        Err(e) => {
            warnings.push(format!("{here}: COLOR_0 ignored: {e}"));
            Ok(None)
        }
    }
}

/// Reads a checked COLOR_0 accessor as RGBA, sanitising non-finite values to white.
fn read_colors<'a>(
    data: &Data<'a>,
    mut acc: Valid<'a>,
    rgb: bool,
    here: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<Vec4>, SceneError> {
    if acc.data_type != DataType::F32 && !acc.normalized {
        // glTF requires integer colours to be normalised; read them as if they were.
        warnings.push(format!(
            "{here}: COLOR_0 is {:?} but not normalized; read as normalized",
            acc.data_type
        ));
        acc.normalized = true;
    }
    let mut colors: Vec<Vec4> = if rgb {
        data.read_floats::<3>(&acc)?
            .into_iter()
            .map(|c| Vec4::new(c[0], c[1], c[2], 1.0))
            .collect()
    } else {
        data.read_floats::<4>(&acc)?
            .into_iter()
            .map(Vec4::from_array)
            .collect()
    };
    let first = colors.iter().position(|c| !c.is_finite());
    let mut bad = 0;
    for c in colors.iter_mut().filter(|c| !c.is_finite()) {
        *c = Vec4::ONE;
        bad += 1;
    }
    if bad > 0 {
        let kind = crate::scene::FaultKind::NonFiniteColors;
        data.fault(crate::scene::DataFault::new(
            kind,
            here,
            bad,
            first,
            "set to white",
        ));
    }
    Ok(colors)
}
