//! Linux CPU lists, the text form of a set of CPUs (`"0-3,8,10-11"`) that sysfs writes and `taskset -c`
//! and `--cpus` accept.

use std::fmt;

/// Why a CPU list such as `"0-3,8,10-11"` could not be parsed.
///
/// Returned by [`parse_cpu_list`]; `Display` gives a one-line description
/// that quotes the offending part of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuListError {
    /// The part of the input (one comma-separated item, or the whole input)
    /// that was rejected.
    pub item: String,
    /// What is wrong with it, e.g. "not a number" or "range end before start".
    pub reason: &'static str,
}

impl fmt::Display for CpuListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad CPU list item {:?}: {}", self.item, self.reason)
    }
}

impl std::error::Error for CpuListError {}

/// Largest CPU number [`parse_cpu_list`] accepts. Far above any real machine
/// (Linux tops out at 8192 today), yet small enough that a typo such as
/// `0-4000000000` cannot make us allocate gigabytes.
pub const MAX_CPU_INDEX: usize = 1 << 20;

/// Parse a Linux CPU list as found in sysfs (`/sys/devices/system/cpu/online`,
/// `.../cpulist`, `shared_cpu_list`) and as accepted by `taskset -c`.
///
/// Shape: comma-separated items, each either a CPU number `N` or an inclusive
/// range `A-B`; the kernel's stride form `A-B:S/G` (S CPUs used out of every G)
/// is accepted too. Surrounding whitespace (sysfs files end in `\n`) is
/// ignored, and an empty or all-whitespace input is the empty list, because
/// that is how sysfs spells "no CPUs".
///
/// Returns the CPUs sorted ascending without duplicates.
///
/// # Errors
/// [`CpuListError`] if an item is empty (`"1,,2"`), not a number, a range runs
/// backwards (`"3-1"`), a stride group is zero or smaller than its used count,
/// or a CPU number exceeds [`MAX_CPU_INDEX`].
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, CpuListError> {
    let mut cpus = Vec::new();
    let text = text.trim();
    if !text.is_empty() {
        for item in text.split(',') {
            cpus.extend(parse_item(item.trim())?);
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// The CPUs of one item: `N`, `A-B` or `A-B:USED/GROUP`.
fn parse_item(item: &str) -> Result<impl Iterator<Item = usize>, CpuListError> {
    let bad = |reason| CpuListError { item: item.to_string(), reason };
    if item.is_empty() {
        return Err(bad("empty item"));
    }
    let (range, stride) = match item.split_once(':') {
        Some((range, stride)) => (range, Some(stride)),
        None => (item, None),
    };
    let (start, end) = match range.split_once('-') {
        Some((a, b)) => (parse_number(a).map_err(bad)?, parse_number(b).map_err(bad)?),
        None => {
            let n = parse_number(range).map_err(bad)?;
            (n, n)
        }
    };
    if end < start {
        return Err(bad("range end before start"));
    }
    let (used, group) = match stride {
        None => (1, 1),
        Some(stride) => parse_stride(stride).map_err(bad)?,
    };
    Ok((start..=end).filter(move |cpu| (cpu - start) % group < used))
}

/// One CPU number: decimal digits only (no sign, no `0x`), at most [`MAX_CPU_INDEX`]. The error is the
/// reason, for the caller to attach to its item.
fn parse_number(text: &str) -> Result<usize, &'static str> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("not a number");
    }
    let n: usize = text.parse().map_err(|_| "number too large")?;
    if n > MAX_CPU_INDEX {
        return Err("CPU number too large");
    }
    Ok(n)
}

/// The kernel's stride `USED/GROUP`: the first USED CPUs of every GROUP, with `0 < USED <= GROUP`.
fn parse_stride(text: &str) -> Result<(usize, usize), &'static str> {
    let (used, group) = text.split_once('/').ok_or("stride must be USED/GROUP")?;
    let (used, group) = (parse_number(used)?, parse_number(group)?);
    if group == 0 || used == 0 || used > group {
        return Err("stride needs 0 < USED <= GROUP");
    }
    Ok((used, group))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_list_parses_sysfs_forms() {
        assert_eq!(parse_cpu_list("0"), Ok(vec![0]));
        assert_eq!(parse_cpu_list("0-3\n"), Ok(vec![0, 1, 2, 3]));
        assert_eq!(parse_cpu_list("0-3,8,10-11"), Ok(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(parse_cpu_list(" 5 , 1-2 "), Ok(vec![1, 2, 5]));
        assert_eq!(parse_cpu_list("3,1-3,2"), Ok(vec![1, 2, 3]));
        assert_eq!(parse_cpu_list(""), Ok(vec![]));
        assert_eq!(parse_cpu_list("\n"), Ok(vec![]));
        assert_eq!(parse_cpu_list("0-9:2/5"), Ok(vec![0, 1, 5, 6]));
        assert_eq!(parse_cpu_list("4-4"), Ok(vec![4]));
    }

    #[test]
    fn cpu_list_rejects_bad_input() {
        for bad in [
            "a",
            "1,,2",
            ",",
            "1-",
            "-1",
            "3-1",
            "1.5",
            "0x3",
            "1 2",
            "+1",
            "0-3:0/0",
            "0-3:3/2",
            "0-3:1",
            "99999999999999999999999",
            "0-4000000000",
        ] {
            let err = parse_cpu_list(bad).expect_err(bad);
            assert!(!err.to_string().is_empty());
        }
    }
}
