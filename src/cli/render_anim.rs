//! `render`'s animations: which pose and camera angle each frame has, and the APNG / GIF
//! writers.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::render_args::MotionFlags;
use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::pose_request::ResolvedPose;
use crate::render::RgbaImage;
use crate::scene::Scene;
use crate::skin::JointSweep;

/// Most frames one animation may have (25 s at 24 fps).
pub const MAX_FRAMES: usize = 600;
/// Frames per second of sweeps and turntables (and the most a clip plays at).
pub const DEFAULT_FPS: f32 = 24.0;
/// The fastest frame rate accepted: GIF delays are whole hundredths of a second, and
/// browsers slow down delays under 20 ms.
pub const MAX_FPS: f32 = 50.0;

/// What one frame shows: a pose and an extra camera yaw.
#[derive(Clone, Debug)]
pub struct FrameSpec {
    /// Clip sampled, if any.
    pub clip: Option<usize>,
    /// Time in the clip, seconds.
    pub time_s: f32,
    /// Joint angles on top of the clip.
    pub overrides: JointOverrides,
    /// Degrees added to the camera's yaw (turntables).
    pub yaw_offset_deg: f32,
}

impl FrameSpec {
    /// The pose of this frame.
    #[must_use]
    pub fn pose(&self, scene: &Scene) -> Pose {
        let mut pose = Pose::rest(scene);
        pose.sample(scene, self.clip, self.time_s, &self.overrides);
        pose
    }
}

/// The frames of a render and how fast they play.
#[derive(Clone, Debug)]
pub struct FramePlan {
    /// One entry per frame (one for a still).
    pub frames: Vec<FrameSpec>,
    /// Frames per second (animations).
    pub fps: f32,
    /// Whether this is an animation (`--frames`), rather than a still.
    pub animated: bool,
}

/// Checks the motion flags together with the pose options: every flag that cannot take
/// effect is an error that says why. `time_given` is whether `--time` was on the command line.
pub fn plan(
    scene: &Scene,
    flags: &MotionFlags,
    pose: &ResolvedPose,
    time_given: bool,
) -> Result<FramePlan> {
    let still = FrameSpec {
        clip: pose.clip,
        time_s: pose.time_s,
        overrides: pose.overrides.clone(),
        yaw_offset_deg: 0.0,
    };
    let Some(n) = flags.frames else {
        for (given, flag) in [
            (flags.from.is_some(), "--from"),
            (flags.to.is_some(), "--to"),
            (flags.sweep.is_some(), "--sweep"),
            (flags.turntable, "--turntable"),
            (flags.fps.is_some(), "--fps"),
        ] {
            if given {
                bail!("{flag} animates a render: give --frames N (2 to {MAX_FRAMES}) too");
            }
        }
        return Ok(FramePlan {
            frames: vec![still],
            fps: DEFAULT_FPS,
            animated: false,
        });
    };
    if !(2..=MAX_FRAMES as i64).contains(&n) {
        bail!("--frames must be from 2 to {MAX_FRAMES}, got {n}");
    }
    let n = n as usize;
    let span = clip_span(scene, flags, pose, time_given)?;
    if span.is_none() && flags.sweep.is_none() && !flags.turntable {
        bail!(
            "--frames {n}: nothing moves; play a clip (--clip, without --time), sweep a joint (--sweep JOINT=FROM:TO) or orbit the camera (--turntable)"
        );
    }
    let sweep = flags
        .sweep
        .as_deref()
        .map(|s| super::blend::parse_sweep(scene, s, crate::skin::SweepKind::Twist, "--sweep"))
        .transpose()?;
    let fps = match flags.fps {
        Some(f) if f.is_finite() && (1.0..=MAX_FPS).contains(&f) => f,
        Some(f) => bail!("--fps must be from 1 to {MAX_FPS}, got {f}"),
        None => match span {
            Some((from, to)) => ((n - 1) as f32 / (to - from)).clamp(1.0, MAX_FPS),
            None => DEFAULT_FPS,
        },
    };
    let frames = (0..n)
        .map(|i| frame_at(&still, i, n, span, sweep.as_ref(), flags.turntable))
        .collect();
    Ok(FramePlan {
        frames,
        fps,
        animated: true,
    })
}

/// Frame `i` of `n`: clip time spread over `span` (both ends), sweep angle likewise, yaw
/// over one turn (the end left out, so the loop does not show the start twice).
fn frame_at(
    still: &FrameSpec,
    i: usize,
    n: usize,
    span: Option<(f32, f32)>,
    sweep: Option<&JointSweep>,
    turntable: bool,
) -> FrameSpec {
    let s = i as f32 / (n - 1).max(1) as f32;
    let mut frame = still.clone();
    if let Some((from, to)) = span {
        frame.time_s = from + (to - from) * s;
    }
    if let Some(sweep) = sweep {
        let mut angles = frame.overrides.get(sweep.node);
        angles.twist_deg += sweep.from_deg + (sweep.to_deg - sweep.from_deg) * s;
        frame.overrides.set(sweep.node, angles);
    }
    if turntable {
        frame.yaw_offset_deg = 360.0 * i as f32 / n as f32;
    }
    frame
}

/// The clip seconds the frames play, from `--from`/`--to`; `None` when no clip plays (no
/// clip, or `--time` holds it at one instant).
fn clip_span(
    scene: &Scene,
    flags: &MotionFlags,
    pose: &ResolvedPose,
    time_given: bool,
) -> Result<Option<(f32, f32)>> {
    let bounds_given = flags.from.is_some() || flags.to.is_some();
    let Some(clip) = pose.clip else {
        if bounds_given {
            bail!("--from/--to are seconds of a clip: give --clip NAME|INDEX");
        }
        return Ok(None);
    };
    if time_given {
        if bounds_given {
            bail!(
                "--time holds the clip at one instant; --from/--to play it: give one or the other"
            );
        }
        return Ok(None);
    }
    let duration = scene.animations.get(clip).map_or(0.0, clip_duration_s);
    let from = flags.from.unwrap_or(0.0);
    let to = flags.to.unwrap_or(duration);
    for (value, flag) in [(from, "--from"), (to, "--to")] {
        // A little past the end is the end (clip times print rounded).
        if !(value.is_finite() && (0.0..=duration + 1e-3).contains(&value)) {
            bail!("{flag} must be seconds from 0 to the clip's {duration:.3} s, got {value}");
        }
    }
    if from >= to {
        bail!(
            "--from {from} must come before --to {to} (the clip lasts {duration:.3} s); a clip with no duration cannot play"
        );
    }
    Ok(Some((from, to.min(duration))))
}

/// The file format `out`'s extension asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// PNG; APNG for animations.
    Png,
    /// GIF (256 colours a frame).
    Gif,
}

impl OutputFormat {
    /// The format of `out` (.png or .gif, any case); other extensions are an error.
    pub fn of(out: &Path) -> Result<Self> {
        let ext = out
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "png" => Ok(Self::Png),
            "gif" => Ok(Self::Gif),
            _ => bail!(
                "--out must end in .png (a still, or an APNG with --frames) or .gif, got {}",
                out.display()
            ),
        }
    }
}

/// Time of frame `k`'s start at `fps`, in whole centiseconds (rounded).
fn gif_start_cs(k: usize, fps: f32) -> u64 {
    (k as f64 * 100.0 / f64::from(fps.max(1e-3))).round() as u64
}

/// The GIF delay of frame `i` at `fps`, in centiseconds (GIF's unit): whole hundredths that
/// add up to the exact time of the frames so far, so 24 fps plays 4, 4, 5, 4, 4, 4 (25 cs
/// per 6 frames) instead of 4 every frame (25 fps).
#[must_use]
pub fn gif_delay_cs(i: usize, fps: f32) -> u16 {
    let cs = gif_start_cs(i + 1, fps) - gif_start_cs(i, fps);
    u16::try_from(cs.max(1)).unwrap_or(u16::MAX)
}

/// How a GIF of `frames` frames at `fps` really plays: its delays and the rate they make over
/// the loop, e.g. `delays 4-5 cs, 24.00 fps over the loop` (or `24.39 fps`, when the loop's
/// length is not a whole number of centiseconds at the asked rate).
#[must_use]
pub fn gif_timing_text(frames: usize, fps: f32) -> String {
    let delays: Vec<u16> = (0..frames).map(|i| gif_delay_cs(i, fps)).collect();
    let (lo, hi) = (
        delays.iter().copied().min().unwrap_or(0),
        delays.iter().copied().max().unwrap_or(0),
    );
    let total_cs: u64 = delays.iter().map(|&d| u64::from(d)).sum();
    let real = frames as f64 * 100.0 / total_cs.max(1) as f64;
    let spread = if lo == hi {
        format!("{lo} cs")
    } else {
        format!("{lo}-{hi} cs")
    };
    format!("GIF delays {spread}: {real:.2} fps over the loop")
}

/// Writes frames to a file as they are rendered: PNG / APNG or GIF.
pub enum FrameWriter {
    /// APNG (or a still PNG with one frame).
    Png(png::Writer<BufWriter<File>>),
    /// Animated GIF (or a still with one frame), with the index of the next frame.
    Gif(Box<image::codecs::gif::GifEncoder<BufWriter<File>>>, usize),
}

impl FrameWriter {
    /// Creates `out` for `frames` frames of `width` x `height` at `fps`; loops forever.
    pub fn create(
        out: &Path,
        format: OutputFormat,
        [width, height]: [u32; 2],
        frames: usize,
        fps: f32,
    ) -> Result<Self> {
        let file = File::create(out).with_context(|| format!("cannot write {}", out.display()))?;
        let writer = BufWriter::new(file);
        match format {
            OutputFormat::Png => {
                let mut encoder = png::Encoder::new(writer, width, height);
                encoder.set_color(png::ColorType::Rgba);
                encoder.set_depth(png::BitDepth::Eight);
                if frames > 1 {
                    encoder.set_animated(u32::try_from(frames)?, 0)?;
                    // APNG delays are fractions: 1000 / (1000 fps) s is the rate to 0.001 fps.
                    let per_second = (fps * 1000.0).round().clamp(1000.0, 50_000.0) as u16;
                    encoder.set_frame_delay(1000, per_second)?;
                }
                Ok(Self::Png(encoder.write_header()?))
            }
            OutputFormat::Gif => {
                // Speed 10 of 1..30: image's default quantiser quality, a few hundred ms a frame at 1024x512.
                let mut encoder = image::codecs::gif::GifEncoder::new_with_speed(writer, 10);
                encoder.set_repeat(image::codecs::gif::Repeat::Infinite)?;
                Ok(Self::Gif(Box::new(encoder), 0))
            }
        }
    }

    /// Appends one frame, shown for 1 / `fps` seconds (a GIF: see [`gif_delay_cs`]).
    pub fn push(&mut self, frame: RgbaImage, fps: f32) -> Result<()> {
        match self {
            Self::Png(writer) => writer.write_image_data(&frame.pixels)?,
            Self::Gif(encoder, index) => {
                let buffer = image::RgbaImage::from_raw(frame.width, frame.height, frame.pixels)
                    .context("frame size does not match its pixels")?;
                // Whole centiseconds (the encoder would round each 1000 / fps ms alike).
                let cs = gif_delay_cs(*index, fps);
                let delay = image::Delay::from_numer_denom_ms(u32::from(cs) * 10, 1);
                encoder.encode_frame(image::Frame::from_parts(buffer, 0, 0, delay))?;
                *index += 1;
            }
        }
        Ok(())
    }

    /// Finishes the file (the PNG's end chunk; the GIF trailer, which the encoder writes
    /// when dropped).
    pub fn finish(self) -> Result<()> {
        match self {
            Self::Png(writer) => writer.finish()?,
            Self::Gif(encoder, _) => drop(encoder),
        }
        Ok(())
    }
}

/// Prints `rendering: i/n frames` on a terminal (stderr), as `analyze` does.
pub fn progress(done: usize, total: usize) {
    if total > 1 && std::io::stderr().is_terminal() {
        let mut err = std::io::stderr();
        let _ = write!(err, "\rrendering: {done}/{total} frames");
        if done == total {
            let _ = writeln!(err);
        }
    }
}
