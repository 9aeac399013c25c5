//! Errors from GPU setup and GPU skinning.

/// What went wrong on the GPU side; only `main`/`cli` formats it for the user.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No graphics adapter at all (no GPU driver, no lavapipe).
    #[error(
        "no GPU adapter found ({reason}); on a machine without a GPU install Mesa's lavapipe \
         (Debian: mesa-vulkan-drivers libvulkan1) and set WGPU_BACKEND=vulkan"
    )]
    NoAdapter {
        /// wgpu's reason.
        reason: String,
    },
    /// The adapter refused to create a device with the limits dqview asks for.
    #[error("cannot create a GPU device on {adapter}: {source}")]
    RequestDevice {
        /// Adapter name.
        adapter: String,
        /// wgpu's error.
        source: wgpu::RequestDeviceError,
    },
    /// A validation, out-of-memory or internal error reported by wgpu.
    #[error("GPU error during {during}: {message}")]
    Wgpu {
        /// What dqview was doing (a label).
        during: &'static str,
        /// wgpu's description.
        message: String,
    },
    /// Mapping a readback buffer failed.
    #[error("cannot read back GPU buffer {label}: {message}")]
    Readback {
        /// The buffer's label.
        label: &'static str,
        /// wgpu's description.
        message: String,
    },
    /// Waiting for the GPU failed (device lost or timeout).
    #[error("waiting for the GPU failed: {0}")]
    Poll(#[from] wgpu::PollError),
    /// A buffer would exceed the device's limits.
    #[error("{what} needs {bytes} bytes, more than the device's limit of {limit} bytes")]
    TooLarge {
        /// Which buffer.
        what: &'static str,
        /// Bytes needed.
        bytes: u64,
        /// The device limit.
        limit: u64,
    },
    /// A mesh has more morph targets than the compute pass applies.
    #[error("a mesh has {targets} morph targets; GPU compute skinning applies at most {limit}")]
    TooManyMorphTargets {
        /// The mesh's target count.
        targets: usize,
        /// The most the pass applies.
        limit: usize,
    },
    /// The adapter lacks something a pipeline needs.
    #[error("the GPU adapter cannot {what}")]
    MissingCapability {
        /// What it cannot do, as a verb phrase.
        what: &'static str,
    },
}
