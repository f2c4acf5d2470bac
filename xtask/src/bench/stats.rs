//! The arithmetic of the report: medians, quantiles, ratios and numbers as they are printed.
//!
//! **Layer:** tooling, inside [`bench`](super), at its bottom: pure functions on numbers. It must
//! never know what the numbers measure.

/// The value at quantile `q` of `sorted` (nearest rank), NaN when empty.
pub(super) fn quantile(sorted: &[f64], q: f64) -> f64 {
    let rank = (sorted.len() as f64 * q).ceil() as usize;
    sorted
        .get(rank.clamp(1, sorted.len().max(1)) - 1)
        .copied()
        .unwrap_or(f64::NAN)
}

pub(super) fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

pub(super) fn ratio(numerator: f64, denominator: f64) -> String {
    if numerator.is_finite() && denominator.is_finite() && denominator > 0.0 {
        format!("{:.2}", numerator / denominator)
    } else {
        "–".to_owned()
    }
}

/// `1000000` as `1,000,000`.
pub(super) fn thousands(number: usize) -> String {
    let digits = number.to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_quantiles_ratios_and_thousands() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(Vec::new()).is_nan());
        let sorted: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantile(&sorted, 0.5), 50.0);
        assert_eq!(quantile(&sorted, 0.99), 99.0);
        assert_eq!(quantile(&[7.0], 0.99), 7.0);
        assert!(quantile(&[], 0.5).is_nan());
        assert_eq!(ratio(1.0, 4.0), "0.25");
        assert_eq!(ratio(1.0, 0.0), "–");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(999), "999");
    }
}
