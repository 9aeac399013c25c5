//! Which glTF extensions dqview reads: a required one it cannot honour refuses the file
//! (glTF 2.0, section 3.12: a loader must), an optional one it ignores is a note.

use crate::scene::SceneError;

/// Extensions dqview reads, whether a file requires them or not.
pub const READ_EXTENSIONS: &[&str] = &[
    "KHR_mesh_quantization",
    "KHR_texture_transform",
    "KHR_draco_mesh_compression",
    "EXT_meshopt_compression",
    "KHR_meshopt_compression",
    "EXT_texture_webp",
    "KHR_materials_emissive_strength",
    "VRMC_vrm",
    "VRM",
    "VRMC_node_constraint",
];

/// Extensions read with a note: the file loads, something it asks for is shown plainly.
pub const NOTED_EXTENSIONS: &[(&str, &str)] = &[
    (
        "KHR_texture_basisu",
        "KTX2 (Basis Universal) textures are not decoded: a material whose only base colour \
         image is KTX2 shows its base colour factor",
    ),
    (
        "KHR_materials_unlit",
        "unlit materials are shaded like the others (their base colour as stored)",
    ),
];

/// Refuses `required` extensions dqview does not read; the notes for the `used` ones it
/// ignores (optional) or reads with a note.
///
/// # Errors
/// [`SceneError::RequiredExtension`] naming the first required extension not read.
pub fn check<'a>(
    required: impl Iterator<Item = &'a str>,
    used: impl Iterator<Item = &'a str>,
) -> Result<Vec<String>, SceneError> {
    let noted = |ext: &str| NOTED_EXTENSIONS.iter().any(|(n, _)| *n == ext);
    let read = |ext: &str| READ_EXTENSIONS.contains(&ext) || noted(ext);
    let mut required: Vec<&str> = required.filter(|ext| !read(ext)).collect();
    required.sort_unstable();
    if let Some(ext) = required.first() {
        return Err(SceneError::RequiredExtension((*ext).to_owned()));
    }
    let mut used: Vec<&str> = used.collect();
    // A file may list an extension twice: one note.
    used.sort_unstable();
    used.dedup();
    Ok(used
        .into_iter()
        .filter_map(
            |ext| match NOTED_EXTENSIONS.iter().find(|(n, _)| *n == ext) {
                Some((_, note)) => Some(format!("glTF extension {ext}: {note}")),
                None if !READ_EXTENSIONS.contains(&ext) => Some(format!(
                    "glTF extension {ext} is used by the file but not read (optional: ignored)"
                )),
                None => None,
            },
        )
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_required_extension_not_read_refuses_and_an_optional_one_is_a_note() {
        let err = check(
            ["KHR_mesh_quantization", "EXT_made_up"].into_iter(),
            ["EXT_made_up"].into_iter(),
        )
        .expect_err("refused");
        assert!(matches!(&err, SceneError::RequiredExtension(e) if e == "EXT_made_up"));
        assert!(err.to_string().contains("EXT_made_up"), "{err}");
        let notes = check(
            ["KHR_texture_transform"].into_iter(),
            [
                "KHR_materials_volume",
                "KHR_materials_volume",
                "KHR_texture_transform",
            ]
            .into_iter(),
        )
        .expect("loads");
        assert_eq!(
            notes,
            [
                "glTF extension KHR_materials_volume is used by the file but not read (optional: ignored)"
            ]
        );
        let basis = check(
            ["KHR_texture_basisu"].into_iter(),
            ["KHR_texture_basisu"].into_iter(),
        )
        .expect("a KTX2 texture does not refuse the file");
        assert!(basis[0].contains("base colour factor"), "{basis:?}");
    }
}
