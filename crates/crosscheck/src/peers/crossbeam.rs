//! crossbeam-channel's benchmark programs (crossbeam-channel/benchmarks in the crossbeam repository, built
//! with `cargo build --release --bin crossbeam-channel` or `--bin mpsc`, given with `--crossbeam PATH`): each
//! prints `"<case> Rust <library> <seconds> sec"` for 5·10⁶ messages, its threads free, the time from their
//! spawn to the last message. Our `msg.throughput` points with `placement:free` answer the same question.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use overhead_record::PeerCase;

use super::super::peer::{Peer, PeerCommand};

/// Messages per case in the programs (their `MESSAGES`).
const MESSAGES: f64 = 5_000_000.0;

/// The program's cases with a point of ours: (case, pattern, capacity).
const CASES: [(&str, &str, &str); 2] =
    [("unbounded_spsc", "spsc", "unbounded"), ("unbounded_mpsc", "mpsc", "unbounded")];

/// One built benchmark program.
pub struct CrossbeamBench {
    pub path: PathBuf,
}

impl CrossbeamBench {
    /// Our `impl:` value for the program: by its file name, as the programs are named after their library.
    fn implementation(&self) -> Option<&'static str> {
        match self.path.file_name()?.to_str()? {
            "crossbeam-channel" => Some("crossbeam"),
            "mpsc" => Some("std_mpsc"),
            "flume" => Some("flume"),
            _ => None,
        }
    }
}

impl Peer for CrossbeamBench {
    fn name(&self) -> String {
        format!("crossbeam-channel benchmarks: {}", self.path.display())
    }

    fn install(&self) -> String {
        "in crossbeam's crossbeam-channel/benchmarks: cargo build --release --bin crossbeam-channel (or mpsc, flume), \
         then --crossbeam target/release/crossbeam-channel"
            .into()
    }

    fn cases(&self) -> Vec<PeerCase> {
        let Some(implementation) = self.implementation() else { return Vec::new() };
        CASES
            .iter()
            .map(|(case, pattern, capacity)| PeerCase {
                case: case.to_string(),
                point: format!(
                    "msg.throughput/runtime:os/impl:{implementation}/pattern:{pattern}/capacity:{capacity}/placement:free"
                ),
                conversion: "s per 5·10⁶ messages → ns per message".into(),
                cross_core: true,
                method_difference: "the programs time one run from the threads' spawn (4 producers for mpsc), ours \
                                    the median batch of a stream already running"
                    .into(), ours_key: None,
            })
            .collect()
    }

    /// The programs run every case, 5·10⁶ messages each, the rendezvous ones slow: 4.5 minutes on two vCPUs.
    fn timeout(&self) -> Duration {
        Duration::from_secs(900)
    }

    fn command(&self, _cpus: &[usize]) -> Result<PeerCommand, String> {
        if self.implementation().is_none() {
            return Err(format!("{}: expected the crossbeam-channel, mpsc or flume program", self.path.display()));
        }
        if !self.path.is_file() {
            return Err(format!("{} does not exist", self.path.display()));
        }
        Ok(PeerCommand { argv: vec![self.path.display().to_string()], ..PeerCommand::default() })
    }

    fn parse(&self, stdout: &str, _stderr: &str) -> Result<BTreeMap<String, f64>, String> {
        let mut values = BTreeMap::new();
        for line in stdout.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let (Some(case), Some(&"sec")) = (words.first(), words.last()) else { continue };
            let Some(seconds) = words.get(words.len().wrapping_sub(2)).and_then(|w| w.parse::<f64>().ok()) else {
                continue;
            };
            if CASES.iter().any(|(c, _, _)| c == case) {
                values.insert(case.to_string(), seconds * 1e9 / MESSAGES);
            }
        }
        if values.is_empty() {
            return Err("expected lines \"unbounded_spsc Rust <library> <seconds> sec\"".into());
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_per_five_million_messages_become_ns_per_message() {
        let bench = CrossbeamBench { path: PathBuf::from("target/release/crossbeam-channel") };
        let out = "bounded1_spsc             Rust crossbeam-channel   0.512 sec\n\
                   unbounded_spsc            Rust crossbeam-channel   0.100 sec\n\
                   unbounded_mpsc            Rust crossbeam-channel   0.250 sec\n";
        let v = bench.parse(out, "").unwrap();
        assert_eq!(v.len(), 2);
        assert!((v["unbounded_spsc"] - 20.0).abs() < 1e-9 && (v["unbounded_mpsc"] - 50.0).abs() < 1e-9);
        assert!(bench.cases()[0].point.contains("impl:crossbeam/pattern:spsc/capacity:unbounded/placement:free"));
        let std = CrossbeamBench { path: PathBuf::from("x/mpsc") };
        assert!(std.cases()[1].point.contains("impl:std_mpsc/pattern:mpsc"));
        assert!(CrossbeamBench { path: PathBuf::from("x/other") }.command(&[]).is_err());
    }
}
