//! The panel's settings and layout, tested headless.

use super::*;

#[test]
fn the_map_shows_as_stored_and_a_strength_says_so_beside_the_label() {
    let mut s = SkinningSettings::default();
    assert_eq!((s.beta, s.uniform_beta), (1.0, None));
    assert_eq!(hybrid_label_note(&s), None);
    s.beta = 0.5;
    assert_eq!(hybrid_label_note(&s).as_deref(), Some("map strength 0.50"));
    s.uniform_beta = Some(0.3);
    assert_eq!(hybrid_label_note(&s).as_deref(), Some("uniform beta 0.30"));
}

#[test]
fn view_and_ghost_names() {
    for v in ViewMode::ALL {
        assert_eq!(ViewMode::from_name(v.name()), Some(v));
    }
    assert_eq!(ViewMode::from_name("SPLIT"), Some(ViewMode::Split));
    assert_eq!(ViewMode::from_name("quad"), None);
    assert_eq!(ghost_mode(SkinningMode::Lbs), SkinningMode::Dqs);
    assert_eq!(ghost_mode(SkinningMode::Dqs), SkinningMode::Lbs);
}

mod layout {
    use super::*;

    /// Where the `skeleton` toggle lies when the Skinning section shows `s`.
    fn skeleton_toggle_at(s: SkinningSettings) -> egui::Rect {
        let ctx = egui::Context::default();
        let (mut s, mut d) = (s, DisplaySettings::default());
        // Two frames: egui settles sizes on the second.
        for frame in 0..2 {
            input_order::frame(&ctx, f64::from(frame), Vec::new(), |ui| {
                skinning_ui(ui, &mut s, &mut d);
            });
        }
        probe::take(&ctx)["skeleton"].rect
    }

    #[test]
    fn switching_the_view_moves_no_row_below() {
        let single = skeleton_toggle_at(SkinningSettings::default());
        for changed in [
            SkinningSettings {
                view: ViewMode::Split,
                ..SkinningSettings::default()
            },
            SkinningSettings {
                view: ViewMode::Overlay,
                ..SkinningSettings::default()
            },
        ] {
            assert_eq!(skeleton_toggle_at(changed), single, "{changed:?}");
        }
    }
}
