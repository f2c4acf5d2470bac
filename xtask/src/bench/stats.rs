//! The arithmetic of the report: medians of runs and ratios between servers.
//!
//! **Layer:** tooling, inside [`bench`](super), at its bottom: pure functions on numbers. It must
//! never know what the numbers measure.

pub(super) fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    }
}

pub(super) fn ratio(numerator: f64, denominator: f64) -> String {
    if numerator.is_finite() && denominator.is_finite() && denominator > 0.0 {
        format!("{:.2}", numerator / denominator)
    } else {
        "–".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_ratios() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(ratio(1.0, 4.0), "0.25");
        assert_eq!(ratio(1.0, 0.0), "–");
    }
}
