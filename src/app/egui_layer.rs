//! egui's three parts in the window: its context, the winit input state and the wgpu renderer.

use super::surface::WindowGpu;

/// The UI layer drawn over the 3D views.
pub struct EguiLayer {
    /// egui's context (style, memory, fonts).
    pub ctx: egui::Context,
    /// winit events turned into egui input.
    pub state: egui_winit::State,
    /// Draws egui's triangles with wgpu.
    pub renderer: egui_wgpu::Renderer,
    /// Input held back for the next frame so egui sees a press before the drag after it.
    pub pacer: crate::ui::InputPacer,
}

impl EguiLayer {
    /// A fresh layer for `gpu`'s window and device (a new context sends its font atlas again).
    #[must_use]
    pub fn new(gpu: &WindowGpu) -> Self {
        let ctx = gpu.egui_context();
        let window = &gpu.window;
        let state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(gpu.ctx.device.limits().max_texture_dimension_2d as usize),
        );
        Self {
            ctx,
            state,
            renderer: gpu.egui_renderer(),
            pacer: crate::ui::InputPacer::default(),
        }
    }
}
