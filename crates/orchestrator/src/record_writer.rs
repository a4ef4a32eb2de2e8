//! The run record on disk while the run goes on: analysed and rewritten atomically at most once a second
//! ([`WRITE_EVERY`]), and never for more than a twentieth of the run's time ([`WRITE_SHARE`]), and at the end, so a reader (or a killed run) always finds a whole, analysed record of
//! every finished process, and the analysis of the whole record runs once per write, not once per probe.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use overhead_record::{write_atomic, RecordError, RunRecord};

/// The record is rewritten after a probe once this long has passed since the last write (and always at
/// the end, Ctrl-C included): a killed run loses at most this much, and a default run does not spend a
/// quarter of its time rewriting a record of megabytes after each of its ~1500 probes.
pub const WRITE_EVERY: Duration = Duration::from_millis(1000);

/// A write waits at least this many times as long as the last one took: analysing and writing a record of
/// 10 MB takes 0.3–0.5 s late in a default run on a 16-CPU machine, so writing it every second spent a third
/// of the run's last minute on it (measured: the gaps between probes grew from 1 ms to 400 ms every second).
/// The record stays whole; a killed run loses at most twenty writes' time.
pub const WRITE_SHARE: u32 = 20;

/// Writes one run's `results.json`.
pub struct RecordWriter {
    path: PathBuf,
    last_write: Instant,
    /// How long the last write took (analysis included).
    last_took: Duration,
}

impl RecordWriter {
    /// A writer of `path`; nothing is written yet.
    pub fn new(path: PathBuf) -> RecordWriter {
        RecordWriter { path, last_write: Instant::now(), last_took: Duration::ZERO }
    }

    /// Where the record goes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Analyses `record` (`analysis::analyze`: fits, flags over the record, speed) and writes it now.
    ///
    /// Errors: the record could not be written (the directory is not writable, the disk is full).
    pub fn write_now(&mut self, record: &mut RunRecord) -> Result<(), RecordError> {
        let started = Instant::now();
        overhead_analysis::analyze(record, &overhead_experiments::CATALOG);
        write_atomic(&self.path, record)?;
        self.last_write = Instant::now();
        self.last_took = self.last_write - started;
        Ok(())
    }

    /// [`RecordWriter::write_now`] when [`WRITE_EVERY`], and [`WRITE_SHARE`] times what the last write took,
    /// have passed since the last write; else nothing.
    ///
    /// Errors: as [`RecordWriter::write_now`].
    pub fn write_if_due(&mut self, record: &mut RunRecord) -> Result<(), RecordError> {
        if self.last_write.elapsed() >= WRITE_EVERY.max(self.last_took * WRITE_SHARE) {
            self.write_now(record)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    #[test]
    fn a_write_is_analysed_and_a_second_within_the_interval_waits() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = RecordWriter::new(dir.path().join("results.json"));
        let mut record = sample_record();
        record.points[0].slow = true;
        writer.write_now(&mut record).unwrap();
        let written = overhead_record::load(writer.path()).unwrap();
        assert!(!written.points[0].slow, "the analysis judged the flag again before writing");
        record.warnings.push("later".into());
        // Just written, whatever the write and load above took on this host.
        writer.last_write = std::time::Instant::now();
        writer.write_if_due(&mut record).unwrap();
        assert!(!overhead_record::load(writer.path()).unwrap().warnings.contains(&"later".to_string()));
        // A write that took 100 ms holds the next one for 2 s, not 1.
        (writer.last_took, writer.last_write) = (Duration::from_millis(100), Instant::now() - WRITE_EVERY);
        writer.write_if_due(&mut record).unwrap();
        assert!(!overhead_record::load(writer.path()).unwrap().warnings.contains(&"later".to_string()));
        (writer.last_took, writer.last_write) = (Duration::ZERO, Instant::now() - WRITE_EVERY);
        writer.write_if_due(&mut record).unwrap();
        assert!(overhead_record::load(writer.path()).unwrap().warnings.contains(&"later".to_string()));
    }
}
