//! The toolchains the external probes need, found on this machine, and the probes built with them on first
//! use into a cache folder (`probes/README.md` has the build and launch lines this file follows).
//! The sources are embedded in the binary (`probe_sources`), so a probe builds wherever `overhead` runs; a
//! build is cached under a key of its sources and the toolchain's version, and made in a temporary folder
//! renamed into place, so runs that start together never see half a build.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::probe_sources::sources;

/// The oldest Go the probe is written for (`probes/go/go.mod`; Debian 12's).
const GO_MIN: (u32, u32) = (1, 19);
/// The oldest JDK the Java probe compiles for (`javac --release 17`).
pub const JAVA_MIN: u32 = 17;
/// The first JDK with virtual threads (JEP 444).
pub const JAVA_VIRTUAL_MIN: u32 = 21;

/// A built Go probe: the executable.
#[derive(Debug, Clone)]
pub struct GoProbe {
    pub binary: PathBuf,
}

/// A built Java probe: the JVM that runs it, its feature version, and the class folder.
#[derive(Debug, Clone)]
pub struct JavaProbe {
    pub java: PathBuf,
    pub feature: u32,
    pub classes: PathBuf,
}

/// The Go probe, built once per process (the first caller builds it; later callers get the same answer).
///
/// Errors: no `go` (`OVERHEAD_GO`, else PATH), one older than [`GO_MIN`], or a failed build, said so that
/// it reads after "runtime go is not available here: ".
pub fn go_probe() -> Result<&'static GoProbe, String> {
    static PROBE: OnceLock<Result<GoProbe, String>> = OnceLock::new();
    PROBE.get_or_init(build_go).as_ref().map_err(Clone::clone)
}

/// The Java probe, built once per process with the JDK of `OVERHEAD_JAVA_HOME`, else `JAVA_HOME`, else
/// `java` and `javac` on PATH.
///
/// Errors: no JDK, one older than [`JAVA_MIN`], or a failed build.
pub fn java_probe() -> Result<&'static JavaProbe, String> {
    static PROBE: OnceLock<Result<JavaProbe, String>> = OnceLock::new();
    PROBE.get_or_init(build_java).as_ref().map_err(Clone::clone)
}

fn build_go() -> Result<GoProbe, String> {
    let go = std::env::var_os("OVERHEAD_GO").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("go"));
    let version = output_of(Command::new(&go).args(["env", "GOVERSION"])).map_err(|e| {
        format!("no Go toolchain ({} {e}); install Go ≥ {}.{} or set OVERHEAD_GO", go.display(), GO_MIN.0, GO_MIN.1)
    })?;
    let version = version.trim().to_string();
    let (major, minor) = go_version(&version).ok_or_else(|| format!("cannot read the Go version {version:?}"))?;
    if (major, minor) < GO_MIN {
        return Err(format!("{version} is older than the probe needs (go{}.{})", GO_MIN.0, GO_MIN.1));
    }
    let go_sources = sources()?.go;
    let folder = cached(&format!("go-{}", key(go_sources, &version)), |tmp| {
        let src = tmp.join("src");
        write_sources(&src, go_sources)?;
        let mut build = Command::new(&go);
        build.current_dir(&src).args(["build", "-trimpath", "-o"]).arg(tmp.join("overhead-probe-go")).arg(".");
        // Standard library only: nothing to fetch, and no newer toolchain fetched for the go.mod line.
        build.env("GOTOOLCHAIN", "local").env("GOPROXY", "off").env("GOFLAGS", "-mod=mod");
        output_of(&mut build).map(drop)
    })?;
    Ok(GoProbe { binary: folder.join("overhead-probe-go") })
}

fn build_java() -> Result<JavaProbe, String> {
    let home = std::env::var_os("OVERHEAD_JAVA_HOME").or_else(|| std::env::var_os("JAVA_HOME")).map(PathBuf::from);
    let tool = |name: &str| home.as_ref().map_or_else(|| PathBuf::from(name), |h| h.join("bin").join(name));
    let (java, javac) = (tool("java"), tool("javac"));
    let banner = Command::new(&java).arg("-version").output().map_err(|e| {
        format!("no Java runtime ({} {e}); install a JDK ≥ {JAVA_MIN} or set JAVA_HOME", java.display())
    })?;
    let banner = String::from_utf8_lossy(&banner.stderr).into_owned();
    let feature = java_feature(&banner)
        .ok_or_else(|| format!("cannot read the Java version from {:?}", banner.lines().next()))?;
    if feature < JAVA_MIN {
        return Err(format!("JDK {feature} is older than the probe needs ({JAVA_MIN})"));
    }
    let version = banner.lines().next().unwrap_or_default().to_string();
    let java_sources = sources()?.java;
    let folder = cached(&format!("java-{}", key(java_sources, &version)), |tmp| {
        let src = tmp.join("src");
        write_sources(&src, java_sources)?;
        let mut compile = Command::new(&javac);
        compile.args(["--release", &JAVA_MIN.to_string(), "-encoding", "UTF-8", "-d"]).arg(tmp.join("classes"));
        compile.args(java_sources.iter().map(|(path, _)| src.join(path)));
        output_of(&mut compile).map_err(|e| format!("javac ({}): {e}", javac.display())).map(drop)
    })?;
    Ok(JavaProbe { java, feature, classes: folder.join("classes") })
}

/// `(major, minor)` of a Go version such as `go1.26.8` or `go1.19`.
fn go_version(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.strip_prefix("go")?.split(['.', 'r', 'b']);
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// The feature release of `java -version`'s banner: `17` for `openjdk version "17.0.15"`, `8` for `"1.8.0_392"`.
fn java_feature(banner: &str) -> Option<u32> {
    let quoted = banner.lines().next()?.split('"').nth(1)?;
    let mut parts = quoted.split(['.', '-', '+', '_']);
    match parts.next()?.parse().ok()? {
        1 => parts.next()?.parse().ok(),
        feature => Some(feature),
    }
}

/// A cache key of the sources and the toolchain: FNV-1a over both, in hex (stable across builds of this
/// binary and of Rust, unlike `DefaultHasher`).
pub fn key(sources: &[(&str, &str)], toolchain: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let bytes =
        sources.iter().flat_map(|(p, c)| [p.as_bytes(), &[0], c.as_bytes(), &[0]]).chain([toolchain.as_bytes()]);
    for byte in bytes.flatten() {
        hash = (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The cache folder: `OVERHEAD_PROBE_CACHE`, else `$XDG_CACHE_HOME/overhead/probes`, else
/// `~/.cache/overhead/probes`, else one under the temporary directory.
fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("OVERHEAD_PROBE_CACHE") {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("overhead").join("probes")
}

/// The folder `name` of the cache, made by `build` (into a fresh temporary folder, then renamed into
/// place) when it is not there yet. A concurrent run that renamed first wins; its build is as good.
pub fn cached(name: &str, build: impl FnOnce(&Path) -> Result<(), String>) -> Result<PathBuf, String> {
    cached_in(&cache_root(), name, build)
}

/// [`cached`] under `root`.
fn cached_in(root: &Path, name: &str, build: impl FnOnce(&Path) -> Result<(), String>) -> Result<PathBuf, String> {
    let folder = root.join(name);
    if folder.is_dir() {
        return Ok(folder);
    }
    std::fs::create_dir_all(root).map_err(|e| format!("cannot create the probe cache {}: {e}", root.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!("{name}.building-"))
        .tempdir_in(root)
        .map_err(|e| format!("cannot build in {}: {e}", root.display()))?;
    build(tmp.path()).map_err(|e| format!("building the probe failed: {e}"))?;
    let built = tmp.keep();
    if let Err(e) = std::fs::rename(&built, &folder) {
        let _ = std::fs::remove_dir_all(&built);
        if !folder.is_dir() {
            return Err(format!("cannot move the built probe to {}: {e}", folder.display()));
        }
    }
    Ok(folder)
}

pub fn write_sources(dir: &Path, sources: &[(&str, &str)]) -> Result<(), String> {
    for (path, contents) in sources {
        let file = dir.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&file, contents).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(())
}

/// The command's stdout when it succeeds; otherwise its exit and the end of its stderr.
pub fn output_of(command: &mut Command) -> Result<String, String> {
    let out = command.output().map_err(|e| format!("could not start: {e}"))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
    Err(format!("exited with {}: {}", out.status, tail.into_iter().rev().collect::<Vec<_>>().join(" / ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_as_the_toolchains_print_them() {
        assert_eq!(go_version("go1.26.8"), Some((1, 26)));
        assert_eq!(go_version("go1.19"), Some((1, 19)));
        assert_eq!(go_version("go1.22rc1"), Some((1, 22)));
        assert_eq!(go_version("devel"), None);
        assert_eq!(java_feature("openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime"), Some(17));
        assert_eq!(java_feature("openjdk version \"25\" 2025-09-16"), Some(25));
        assert_eq!(java_feature("java version \"1.8.0_392\""), Some(8));
        assert_eq!(java_feature("no quotes"), None);
    }

    #[test]
    fn the_sources_are_embedded_and_the_key_follows_them() {
        let s = sources().unwrap();
        assert!(s.go.iter().any(|(p, _)| *p == "go.mod") && s.go.iter().any(|(p, _)| *p == "main.go"));
        assert!(s.go.iter().all(|(p, _)| !p.ends_with("_test.go")), "tests are not build inputs");
        assert!(s.java.iter().any(|(p, _)| p.ends_with("overhead/probe/Main.java")));
        assert_eq!(key(s.go, "go1.26"), key(s.go, "go1.26"));
        assert_ne!(key(s.go, "go1.26"), key(s.go, "go1.27"));
        assert_ne!(key(&[("a", "x")], ""), key(&[("a", "y")], ""));
    }

    #[test]
    fn a_cached_build_is_made_once_and_a_failed_one_leaves_nothing() {
        let root = tempfile::tempdir().unwrap();
        let folder =
            cached_in(root.path(), "x-1", |tmp| std::fs::write(tmp.join("f"), "1").map_err(|e| e.to_string())).unwrap();
        assert_eq!(std::fs::read_to_string(folder.join("f")).unwrap(), "1");
        let again = cached_in(root.path(), "x-1", |_| Err("not called: the build is cached".into()));
        assert_eq!(again.unwrap(), folder);
        let failed = cached_in(root.path(), "y-1", |_| Err("broken".into()));
        assert!(failed.unwrap_err().contains("broken"));
        let left: Vec<_> = std::fs::read_dir(root.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left, [std::ffi::OsString::from("x-1")], "a failed build leaves no folder behind");
    }
}
