//! `render`'s camera and animation flags.

use clap::Args;

/// Where `render`'s camera looks from: a joint to frame, orbit angles and distance.
#[derive(Clone, Debug, Default, Args)]
pub struct CameraFlags {
    /// Frame the region this joint (name or node index) influences: its posed vertices with
    /// weight above 0.05, plus a margin. Without it the rest pose is framed.
    #[arg(long, value_name = "JOINT")]
    pub focus: Option<String>,
    /// Orbit angle about +Y in degrees; 0 looks from +Z (the front). Default 19.3 (a little right).
    #[arg(long, value_name = "DEG", allow_negative_numbers = true)]
    pub yaw: Option<f32>,
    /// Elevation in degrees, inside (-90, 90). Default 13.3 (a little above).
    #[arg(long, value_name = "DEG", allow_negative_numbers = true)]
    pub pitch: Option<f32>,
    /// Distance from the eye to the target in model units. Default: the framed box just fits.
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    pub distance: Option<f32>,
    /// Also write the camera used (view and projection matrices, size) as JSON, for another
    /// renderer to draw the same view (`integrations/three/render.mjs --camera`). One pane, a
    /// camera that holds still.
    #[arg(long, value_name = "CAMERA.json")]
    pub camera_out: Option<std::path::PathBuf>,
}

/// What moves in an animated `render`: clip time, a twist sweep, the camera.
#[derive(Clone, Debug, Default, Args)]
pub struct MotionFlags {
    /// Write an animation of N frames (2 to 600): APNG for .png, GIF for .gif. It plays
    /// --clip from --from to --to, and/or a --sweep, and/or a --turntable.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub frames: Option<i64>,
    /// First clip time of the animation, seconds (default 0).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub from: Option<f32>,
    /// Last clip time of the animation, seconds (default: the clip's end).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub to: Option<f32>,
    /// Twist sweep over the frames: JOINT=FROM:TO in degrees, added to the pose options.
    #[arg(long, value_name = "JOINT=FROM:TO")]
    pub sweep: Option<String>,
    /// One full orbit of the camera about +Y over the frames, starting at --yaw.
    #[arg(long)]
    pub turntable: bool,
    /// Frames per second of the animation, 1 to 50. Default: the clip's own speed when a clip
    /// plays (clamped to 1..50), else 24.
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    pub fps: Option<f32>,
}
