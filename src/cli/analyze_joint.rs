//! `dqview analyze --joint J`: one joint region's ratio to rest per mode, as text or JSON.

use anyhow::Result;
use serde_json::{Value, json};

use crate::analysis::{Measure, RegionAnalysis};
use crate::scene::Scene;

/// Prints the report of one joint region: which joint, its size, per mode the range and when.
pub fn print(scene: &Scene, region: &RegionAnalysis, as_json: bool) -> Result<()> {
    let what = match region.measure {
        Measure::Volume => "volume",
        Measure::Area => "area",
    };
    if as_json {
        let modes: serde_json::Map<String, Value> = region
            .modes
            .iter()
            .map(|m| {
                (
                    m.mode.name().to_string(),
                    json!({
                        "min_ratio": m.min_ratio,
                        "min_time": m.min_time_s,
                        "max_ratio": m.max_ratio,
                        "max_time": m.max_time_s,
                        "ratios": m.ratios,
                        "not_measured": m.not_measured.map(|(why, n)| json!({"samples": n, "reason": why.text()})),
                    }),
                )
            })
            .collect();
        let report = json!({
            "file": scene.source,
            "joint": {"node": region.joint, "name": region.name},
            "vertices": region.vertices,
            "triangles": region.triangles,
            "openings": region.openings,
            "measure": what,
            "not_measurable": region.not_measurable.map(|why| why.text()),
            "times": region.times_s,
            "modes": modes,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let how = match region.measure {
        Measure::Volume => format!(
            "volume with {} opening{} capped",
            region.openings,
            if region.openings == 1 { "" } else { "s" }
        ),
        Measure::Area => String::from("area (the region does not close)"),
    };
    println!("file        {}", scene.source);
    println!(
        "region      {} (node {}): {} vertices, {} triangles; {how}",
        region.name, region.joint, region.vertices, region.triangles
    );
    println!(
        "samples     {} (region {what} ratio to rest)",
        region.times_s.len()
    );
    if let Some(why) = region.not_measurable {
        println!("not measurable: {}", why.text());
    }
    for m in &region.modes {
        let range = match (m.min_ratio, m.max_ratio) {
            (Some(lo), Some(hi)) => format!(
                "region {what} ratio {lo:.4} .. {hi:.4}, min at {:.3} s, max at {:.3} s",
                m.min_time_s, m.max_time_s
            ),
            _ => String::from("region not measurable at any sample"),
        };
        let missing = m.not_measured.map_or_else(String::new, |(why, n)| {
            format!("; not measurable at {n} samples: {}", why.text())
        });
        println!("{:<11} {range}{missing}", m.mode.name());
    }
    Ok(())
}
