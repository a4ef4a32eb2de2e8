//! Numbers as a person reads them: times in ns with their unit, and counted nouns (the crate was `units`; it
//! formats, it converts nothing). The lowest layer of formatting, used by analysis (flag reasons), the
//! orchestrator (progress) and the renderers.

/// Formats a time in ns with a unit that keeps 3 significant digits: `0.312 ns`, `23.4 ns`, `1.52 µs`,
/// `110 µs`, `1.20 ms`, `2.50 s`; `0.000123 ns` below a thousandth. Negative values (a result below its control) keep their sign.
pub fn format_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "n/a".into();
    }
    let magnitude = ns.abs();
    let (value, unit) = if magnitude < 1e3 {
        (ns, "ns")
    } else if magnitude < 1e6 {
        (ns / 1e3, "µs")
    } else if magnitude < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    // Below a thousandth of a ns, three significant digits down to a picosecond's thousandth, so an
    // interval's positive low end never reads as zero; smaller still is arithmetic noise (0.000).
    let digits = match value.abs() {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        v if v >= 1.0 => 2,
        v if (1e-6..1e-3).contains(&v) => (2.0 - v.log10().floor()) as usize,
        _ => 3,
    };
    format!("{value:.digits$} {unit}")
}

/// A ratio as every report prints it, three significant digits: `1.05`, `12.3`, `216`, and below 1 as many
/// decimals as three significant digits need (`0.0456`, `0.000123`), so that an interval's positive low end
/// never reads as zero. `n/a` when not finite.
pub fn format_ratio(x: f64) -> String {
    if x.is_finite() {
        three_significant(x)
    } else {
        "n/a".into()
    }
}

/// `x` with three significant digits (whole from 100 up, two decimals from 0.1 to 10), at most nine
/// decimals.
fn three_significant(x: f64) -> String {
    let digits = match x.abs() {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        v if v >= 0.1 => 2,
        0.0 => 2,
        v => ((2.0 - v.log10().floor()) as usize).clamp(2, 9),
    };
    format!("{x:.digits$}")
}

/// `n` and the noun that goes with it: `1 package`, `2 packages`, `1 NUMA node`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::{counted, format_ns};

    #[test]
    fn one_takes_the_singular() {
        assert_eq!(counted(1, "package", "packages"), "1 package");
        assert_eq!(counted(0, "package", "packages"), "0 packages");
        assert_eq!(counted(2, "NUMA node", "NUMA nodes"), "2 NUMA nodes");
    }

    #[test]
    fn picks_unit_and_precision() {
        assert_eq!(format_ns(0.3123), "0.312 ns");
        assert_eq!(format_ns(23.44), "23.4 ns");
        assert_eq!(format_ns(1523.0), "1.52 µs");
        assert_eq!(format_ns(110_000.0), "110 µs");
        assert_eq!(format_ns(1.2e6), "1.20 ms");
        assert_eq!(format_ns(-5.0), "-5.00 ns");
        assert_eq!(format_ns(f64::NAN), "n/a");
        assert_eq!(format_ns(0.000_123_4), "0.000123 ns", "a small positive time never reads as zero");
        assert_eq!(format_ns(1e-13), "0.000 ns");
    }

    #[test]
    fn a_ratio_keeps_three_significant_digits() {
        use super::format_ratio;
        assert_eq!(format_ratio(216.4), "216");
        assert_eq!(format_ratio(12.34), "12.3");
        assert_eq!(format_ratio(1.054), "1.05");
        assert_eq!(format_ratio(0.456), "0.46");
        assert_eq!(format_ratio(0.0456), "0.0456");
        assert_eq!(format_ratio(0.000_012_34), "0.0000123");
        assert_eq!(format_ratio(f64::INFINITY), "n/a");
    }
}
