//! The run record on disk while the run goes on: analysed and rewritten atomically at most once a second
//! ([`WRITE_EVERY`]) and at the end, so a reader (or a killed run) always finds a whole, analysed record of
//! every finished process, and the analysis of the whole record runs once per write, not once per probe.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use overhead_record::{write_atomic, RecordError, RunRecord};

/// The record is rewritten after a probe once this long has passed since the last write (and always at
/// the end, Ctrl-C included): a killed run loses at most this much, and a default run does not spend a
/// quarter of its time rewriting a record of megabytes after each of its ~1500 probes.
pub const WRITE_EVERY: Duration = Duration::from_millis(1000);

/// Writes one run's `results.json`.
pub struct RecordWriter {
    path: PathBuf,
    last_write: Instant,
}

impl RecordWriter {
    /// A writer of `path`; nothing is written yet.
    pub fn new(path: PathBuf) -> RecordWriter {
        RecordWriter { path, last_write: Instant::now() }
    }

    /// Where the record goes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Analyses `record` (`analysis::analyze`: fits, flags over the record, speed) and writes it now.
    ///
    /// Errors: the record could not be written (the directory is not writable, the disk is full).
    pub fn write_now(&mut self, record: &mut RunRecord) -> Result<(), RecordError> {
        overhead_analysis::analyze(record, &overhead_experiments::CATALOG);
        write_atomic(&self.path, record)?;
        self.last_write = Instant::now();
        Ok(())
    }

    /// [`RecordWriter::write_now`] when [`WRITE_EVERY`] has passed since the last write; else nothing.
    ///
    /// Errors: as [`RecordWriter::write_now`].
    pub fn write_if_due(&mut self, record: &mut RunRecord) -> Result<(), RecordError> {
        if self.last_write.elapsed() >= WRITE_EVERY {
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
        writer.last_write -= WRITE_EVERY;
        writer.write_if_due(&mut record).unwrap();
        assert!(overhead_record::load(writer.path()).unwrap().warnings.contains(&"later".to_string()));
    }
}
