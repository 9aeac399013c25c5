//! Test hook (`DQVIEW_CHECK_UI_DAMAGE` set): every frame whose UI was drawn only where it
//! changed is drawn again whole into a twin texture and the two compared pixel for pixel, so
//! a test can prove on real frames that no stale widget or curve is left on screen.

use anyhow::Result;

use super::frame::UiFrame;
use super::screenshot::copy_texture;
use super::viewer::Running;

/// Frames checked and pixels that differed between the frame drawn in part and drawn whole.
#[derive(Clone, Copy, Debug, Default)]
pub struct DamageCheck {
    /// Frames drawn in part and checked.
    pub frames: u64,
    /// Pixels, over all checked frames, that differ from the whole frame.
    pub differing_pixels: u64,
}

impl DamageCheck {
    /// A check when the environment asks for it (`DQVIEW_CHECK_UI_DAMAGE`), else none.
    #[must_use]
    pub fn from_env() -> Option<Self> {
        std::env::var_os("DQVIEW_CHECK_UI_DAMAGE").map(|_| Self::default())
    }
}

impl Running {
    /// Draws `ui`'s frame whole into a twin and counts the pixels where `frame` (just
    /// submitted, drawn in part) differs from it.
    pub(super) fn check_damage(&mut self, frame: &wgpu::Texture, ui: &UiFrame) -> Result<()> {
        if self.damage_check.is_none() || !self.gpu.copy_src {
            return Ok(());
        }
        let ctx = &self.gpu.ctx;
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("dqview::app::damage_check"),
            });
        let drawn = copy_texture(ctx, &mut encoder, frame);
        let primitives = self.whole_primitives(ui);
        let mut commands = self.egui.renderer.update_buffers(
            &ctx.device,
            &ctx.queue,
            &mut encoder,
            &primitives,
            &ui.screen,
        );
        let twin = self.twin_texture();
        let view = twin.create_view(&wgpu::TextureViewDescriptor::default());
        self.encode_whole(&mut encoder, &view, ui, &primitives);
        let ctx = &self.gpu.ctx;
        let whole = copy_texture(ctx, &mut encoder, &twin);
        commands.push(encoder.finish());
        ctx.queue.submit(commands);
        let (drawn, whole) = (drawn.rgb(ctx)?, whole.rgb(ctx)?);
        let differing = drawn
            .chunks_exact(3)
            .zip(whole.chunks_exact(3))
            .filter(|(a, b)| a != b)
            .count() as u64;
        if let Some(check) = self.damage_check.as_mut() {
            check.frames += 1;
            check.differing_pixels += differing;
        }
        if differing > 0 {
            log::warn!(
                "frame {}: {differing} pixels drawn in part differ from the whole frame",
                self.stats.frames
            );
        }
        Ok(())
    }
}
