//! The history of this machine's runs (docs/METHOD.md §13): every `overhead run` adds its summary (each
//! point's median, CI and process count; the speed; the machine's state; the configuration), and
//! `compare` and `overhead history` learn the run level from it (`overhead_analysis::run_level::of_history`).
//! A user runs the tool on one machine many times; those runs are the repetitions of the run level that no
//! single run can make.
//!
//! Kept in SQLite (`$XDG_DATA_HOME/overhead/history.sqlite`, else the platform's data folder): a run is
//! added in one transaction, so two runs at once neither corrupt nor lose each other's entries; a damaged
//! entry is reported and skipped; a file that is not a database is moved aside and a new one begun. The
//! history keeps the newest [`MAX_RUNS`] runs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use rusqlite::{params, Connection};

use overhead_record::{RunConfig, RunSummary};

/// Runs kept; adding one more removes the oldest (about 30 KB a default run: under 15 MB in all).
pub const MAX_RUNS: i64 = 500;

/// How long a writer waits for another one to finish its transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The history file: `$XDG_DATA_HOME/overhead/history.sqlite`, else the platform's data folder's.
pub fn default_path() -> Option<PathBuf> {
    let base =
        std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(dirs::data_dir)?;
    Some(base.join("overhead").join("history.sqlite"))
}

/// One run as the history lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The history's id of the run (increasing with time).
    pub id: i64,
    /// Where its record was written.
    pub record_path: String,
    pub summary: RunSummary,
}

/// What reading the history found: the runs, and the entries it had to skip, with why.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub entries: Vec<Entry>,
    pub damaged: Vec<String>,
}

/// An open history.
pub struct History {
    connection: Connection,
    /// Runs kept ([`MAX_RUNS`] unless a test says otherwise).
    pub max_runs: i64,
    /// Said when the file had to be moved aside on opening.
    pub notice: Option<String>,
}

impl History {
    /// Opens (creating) the history at `path`. A file that is not a SQLite database, or a damaged one, is
    /// renamed to `history.sqlite.damaged-<time>` and a new history begun, with a notice saying so.
    ///
    /// Errors: the folder cannot be created, or the database cannot be opened or created at all.
    pub fn open(path: &Path) -> anyhow::Result<History> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating the history's folder {}", dir.display()))?;
        }
        match Self::open_checked(path) {
            Ok(connection) => Ok(History { connection, max_runs: MAX_RUNS, notice: None }),
            Err(e) if path.exists() => {
                let aside =
                    path.with_extension(format!("sqlite.damaged-{}", chrono::Utc::now().format("%Y%m%dT%H%M%S")));
                std::fs::rename(path, &aside)
                    .with_context(|| format!("moving the damaged history {} aside", path.display()))?;
                let connection = Self::open_checked(path)?;
                let notice = format!(
                    "the history {} could not be read ({e:#}); it was moved to {} and a new history begun",
                    path.display(),
                    aside.display()
                );
                Ok(History { connection, max_runs: MAX_RUNS, notice: Some(notice) })
            }
            Err(e) => Err(e),
        }
    }

    fn open_checked(path: &Path) -> anyhow::Result<Connection> {
        let connection = Connection::open(path).with_context(|| format!("opening the history {}", path.display()))?;
        connection.busy_timeout(BUSY_TIMEOUT)?;
        let check: String = connection.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
        anyhow::ensure!(check == "ok", "integrity check: {check}");
        connection.execute_batch(
            "CREATE TABLE IF NOT EXISTS runs (
                 id INTEGER PRIMARY KEY AUTOINCREMENT,
                 added_utc TEXT NOT NULL,
                 record_path TEXT NOT NULL,
                 machine TEXT NOT NULL,
                 summary TEXT NOT NULL
             );
             CREATE INDEX IF NOT EXISTS runs_machine ON runs (machine);",
        )?;
        Ok(connection)
    }

    /// Adds a run and removes the oldest beyond `max_runs`, in one transaction. Returns the run's id.
    ///
    /// Errors: the database refused the write (full disk, read-only folder, another writer held it past
    /// the busy timeout).
    pub fn add(&mut self, summary: &RunSummary, record_path: &str) -> anyhow::Result<i64> {
        let machine = summary.config.as_ref().map(|c| c.machine.clone()).unwrap_or_default();
        let json = serde_json::to_string(summary)?;
        let tx = self.connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO runs (added_utc, record_path, machine, summary) VALUES (?1, ?2, ?3, ?4)",
            params![chrono::Utc::now().to_rfc3339(), record_path, machine, json],
        )?;
        let id = tx.last_insert_rowid();
        tx.execute("DELETE FROM runs WHERE id <= (SELECT MAX(id) FROM runs) - ?1", params![self.max_runs])?;
        tx.commit()?;
        Ok(id)
    }

    /// The runs of `machine` (all machines when `None`), oldest first; entries that do not parse are
    /// listed in `damaged` and skipped.
    ///
    /// Errors: the database could not be read.
    pub fn load(&self, machine: Option<&str>) -> anyhow::Result<Loaded> {
        let mut statement = self
            .connection
            .prepare("SELECT id, record_path, summary FROM runs WHERE ?1 IS NULL OR machine = ?1 ORDER BY id")?;
        let rows = statement.query_map(params![machine], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, rusqlite::types::Value>(2)?))
        })?;
        let mut loaded = Loaded::default();
        for row in rows {
            let (id, record_path, summary) = row?;
            let parsed = match summary {
                rusqlite::types::Value::Text(text) => {
                    serde_json::from_str::<RunSummary>(&text).map_err(|e| e.to_string())
                }
                other => Err(format!("a {:?} where a summary belongs", other.data_type())),
            };
            match parsed {
                Ok(mut summary) => {
                    summary.upgrade_names();
                    loaded.entries.push(Entry { id, record_path, summary })
                }
                Err(e) => loaded.damaged.push(format!("run {id} ({record_path}): {e}")),
            }
        }
        Ok(loaded)
    }

    /// Removes the runs of `machine` (every run when `None`). Returns how many.
    pub fn clear(&mut self, machine: Option<&str>) -> anyhow::Result<usize> {
        Ok(self.connection.execute("DELETE FROM runs WHERE ?1 IS NULL OR machine = ?1", params![machine])?)
    }
}

/// The entries grouped by configuration (machine, kernel, build, options), in the order first seen: the
/// groups whose runs are repetitions of each other.
pub fn by_config(entries: &[Entry]) -> Vec<(RunConfig, Vec<&RunSummary>)> {
    let mut groups: Vec<(RunConfig, Vec<&RunSummary>)> = Vec::new();
    for e in entries {
        let Some(config) = &e.summary.config else { continue };
        match groups.iter_mut().find(|(c, _)| c == config) {
            Some((_, runs)) => runs.push(&e.summary),
            None => groups.push((config.clone(), vec![&e.summary])),
        }
    }
    groups
}

#[cfg(test)]
mod tests;
