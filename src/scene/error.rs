//! Errors from loading a scene.

use std::path::PathBuf;

/// Why a file could not be loaded; each variant names what was wrong and where.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The path names something other than a regular file (a folder, a FIFO, a device, ...).
    #[error("{} {kind}", path.display())]
    NotAFile {
        /// The path as given.
        path: PathBuf,
        /// What it is instead.
        kind: crate::scene::NotAFile,
    },
    /// A finite value too large for dqview to skin and measure in f32 (see [`crate::scene::check_ranges`]).
    #[error(
        "{what} has {quantity} {value:e}{unit}: beyond ±{limit:e}{unit}, {reason}; the file is refused"
    )]
    ValueOutOfRange {
        /// Where, e.g. `inverse bind matrix of joint 3 (skin 0)`.
        what: String,
        /// Which value, e.g. `an entry` or `a key time`.
        quantity: &'static str,
        /// The value found.
        value: f32,
        /// The largest magnitude allowed.
        limit: f32,
        /// Unit after the numbers (` s` for times, empty for lengths).
        unit: &'static str,
        /// Why the limit is there.
        reason: &'static str,
    },
    /// The file requires a glTF extension dqview does not read.
    #[error(
        "the file requires the glTF extension {0}, which dqview does not read (glTF 2.0: a loader must refuse such a file)"
    )]
    RequiredExtension(String),
    /// The gltf crate refused the file (not glTF, bad JSON, bad GLB header, ...).
    #[error("not a valid glTF file: {0}")]
    Gltf(#[from] gltf::Error),
    /// ufbx refused the FBX file (not FBX, truncated, corrupt, ...).
    #[error("not a valid FBX file: {0}")]
    Fbx(String),
    /// The openusd crate refused the USD file, or the stage holds what dqview cannot convert.
    #[error("not a loadable USD file: {0}")]
    Usd(String),
    /// A `builtin:NAME` that does not exist.
    #[error("unknown built-in rig `{0}` (known: twist, elbow, arm)")]
    UnknownBuiltin(String),
    /// The data is structurally wrong in a way the gltf crate did not catch.
    #[error("{0}")]
    Invalid(String),
    /// The scene cannot be written as GLB (dangling index, mismatched lengths, too many joints, ...).
    #[error("cannot write GLB: {0}")]
    Write(String),
    /// A glTF file cannot be amended (container or vertex counts disagree, broken JSON, ...).
    #[error("cannot amend the glTF file: {0}")]
    Amend(String),
    /// The GLB header's total length does not fit the bytes given (truncated or corrupt file).
    #[error("GLB header declares {declared} bytes but {actual} bytes were given")]
    GlbLength {
        /// Total length from the GLB header.
        declared: u32,
        /// Bytes actually present.
        actual: usize,
    },
    /// A buffer's bytes could not be loaded (missing file, bad data URI, no base folder, ...).
    #[error("buffer {buffer}: cannot load `{uri}`: {reason}")]
    BufferLoad {
        /// Buffer index.
        buffer: usize,
        /// The buffer's URI, or `GLB BIN chunk`.
        uri: String,
        /// What went wrong.
        reason: String,
    },
    /// A buffer holds fewer bytes than its `byteLength` declares.
    #[error("buffer {buffer} declares {declared} bytes but holds {actual}")]
    BufferTooShort {
        /// Buffer index.
        buffer: usize,
        /// `byteLength` from the file.
        declared: u64,
        /// Bytes actually loaded.
        actual: usize,
    },
    /// A reference to an object that does not exist.
    #[error("{referrer} refers to {kind} {index}, but the file has {count}")]
    IndexOutOfRange {
        /// Who holds the reference, e.g. `mesh 0 primitive 1 (material)`.
        referrer: String,
        /// What kind of object is referenced (`node`, `accessor`, ...).
        kind: &'static str,
        /// The index in the file.
        index: usize,
        /// How many objects of that kind exist.
        count: usize,
    },
    /// A buffer view reaches past the end of its buffer.
    #[error(
        "buffer view {view} spans bytes {start}..{end} of buffer {buffer}, which holds {available}"
    )]
    BufferViewOutOfBounds {
        /// Buffer view index.
        view: usize,
        /// Buffer index.
        buffer: usize,
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
        /// Bytes in the buffer.
        available: usize,
    },
    /// An accessor's elements reach past the end of the buffer view backing them.
    #[error(
        "accessor {accessor} ({part}) needs {needed} bytes but buffer view {view} holds {available}"
    )]
    AccessorOutOfBounds {
        /// Accessor index.
        accessor: usize,
        /// Which part: `elements`, `sparse indices` or `sparse values`.
        part: &'static str,
        /// Buffer view index.
        view: usize,
        /// Bytes the accessor needs from the start of the view.
        needed: u128,
        /// Bytes in the view.
        available: usize,
    },
    /// An accessor is stored in a layout dqview cannot use for this purpose.
    #[error("accessor {accessor} (used as {usage}) is {found}, expected {expected}")]
    AccessorFormat {
        /// Accessor index.
        accessor: usize,
        /// What the accessor is used for, e.g. `POSITION of mesh 0 primitive 0`.
        usage: String,
        /// Its type and component type.
        found: String,
        /// The accepted layouts.
        expected: String,
    },
    /// An accessor is malformed (zero count, stride too small, bad sparse indices, ...).
    #[error("accessor {accessor}: {reason}")]
    AccessorInvalid {
        /// Accessor index.
        accessor: usize,
        /// What is wrong.
        reason: String,
    },
    /// An attribute's element count differs from the primitive's vertex count.
    #[error(
        "mesh {mesh} primitive {primitive}: {attribute} (accessor {accessor}) has {count} elements but POSITION has {vertices}"
    )]
    AttributeCountMismatch {
        /// Mesh index.
        mesh: usize,
        /// Primitive index within the mesh (as in the file).
        primitive: usize,
        /// Attribute name, e.g. `NORMAL`.
        attribute: String,
        /// Accessor index.
        accessor: usize,
        /// Elements in the attribute.
        count: usize,
        /// Vertices (POSITION elements).
        vertices: usize,
    },
    /// A vertex index points past the end of the vertex list.
    #[error(
        "mesh {mesh} primitive {primitive}: index accessor {accessor} holds index {index} but there are {vertices} vertices"
    )]
    VertexIndexOutOfRange {
        /// Mesh index.
        mesh: usize,
        /// Primitive index within the mesh (as in the file).
        primitive: usize,
        /// The index accessor.
        accessor: usize,
        /// The offending index.
        index: u32,
        /// Vertex count.
        vertices: usize,
    },
    /// A weighted joint index is not smaller than the joint count of a skin applied to the mesh.
    #[error(
        "mesh {mesh} primitive {primitive}: JOINTS accessor {accessor} uses joint {joint} but skin {skin} (on node {node}) has {joints} joints"
    )]
    JointIndexOutOfRange {
        /// Mesh index.
        mesh: usize,
        /// Primitive index within the mesh (as in the file).
        primitive: usize,
        /// The JOINTS_n accessor holding the index.
        accessor: usize,
        /// The largest weighted joint index in that accessor.
        joint: u16,
        /// Joint count of the skin.
        joints: usize,
        /// The skin.
        skin: usize,
        /// A node that draws the mesh with that skin.
        node: usize,
    },
    /// A node is listed as the child of two different nodes.
    #[error("node {node} is a child of both node {first_parent} and node {second_parent}")]
    NodeSharedChild {
        /// The child node.
        node: usize,
        /// The first parent found.
        first_parent: usize,
        /// The second parent found.
        second_parent: usize,
    },
    /// The node hierarchy has a cycle.
    #[error("node {node} is its own ancestor (the node hierarchy has a cycle)")]
    NodeCycle {
        /// A node on the cycle.
        node: usize,
    },
    /// A skin has fewer inverse bind matrices than joints.
    #[error(
        "skin {skin}: inverse bind matrix accessor {accessor} holds {matrices} matrices for {joints} joints"
    )]
    InverseBindCount {
        /// Skin index.
        skin: usize,
        /// The inverse bind matrix accessor.
        accessor: usize,
        /// Matrices in the accessor.
        matrices: usize,
        /// Joints in the skin.
        joints: usize,
    },
    /// An animation sampler's output count does not fit its key count.
    #[error(
        "animation {animation} channel {channel}: output accessor {accessor} has {outputs} elements, expected {expected} for {inputs} keys"
    )]
    AnimationOutputCount {
        /// Animation index.
        animation: usize,
        /// Channel index within the animation.
        channel: usize,
        /// The output accessor.
        accessor: usize,
        /// Keys (input elements).
        inputs: usize,
        /// Output elements found.
        outputs: usize,
        /// Output elements expected.
        expected: usize,
    },
    /// The file would decode to far more data than its buffers hold (one accessor reused very often).
    #[error("the file decodes to more than {limit} bytes of vertex, skin and key data; refused")]
    DecodeBudget {
        /// The budget in bytes: a multiple of the buffer bytes, with a floor.
        limit: u64,
    },
    /// The file claims more of something than a [`crate::scene::LoadOptions`] limit allows.
    #[error(
        "the file has {found} {what}, more than the limit of {limit}; raise it with {flag} (LoadOptions::{field})"
    )]
    LimitExceeded {
        /// What was counted, e.g. `vertices` or `bytes of buffers`.
        what: &'static str,
        /// How many the file has (or claims), counted up to the point it was refused.
        found: u64,
        /// The limit in force.
        limit: u64,
        /// The command-line flag that raises the limit.
        flag: &'static str,
        /// The [`crate::scene::LoadOptions`] field that raises the limit.
        field: &'static str,
    },
    /// ufbx needed more memory than [`crate::scene::LoadOptions::max_buffer_bytes`] allows to parse an FBX file.
    #[error(
        "parsing the FBX file needs more than the limit of {limit} bytes of memory ({reason}); raise it with --max-buffer-bytes (LoadOptions::max_buffer_bytes)"
    )]
    MemoryLimit {
        /// The limit in force, for each of ufbx's two allocators (parsing, result), in bytes.
        limit: u64,
        /// ufbx's message.
        reason: String,
    },
    /// A buffer URI names a file outside the model's own folder, and external URIs are not allowed.
    #[error(
        "{referrer}: URI `{uri}` {reason}; refused, because files may only name files in their own folder (pass --allow-external-uris, or set LoadOptions::allow_external_uris, to allow it)"
    )]
    ExternalUri {
        /// Who holds the URI, e.g. `buffer 0`.
        referrer: String,
        /// The URI as written in the file.
        uri: String,
        /// Why it is outside, e.g. `is an absolute path`.
        reason: &'static str,
    },
    /// An enumerated field holds a value glTF does not define.
    #[error("{referrer}: `{field}` has a value glTF does not define")]
    UnknownEnumValue {
        /// Who holds the field, e.g. `mesh 0 primitive 2`.
        referrer: String,
        /// The field name from the glTF schema.
        field: &'static str,
    },
}

/// The message a caught panic carried (`panic!`'s text), if it carried text.
#[must_use]
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}
