//! What the end-to-end test binaries that run `overhead` with a history of their own share (`tests/history.rs`,
//! `tests/sides.rs`).

use std::path::Path;

/// The binary, with its history in `data` (never the user's).
pub fn overhead(data: &Path) -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("overhead").unwrap();
    command.env("XDG_DATA_HOME", data);
    command
}

/// The JSON file at `path`.
pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A process's output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
