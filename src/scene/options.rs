//! Limits and policies for loading untrusted files.

/// How much a file may claim, and which files its URIs may name, when it is loaded.
///
/// Files are untrusted: a small file can claim billions of vertices, and a URI
/// can name any file on the machine. The defaults suit characters and scenes a
/// viewer shows; each limit names the command-line flag that raises it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// Most vertices (POSITION elements, summed over every primitive) a file may have.
    pub max_vertices: u64,
    /// Most joints, summed over every skin, a file may have.
    pub max_joints: u64,
    /// Most bytes of buffers (declared `byteLength`, summed) a file may have; also caps the file size.
    pub max_buffer_bytes: u64,
    /// Largest texture side in pixels; a bigger image is skipped with a warning, before decoding.
    pub max_texture_side: u32,
    /// Most RGBA8 bytes all textures of one file may decode to; further images are skipped with a warning.
    pub max_texture_bytes: u64,
    /// Whether buffer and image URIs may name files outside the model's own folder
    /// (absolute paths, `..` climbing out, `file:` URIs). `data:` URIs are always allowed.
    pub allow_external_uris: bool,
}

impl LoadOptions {
    /// Default [`LoadOptions::max_vertices`]: 50 million.
    pub const DEFAULT_MAX_VERTICES: u64 = 50_000_000;
    /// Default [`LoadOptions::max_joints`]: 100,000.
    pub const DEFAULT_MAX_JOINTS: u64 = 100_000;
    /// Default [`LoadOptions::max_buffer_bytes`]: 2 GiB.
    pub const DEFAULT_MAX_BUFFER_BYTES: u64 = 2 << 30;
    /// Default [`LoadOptions::max_texture_side`]: 16,384 pixels.
    pub const DEFAULT_MAX_TEXTURE_SIDE: u32 = 16_384;
    /// Default [`LoadOptions::max_texture_bytes`]: 2 GiB (two maximal RGBA8 textures).
    pub const DEFAULT_MAX_TEXTURE_BYTES: u64 = 2 << 30;

    /// The defaults: 50 million vertices, 100,000 joints, 2 GiB of buffers,
    /// 16,384-pixel and 2 GiB of textures, URIs only inside the model's folder.
    pub const DEFAULT: Self = Self {
        max_vertices: Self::DEFAULT_MAX_VERTICES,
        max_joints: Self::DEFAULT_MAX_JOINTS,
        max_buffer_bytes: Self::DEFAULT_MAX_BUFFER_BYTES,
        max_texture_side: Self::DEFAULT_MAX_TEXTURE_SIDE,
        max_texture_bytes: Self::DEFAULT_MAX_TEXTURE_BYTES,
        allow_external_uris: false,
    };
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self::DEFAULT
    }
}
