//! cyclictest (rt-tests): a thread sleeps until an absolute time on `CLOCK_MONOTONIC`
//! (`clock_nanosleep(TIMER_ABSTIME)`) every interval and records how late it woke; with `-N` it prints in ns
//! `T: 0 ( tid) P: 0 I:1000 C: n Min: … Act: … Avg: … Max: …`. Avg is the mean lateness, as our
//! `timer.wakeup` point with the same mechanism and interval measures it (at the scheduler's normal policy:
//! no `-p`, so no real-time priority on either side).

use std::collections::BTreeMap;

use overhead_record::PeerCase;

use super::super::peer::{find_program, Peer, PeerCommand};

const CASE: &str = "Avg";

pub struct Cyclictest;

impl Peer for Cyclictest {
    fn name(&self) -> String {
        "cyclictest".into()
    }

    fn install(&self) -> String {
        "apt-get install rt-tests (runs as root)".into()
    }

    fn cases(&self) -> Vec<PeerCase> {
        vec![PeerCase {
            case: CASE.into(),
            point: "timer.wakeup/runtime:os/mechanism:clock_nanosleep_absolute/interval_us:1000".into(),
            conversion: "ns (-N), the mean lateness".into(),
            cross_core: false,
            method_difference: "cyclictest's Avg is the mean of 3,000 wake-ups of one thread with its memory \
                                locked (-m), ours the median of each process's, each process a fresh one"
                .into(),
            ours_key: None,
        }]
    }

    fn command(&self, cpus: &[usize]) -> Result<PeerCommand, String> {
        let program = find_program("cyclictest").ok_or("cyclictest not found on the PATH")?;
        let cpu = cpus.first().copied().unwrap_or(0).to_string();
        let argv = ["-q", "-m", "-N", "-D", "3", "-i", "1000", "-t", "1", "-a", cpu.as_str()];
        let mut command = vec![program.display().to_string()];
        command.extend(argv.iter().map(|a| a.to_string()));
        Ok(PeerCommand { argv: command, ..PeerCommand::default() })
    }

    fn parse(&self, stdout: &str, _stderr: &str) -> Result<BTreeMap<String, f64>, String> {
        let line =
            stdout.lines().find(|l| l.trim_start().starts_with("T:")).ok_or("expected a line \"T: 0 (…) … Avg: …\"")?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let avg = words
            .iter()
            .position(|w| *w == "Avg:")
            .and_then(|i| words.get(i + 1))
            .and_then(|w| w.parse::<f64>().ok())
            .ok_or("expected \"Avg: <ns>\" on cyclictest's line")?;
        Ok([(CASE.to_string(), avg)].into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_lateness_is_read() {
        let out = "# /dev/cpu_dma_latency set to 0us\nT: 0 (12345) P: 0 I:1000 C:   3000 Min:   51234 Act:   60321 Avg:   62876 Max:  402311\n";
        assert_eq!(Cyclictest.parse(out, "").unwrap()[CASE], 62876.0);
        assert!(Cyclictest.parse("T: 0 (1) P: 0 I:1000 C: 3", "").is_err());
    }
}
