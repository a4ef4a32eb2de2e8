//! The sides of a run (`--side NAME=…`; docs/METHOD.md §17): what the command line says each side is, read
//! and checked before anything is measured, so a run never finds out mid-way that a side cannot be driven.
//!
//! A side is written as `env` writes a command: `NAME=[KEY=VALUE …] [PATH]` — assignments for its probe
//! processes' environment, then the `overhead` binary its probes run (this one when left out). So
//! `--side old=./overhead-0.5` is another build, `--side gm1='GOMAXPROCS=1'` this build with a setting, and
//! `--side x='MALLOC_ARENA_MAX=2 ./overhead-x'` both.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

use overhead_protocol::{ProbeMessage, VERSION};
use overhead_record::{SideSpec, ToolInfo};

/// One side as the run drives it: what it is, the binary its probes run and that binary's build.
#[derive(Debug, Clone, PartialEq)]
pub struct SideRun {
    pub spec: SideSpec,
    /// The binary started as `overhead probe` for this side (this one when the side names none).
    pub exe: PathBuf,
    /// Its build, as it answered `overhead about`.
    pub tool: ToolInfo,
    /// The external toolchains in its environment ([`toolchains_of`]).
    pub toolchains: Vec<String>,
}

/// How long a side's binary may take to answer `overhead about`.
const ABOUT_TIMEOUT: Duration = Duration::from_secs(20);

/// Reads one `--side` value, `NAME=[KEY=VALUE …] [PATH]`.
///
/// Errors: no `=`, an empty or unusual name (letters, digits, `-`, `_`, `.` only: it becomes part of point
/// names), an assignment whose key is not an environment variable's name, or two paths; each message quotes
/// the value.
pub fn parse_side(value: &str) -> Result<SideSpec, String> {
    let refuse = |why: &str| format!("--side {value:?}: {why}; expected NAME=[KEY=VALUE ...] [PATH]");
    let (name, rest) = value.split_once('=').ok_or_else(|| refuse("no `=` after the side's name"))?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
        return Err(refuse("a side's name is letters, digits, `-`, `_` and `.`"));
    }
    let mut side = SideSpec { name: name.into(), binary: None, env: Vec::new() };
    for word in rest.split_whitespace() {
        match word.split_once('=') {
            Some((key, v)) if is_env_name(key) => side.env.push((key.into(), v.into())),
            Some(_) => return Err(refuse(&format!("{word:?} is no KEY=VALUE assignment (KEY: letters, digits, `_`)"))),
            None if side.binary.is_none() => side.binary = Some(PathBuf::from(word)),
            None => return Err(refuse("two binaries; a side runs one")),
        }
    }
    Ok(side)
}

/// Whether `key` can name an environment variable a shell would set: a letter or `_`, then letters, digits, `_`.
fn is_env_name(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The sides of `--side` values checked for a run driven by `this` binary (whose build is `this_tool`):
/// at least two, names unique, and every named binary present, executable and speaking this build's probe
/// protocol (asked with `overhead about`). None given: no sides.
///
/// Errors: the first side that cannot be driven, named, with why.
pub fn check_sides(specs: Vec<SideSpec>, this: &Path, this_tool: &ToolInfo) -> Result<Vec<SideRun>, String> {
    match specs.len() {
        0 => return Ok(Vec::new()),
        1 => return Err(format!("--side {}: one side; a run with sides compares two or more", specs[0].name)),
        _ => {}
    }
    for (i, side) in specs.iter().enumerate() {
        if specs[..i].iter().any(|s| s.name == side.name) {
            return Err(format!("--side {}: the name is given twice; each side needs its own", side.name));
        }
    }
    specs
        .into_iter()
        .map(|spec| match &spec.binary {
            None => {
                let toolchains = toolchains_of(&spec.env);
                Ok(SideRun { exe: this.to_path_buf(), tool: this_tool.clone(), spec, toolchains })
            }
            Some(path) => {
                let tool = ask_about(path).map_err(|why| format!("--side {}: {}: {why}", spec.name, path.display()))?;
                let exe = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                let toolchains = toolchains_of(&spec.env);
                Ok(SideRun { exe, tool, spec, toolchains })
            }
        })
        .collect()
}

/// The external toolchains a side's probes find in its environment (`env` over this process's): the JVM of
/// `OVERHEAD_JAVA_HOME`, else `JAVA_HOME`, else `java` (its `-version` banner's first line), Go (`OVERHEAD_GO`,
/// else `go`: `go env GOVERSION`), the MPI launcher (`OVERHEAD_MPIRUN`, else `mpirun`: `--version`'s first line)
/// and the C compiler (`CC`, else `cc`: `--version`'s first line), each `tool: version`; a tool that is not
/// there is left out.
pub fn toolchains_of(env: &[(String, String)]) -> Vec<String> {
    let var = |key: &str| {
        env.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone()).or_else(|| std::env::var(key).ok())
    };
    let first_line = |program: PathBuf, args: &[&str], stderr: bool| -> Option<String> {
        let out = Command::new(program)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(if stderr { &out.stderr } else { &out.stdout }).into_owned();
        let line = text.lines().map(str::trim).find(|l| !l.is_empty())?.to_string();
        out.status.success().then_some(line)
    };
    let java = var("OVERHEAD_JAVA_HOME")
        .or_else(|| var("JAVA_HOME"))
        .map_or_else(|| PathBuf::from("java"), |home| Path::new(&home).join("bin").join("java"));
    let go = var("OVERHEAD_GO").map_or_else(|| PathBuf::from("go"), PathBuf::from);
    let mpirun = var("OVERHEAD_MPIRUN").map_or_else(|| PathBuf::from("mpirun"), PathBuf::from);
    let cc = var("CC").map_or_else(|| PathBuf::from("cc"), PathBuf::from);
    [
        ("java", first_line(java, &["-version"], true)),
        ("go", first_line(go, &["env", "GOVERSION"], false)),
        ("mpirun", first_line(mpirun, &["--version"], false)),
        ("cc", first_line(cc, &["--version"], false)),
    ]
    .into_iter()
    .filter_map(|(tool, version)| Some(format!("{tool}: {}", version?)))
    .collect()
}

/// The build of the binary at `path`, from its answer to `overhead about`.
///
/// Errors: it is missing, not a file, not executable, does not answer (an older build, or not this tool), or
/// speaks another probe protocol version.
fn ask_about(path: &Path) -> Result<ToolInfo, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot be read ({e})"))?;
    if !meta.is_file() {
        return Err("is not a file".into());
    }
    if std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 == 0 {
        return Err("is not executable".into());
    }
    let mut child = Command::new(path)
        .arg("about")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("could not be started ({e})"))?;
    let status = match child.wait_timeout(ABOUT_TIMEOUT) {
        Ok(Some(status)) => status,
        _ => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("did not answer `about` within {} s", ABOUT_TIMEOUT.as_secs()));
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = std::io::Read::read_to_string(&mut stdout, &mut out);
    }
    let answer = out.lines().find_map(|l| serde_json::from_str::<ProbeMessage>(l).ok());
    match answer {
        Some(ProbeMessage::About { v, tool }) if v == VERSION => Ok(tool),
        Some(ProbeMessage::About { v, .. }) => {
            Err(format!("speaks probe protocol version {v}; this build speaks {VERSION}, so it cannot drive it"))
        }
        _ => Err(format!("did not answer `overhead about` ({status}): not this tool, or a build older than sides")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool() -> ToolInfo {
        ToolInfo { name: "overhead".into(), version: "0".into(), git_commit: None, crates: Vec::new() }
    }

    #[test]
    fn a_side_is_assignments_then_a_binary_as_env_writes_a_command() {
        let side = parse_side("x=MALLOC_ARENA_MAX=2 GOMAXPROCS=1 ./build/overhead").unwrap();
        assert_eq!(side.name, "x");
        assert_eq!(side.env, [("MALLOC_ARENA_MAX".into(), "2".into()), ("GOMAXPROCS".into(), "1".into())]);
        assert_eq!(side.binary, Some(PathBuf::from("./build/overhead")));
        assert_eq!(parse_side("base=").unwrap(), SideSpec { name: "base".into(), binary: None, env: Vec::new() });
        assert_eq!(parse_side("v1.2=/a/b").unwrap().binary, Some(PathBuf::from("/a/b")));
        assert_eq!(parse_side("x=K=").unwrap().env, [("K".into(), String::new())]);
    }

    #[test]
    fn a_side_that_does_not_read_is_refused_with_the_value_and_what_was_expected() {
        for (value, why) in [
            ("nameonly", "no `=`"),
            ("=./x", "letters, digits"),
            ("a b=./x", "letters, digits"),
            ("x=1K=v", "no KEY=VALUE"),
            ("x=./a ./b", "two binaries"),
        ] {
            let e = parse_side(value).unwrap_err();
            assert!(e.contains(why) && e.contains(value) && e.contains("expected NAME="), "{value}: {e}");
        }
    }

    #[test]
    fn sides_are_two_or_more_with_distinct_names_and_binaries_that_answer() {
        let this = Path::new("/proc/self/exe");
        let plain = |n: &str| SideSpec { name: n.into(), binary: None, env: Vec::new() };
        assert!(check_sides(vec![], this, &tool()).unwrap().is_empty());
        assert!(check_sides(vec![plain("a")], this, &tool()).unwrap_err().contains("one side"));
        assert!(check_sides(vec![plain("a"), plain("a")], this, &tool()).unwrap_err().contains("given twice"));
        let two = check_sides(vec![plain("a"), plain("b")], this, &tool()).unwrap();
        assert_eq!((two[1].exe.as_path(), two[1].spec.name.as_str()), (this, "b"));
        let dir = tempfile::tempdir().unwrap();
        let missing = SideSpec { binary: Some(dir.path().join("nope")), ..plain("m") };
        let e = check_sides(vec![plain("a"), missing], this, &tool()).unwrap_err();
        assert!(e.starts_with("--side m: ") && e.contains("cannot be read"), "{e}");
        let not_exec = dir.path().join("plain-file");
        std::fs::write(&not_exec, "").unwrap();
        let e = check_sides(vec![plain("a"), SideSpec { binary: Some(not_exec), ..plain("n") }], this, &tool());
        assert!(e.unwrap_err().contains("is not executable"));
        // A program that is not this tool: `true` answers nothing.
        let e =
            check_sides(vec![plain("a"), SideSpec { binary: Some("/bin/true".into()), ..plain("t") }], this, &tool());
        assert!(e.unwrap_err().contains("did not answer `overhead about`"));
    }
}
