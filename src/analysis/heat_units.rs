//! Displacement in the scene's own lengths: a heat bar's "% of the diagonal" beside
//! millimetres, centimetres or metres from the file's units.

use super::heat::{HeatQuantity, HeatRange, heat_value_text};

/// What a fraction of the diagonal is in metres: the diagonal in scene units and the file's
/// metres per unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LengthScale {
    /// The rest bounding-box diagonal, scene units.
    pub diagonal: f32,
    /// Metres per scene unit (glTF: 1; a centimetre FBX: 0.01).
    pub unit_meters: f32,
}

impl LengthScale {
    /// Metres per unit of diagonal; `None` when either number is unusable (zero, negative, not
    /// finite), so nothing prints a length it cannot know.
    #[must_use]
    pub fn metres_per_diagonal(self) -> Option<f32> {
        let m = self.diagonal * self.unit_meters;
        (m.is_finite() && m > 0.0).then_some(m)
    }

    /// The unit a bar up to `hi` (a fraction of the diagonal) reads in: its name and metres.
    #[must_use]
    pub fn unit_for(self, hi: f32) -> Option<(&'static str, f32)> {
        let top = (hi * self.metres_per_diagonal()?).abs();
        Some(if top < 0.01 {
            ("mm", 0.001)
        } else if top < 1.0 {
            ("cm", 0.01)
        } else {
            ("m", 1.0)
        })
    }

    /// The diagonal itself as text, e.g. `1.73 m` or `182 cm`.
    #[must_use]
    pub fn diagonal_text(self) -> Option<String> {
        let (unit, metres) = self.unit_for(1.0)?;
        let value = self.metres_per_diagonal()? / metres;
        Some(format!("{} {unit}", three_digits(value)))
    }
}

/// `value` with about three significant digits (at least none after the point).
fn three_digits(value: f32) -> String {
    let decimals = match value.abs() {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    format!("{value:.decimals$}")
}

/// A bar's number: [`heat_value_text`], and for displacement with a `length` scale the same
/// length in the unit the bar's `range` reads in: `1.20% = 2.08 cm`; the CoR distance in that
/// unit alone (`2.08 cm`), the percentage where the length is unknown.
#[must_use]
pub fn heat_value_with_length(
    quantity: HeatQuantity,
    value: f32,
    decimals: usize,
    range: HeatRange,
    length: Option<LengthScale>,
) -> String {
    let text = heat_value_text(quantity, value, decimals);
    let unit = length.and_then(|l| Some((l.unit_for(range.hi.abs().max(range.lo.abs()))?, l)));
    match (quantity, unit) {
        (HeatQuantity::Displacement | HeatQuantity::CorDistance, Some(((name, metres), l))) => {
            let per = l.metres_per_diagonal().unwrap_or(0.0);
            let v = value * per / metres;
            match (v.is_finite(), quantity) {
                (false, _) => text,
                (true, HeatQuantity::CorDistance) => format!("{} {name}", three_digits(v)),
                (true, _) => format!("{text} = {} {name}", three_digits(v)),
            }
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displacement_reads_in_the_files_own_lengths() {
        let d = HeatQuantity::Displacement;
        let r = HeatRange { lo: 0.0, hi: 0.05 };
        // A 1.8 m glTF character: 5% of its diagonal is 9 cm.
        let metres = LengthScale {
            diagonal: 1.8,
            unit_meters: 1.0,
        };
        assert_eq!(
            heat_value_with_length(d, 0.05, 2, r, Some(metres)),
            "5.00% = 9.00 cm"
        );
        assert_eq!(
            heat_value_with_length(d, 0.0, 2, r, Some(metres)),
            "0.00% = 0.00 cm"
        );
        // The same character authored in centimetres (FBX): 180 units of 1 cm.
        let cm = LengthScale {
            diagonal: 180.0,
            unit_meters: 0.01,
        };
        assert_eq!(
            heat_value_with_length(d, 0.05, 2, r, Some(cm)),
            "5.00% = 9.00 cm"
        );
        assert_eq!(cm.diagonal_text().as_deref(), Some("1.80 m"));
        // A tiny prop reads in millimetres; a building in metres.
        let small = LengthScale {
            diagonal: 0.1,
            unit_meters: 1.0,
        };
        assert_eq!(
            heat_value_with_length(d, 0.05, 2, r, Some(small)),
            "5.00% = 5.00 mm"
        );
        let big = LengthScale {
            diagonal: 40.0,
            unit_meters: 1.0,
        };
        assert_eq!(
            heat_value_with_length(d, 0.05, 2, r, Some(big)),
            "5.00% = 2.00 m"
        );
        // No usable scale, or another quantity: the plain number.
        let broken = LengthScale {
            diagonal: f32::INFINITY,
            unit_meters: 1.0,
        };
        assert_eq!(heat_value_with_length(d, 0.05, 2, r, Some(broken)), "5.00%");
        assert_eq!(heat_value_with_length(d, 0.05, 2, r, None), "5.00%");
        let c = HeatQuantity::Collapse;
        assert_eq!(
            heat_value_with_length(c, 0.9, 2, HeatRange { lo: 0.8, hi: 1.2 }, Some(metres)),
            "0.90"
        );
    }
}
