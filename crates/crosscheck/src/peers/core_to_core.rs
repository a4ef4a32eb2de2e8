//! core-to-core-latency (github.com/nviennot/core-to-core-latency): its CAS benchmark bounces one cache line
//! between two pinned threads with compare-and-swap, and prints per pair of cores half the round trip (ns),
//! the mean over samples; with `--csv` the matrix goes to stdout, the lower triangle filled.

use std::collections::BTreeMap;

use overhead_record::PeerCase;

use super::super::peer::{find_program, Peer, PeerCommand};

const CASE: &str = "CAS";

pub struct CoreToCore;

impl Peer for CoreToCore {
    fn name(&self) -> String {
        "core-to-core-latency".into()
    }

    fn install(&self) -> String {
        "cargo install core-to-core-latency".into()
    }

    fn cases(&self) -> Vec<PeerCase> {
        vec![PeerCase {
            case: CASE.into(),
            point: "mem.c2c/runtime:os/op:cas".into(),
            conversion: "one way (half the round trip) × 2 = round trip".into(),
            cross_core: true,
            method_difference: "its mean over samples against our median; its two threads are new for each sample"
                .into(),
            ours_key: None,
        }]
    }

    fn command(&self, cpus: &[usize]) -> Result<PeerCommand, String> {
        let program = find_program("core-to-core-latency").ok_or("core-to-core-latency not found on the PATH")?;
        let (Some(a), Some(b)) = (cpus.first(), cpus.get(1)) else {
            return Err("our point names fewer than two CPUs".into());
        };
        let argv = vec![
            program.display().to_string(),
            "1000".into(),
            "300".into(),
            "-b".into(),
            "1".into(),
            "-c".into(),
            format!("{a},{b}"),
            "--csv".into(),
        ];
        Ok(PeerCommand { argv, ..PeerCommand::default() })
    }

    fn parse(&self, stdout: &str, _stderr: &str) -> Result<BTreeMap<String, f64>, String> {
        // Two cores: one number in the whole matrix, row 1's first field.
        let numbers: Vec<f64> =
            stdout.lines().flat_map(|l| l.split(',')).filter_map(|f| f.trim().parse::<f64>().ok()).collect();
        match numbers.as_slice() {
            [one_way] => Ok([(CASE.to_string(), 2.0 * one_way)].into()),
            _ => Err(format!("expected one number in the CSV matrix of two cores, found {}", numbers.len())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_the_round_trip_becomes_the_round_trip() {
        assert_eq!(CoreToCore.parse(",\n26.5,\n", "").unwrap()[CASE], 53.0);
        assert!(CoreToCore.parse("", "").is_err());
    }
}
