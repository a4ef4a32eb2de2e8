//! What the kernel says about itself: its release and version (`uname`), its clocksource (sysfs), and the
//! load averages (`/proc/loadavg`).

use crate::read_trimmed;

/// The kernel's clocksource directory.
const CLOCKSOURCE: &str = "/sys/devices/system/clocksource/clocksource0";

/// `uname -r` and `uname -v`, space-separated; empty if `uname` fails.
pub(super) fn release_and_version() -> String {
    // SAFETY: utsname is a struct of C char arrays, for which all-zero bytes
    // are a valid value.
    let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `uts` is a live, writable utsname; uname writes only into it.
    if unsafe { libc::uname(&mut uts) } != 0 {
        return String::new();
    }
    let release = c_chars_to_string(&uts.release);
    let version = c_chars_to_string(&uts.version);
    format!("{release} {version}").trim().to_string()
}

/// A NUL-terminated C string held in a fixed array, lossily as UTF-8.
fn c_chars_to_string(chars: &[libc::c_char]) -> String {
    // The fields are NUL-terminated, but reading up to the array's end
    // instead of trusting that keeps this free of another unsafe block.
    // to_ne_bytes turns c_char into u8 whether it is i8 (x86_64) or
    // u8 (aarch64) without a cast clippy would flag on one of them.
    let bytes: Vec<u8> = chars.iter().map(|c| c.to_ne_bytes()[0]).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The current clocksource (`"tsc"`, `"kvm-clock"`, `"hpet"`, `"arch_sys_counter"`...); `None` if sysfs
/// does not say.
pub(super) fn clocksource() -> Option<String> {
    read_trimmed(format!("{CLOCKSOURCE}/current_clocksource")).filter(|s| !s.is_empty())
}

/// The clocksources the kernel could switch to, in sysfs order; empty if unreadable.
pub(super) fn available_clocksources() -> Vec<String> {
    read_trimmed(format!("{CLOCKSOURCE}/available_clocksource"))
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// 1-, 5- and 15-minute load averages; zeros if `/proc/loadavg` is unreadable.
pub(super) fn load_avg() -> [f64; 3] {
    read_trimmed("/proc/loadavg").and_then(|s| parse_loadavg(&s)).unwrap_or([0.0; 3])
}

/// The first three fields of `/proc/loadavg`, e.g. `"0.52 0.58 0.59 1/189 12345"`; `None` unless all
/// three are finite numbers.
fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut fields = text.split_whitespace().map(|f| f.parse::<f64>().ok());
    let mut out = [0.0; 3];
    for slot in &mut out {
        *slot = fields.next()??;
        if !slot.is_finite() {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loadavg_parses() {
        assert_eq!(parse_loadavg("0.52 0.58 0.59 1/189 12345\n"), Some([0.52, 0.58, 0.59]));
        assert_eq!(parse_loadavg("0.5 x 1"), None);
        assert_eq!(parse_loadavg("0.5"), None);
        assert_eq!(parse_loadavg("inf 0 0"), None);
    }

    #[test]
    fn kernel_string_is_present() {
        assert!(!release_and_version().is_empty());
    }

    #[test]
    fn c_strings_stop_at_nul() {
        let chars: Vec<libc::c_char> = b"6.1\0junk".iter().map(|&b| libc::c_char::from_ne_bytes([b])).collect();
        assert_eq!(c_chars_to_string(&chars), "6.1");
    }
}
