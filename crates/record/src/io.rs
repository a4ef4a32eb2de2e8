//! Writing records atomically and reading them back with clear refusals.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::gbench::File;
use super::{RunRecord, SCHEMA_VERSION};

/// Why a file could not be read as a run record.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path} is not JSON ({source}); expected a results.json written by `overhead run`")]
    NotJson { path: PathBuf, source: serde_json::Error },
    #[error("{path} is a plain Google Benchmark file without the \"overhead\" key; `overhead report` needs a record written by `overhead run`")]
    PlainGoogleBenchmark { path: PathBuf },
    #[error(
        "{path} is JSON but not an overhead run record (expected keys \"context\", \"benchmarks\" and \"overhead\")"
    )]
    Foreign { path: PathBuf },
    #[error("{path} has record schema version {found}; this overhead reads version {expected}")]
    Version { path: PathBuf, found: u64, expected: u32 },
    #[error("{path} is an overhead record but its \"overhead\" section is malformed: {source}")]
    Malformed { path: PathBuf, source: serde_json::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}

/// Writes `record` to `path` as Google Benchmark JSON plus the `"overhead"` key: into a temporary file
/// in the same directory, flushed to disk, then renamed over `path`, so a reader (or a crash) sees either
/// the old file or the new one, never a torn one.
///
/// Errors: [`RecordError::Write`] when the directory is not writable or the disk is full.
pub fn write_atomic(path: &Path, record: &RunRecord) -> Result<(), RecordError> {
    let write_err = |source| RecordError::Write { path: path.to_owned(), source };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = temp_file_in(dir).map_err(write_err)?;
    // Serialised whole and written in one go: the record is rewritten after every probe, and a writer
    // straight to the file would make a system call per token (minutes of system time in a default run).
    let mut json = serde_json::to_vec(&File::from_record(record)).map_err(|e| write_err(e.into()))?;
    json.push(b'\n');
    tmp.write_all(&json).map_err(write_err)?;
    tmp.as_file().sync_all().map_err(write_err)?;
    tmp.persist(path).map_err(|e| write_err(e.error))?;
    Ok(())
}

/// A temporary file in `dir` to be renamed into place, created with the permissions any new file gets
/// (0666 less the umask: `rw-r--r--` usually). `NamedTempFile::new_in` makes it 0600, and a rename keeps
/// that: a record or report shared with a colleague, or served from a web directory, would not be
/// readable by them.
///
/// Errors: the directory does not exist or is not writable.
pub fn temp_file_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Reads a run record written by [`write_atomic`].
///
/// Errors: unreadable file, not JSON, a plain Google Benchmark file, some other JSON, a newer schema
/// version, or a malformed `"overhead"` section — each with a message naming the file.
pub fn load(path: &Path) -> Result<RunRecord, RecordError> {
    let p = || path.to_owned();
    let text = std::fs::read_to_string(path).map_err(|source| RecordError::Read { path: p(), source })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|source| RecordError::NotJson { path: p(), source })?;
    let Some(overhead) = value.get("overhead") else {
        return Err(if value.get("benchmarks").is_some() && value.get("context").is_some() {
            RecordError::PlainGoogleBenchmark { path: p() }
        } else {
            RecordError::Foreign { path: p() }
        });
    };
    let version = overhead.get("schema_version").and_then(|v| v.as_u64());
    match version {
        // Version 1 records (one process per point) read as version 2 records without processes.
        Some(v) if (1..=SCHEMA_VERSION as u64).contains(&v) => {}
        Some(found) => return Err(RecordError::Version { path: p(), found, expected: SCHEMA_VERSION }),
        None => return Err(RecordError::Foreign { path: p() }),
    }
    let mut record: RunRecord =
        serde_json::from_value(overhead.clone()).map_err(|source| RecordError::Malformed { path: p(), source })?;
    upgrade(&mut record.points, &mut record.skipped);
    for side in record.sides.iter_mut().flat_map(|s| s.sides.iter_mut()) {
        upgrade(&mut side.points, &mut side.skipped);
    }
    Ok(record)
}

/// `points` and `skipped` under today's specs and names ([`super::legacy`]): the record's own, and each
/// side's, so that a side's cells pair with the baseline's points of the same name.
fn upgrade(points: &mut [super::PointRecord], skipped: &mut [super::SkippedPoint]) {
    for spec in points.iter_mut().map(|p| &mut p.spec).chain(skipped.iter_mut().map(|s| &mut s.spec)) {
        super::legacy::upgrade_spec(spec);
    }
    for name in points.iter_mut().map(|p| &mut p.name).chain(skipped.iter_mut().map(|s| &mut s.name)) {
        *name = super::legacy::upgrade_name(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample_record;

    /// A side's points (named `…/side:NAME`) and skipped cells read under today's names as the baseline's do,
    /// so that a tokio point named before the flavors pairs across the sides.
    #[test]
    fn a_sides_older_names_read_as_todays() {
        let mut side_point =
            crate::fixture::point("spawn.bulk", "tokio", &[("tasks", "1000"), ("threads", "1")], 300.0);
        side_point.name = format!("{}/side:old", side_point.spec.name());
        let skipped_spec = crate::fixture::spec("msg.async", "tokio", &[], &[0]);
        let mut skipped = vec![crate::SkippedPoint::new(skipped_spec, crate::SkipKind::Skipped, "not in its plan")];
        let mut points = vec![side_point];
        upgrade(&mut points, &mut skipped);
        assert_eq!(points[0].name, "spawn.bulk/runtime:tokio/flavor:multi_thread/tasks:1000/threads:1/side:old");
        assert_eq!(points[0].spec.param("flavor"), Some("multi_thread"));
        assert_eq!(skipped[0].name, "msg.async/runtime:tokio/flavor:current_thread/impl:tokio_mpsc");
    }

    #[test]
    fn record_round_trips_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        let record = sample_record();
        write_atomic(&path, &record).unwrap();
        assert_eq!(load(&path).unwrap(), record);
        // Overwriting leaves exactly one file: the temporary file was renamed, not left behind.
        write_atomic(&path, &record).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// A record gets the mode any new file gets (that of `File::create` beside it), not tempfile's 0600.
    #[cfg(unix)]
    #[test]
    fn a_record_is_created_with_the_usual_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let plain = dir.path().join("plain");
        std::fs::File::create(&plain).unwrap();
        let path = dir.path().join("results.json");
        write_atomic(&path, &sample_record()).unwrap();
        assert_eq!(mode(&path), mode(&plain), "record mode {:o}", mode(&path));
    }

    #[test]
    fn google_benchmark_part_has_repetitions_and_aggregates() {
        let file = File::from_record(&sample_record());
        let json = serde_json::to_value(&file).unwrap();
        assert_eq!(json["context"]["json_schema_version"], 1);
        assert!(json["context"]["caches"].is_array());
        let entries = json["benchmarks"].as_array().unwrap();
        assert_eq!(entries.len(), 6 + 4);
        assert!(entries[..6]
            .iter()
            .enumerate()
            .all(|(i, e)| e["run_type"] == "iteration" && e["repetition_index"] == i));
        let aggregates: Vec<&str> = entries[6..].iter().map(|e| e["aggregate_name"].as_str().unwrap()).collect();
        assert_eq!(aggregates, ["mean", "median", "stddev", "cv"]);
        assert_eq!(entries[7]["real_time"], 10.0);
        assert_eq!(entries[9]["aggregate_unit"], "percentage");
        assert!(entries.iter().all(|e| e["time_unit"] == "ns"));
    }

    fn refusal(content: &str) -> RecordError {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        std::fs::write(&path, content).unwrap();
        load(&path).unwrap_err()
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        assert!(matches!(refusal("{not json"), RecordError::NotJson { .. }));
        assert!(matches!(refusal(r#"{"context":{},"benchmarks":[]}"#), RecordError::PlainGoogleBenchmark { .. }));
        assert!(matches!(refusal(r#"{"name":"something else"}"#), RecordError::Foreign { .. }));
        assert!(matches!(refusal(r#"{"overhead":{"schema_version":99}}"#), RecordError::Version { found: 99, .. }));
        assert!(matches!(refusal(r#"{"overhead":{"schema_version":1,"points":3}}"#), RecordError::Malformed { .. }));
        let missing = load(Path::new("/nonexistent/results.json")).unwrap_err();
        assert!(missing.to_string().contains("/nonexistent/results.json"));
    }
}
