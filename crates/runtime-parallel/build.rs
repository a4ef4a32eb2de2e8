//! Builds the OpenMP kernels of the `openmp` runtime (`c/omp/`, C with `-fopenmp`, linked against libgomp). The
//! external probes' sources are embedded by the `overhead` binary's build script instead
//! (`external::probe_sources`), so that editing a probe does not rebuild this crate.
//!
//! The OpenMP build never fails the crate's build: when the C compiler cannot compile and link an OpenMP
//! program (no `omp.h`, no libgomp, `OVERHEAD_NO_OPENMP` set), the crate is built without the `overhead_openmp`
//! cfg and `OVERHEAD_OPENMP_UNAVAILABLE` holds the reason, which `openmp::available()` returns.

use std::path::{Path, PathBuf};

/// The C sources of the OpenMP kernels, relative to the crate root.
const OMP_SOURCES: [&str; 6] =
    ["c/omp/team.c", "c/omp/loops.c", "c/omp/forkjoin.c", "c/omp/barrier.c", "c/omp/tasks.c", "c/omp/sync.c"];

fn main() {
    openmp();
}

/// Builds the kernels, or says why not through the environment of the crate's compilation.
fn openmp() {
    println!("cargo:rustc-check-cfg=cfg(overhead_openmp)");
    println!("cargo:rerun-if-changed=c/omp");
    println!("cargo:rerun-if-env-changed=OVERHEAD_NO_OPENMP");
    for source in OMP_SOURCES {
        println!("cargo:rerun-if-changed={source}");
    }
    match build_openmp() {
        Ok(library) => {
            println!("cargo:rustc-cfg=overhead_openmp");
            // For the crates above (their build scripts read DEP_OVERHEAD_OMP_BUILT): their OpenMP tests.
            println!("cargo:built=1");
            println!("cargo:rustc-env=OVERHEAD_OPENMP_LIBRARY={library}");
        }
        Err(reason) => {
            // One line: rustc-env values cannot hold a newline.
            let reason: String = reason.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(300).collect();
            println!("cargo:warning=runtime openmp not built: {reason}");
            println!("cargo:rustc-env=OVERHEAD_OPENMP_UNAVAILABLE={reason}");
        }
    }
}

/// Compiles `c/omp/*.c` into a static library and asks Cargo to link it and the OpenMP runtime. Returns the
/// runtime library's name (`gomp` for GCC; `omp` when the compiler is clang, whose `-fopenmp` needs LLVM's).
fn build_openmp() -> Result<&'static str, String> {
    if std::env::var_os("OVERHEAD_NO_OPENMP").is_some() {
        return Err("disabled by OVERHEAD_NO_OPENMP at build time".into());
    }
    let mut build = cc::Build::new();
    build.files(OMP_SOURCES).include("c/omp").flag("-fopenmp").flag("-std=c11").opt_level(2).warnings(true);
    let compiler = build.try_get_compiler().map_err(|e| format!("no C compiler: {e}"))?;
    let library = if compiler.is_like_clang() { "omp" } else { "gomp" };
    link_check(&compiler, library)?;
    build.try_compile("overhead_omp").map_err(|e| format!("compiling c/omp failed: {e}"))?;
    println!("cargo:rustc-link-lib=dylib={library}");
    Ok(library)
}

/// Compiles and links a tiny OpenMP program, so that a missing `omp.h` or OpenMP runtime library is found
/// here, with its reason, rather than at the crate's final link.
fn link_check(compiler: &cc::Tool, library: &str) -> Result<(), String> {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let source = out_dir.join("omp_link_check.c");
    let program = "#include <omp.h>\nint main(void) {\n  int n = 0;\n#pragma omp parallel num_threads(2)\n  {\n\
                   #pragma omp atomic\n    n++;\n  }\n  return n > 0 && omp_get_max_threads() > 0 ? 0 : 1;\n}\n";
    std::fs::write(&source, program).map_err(|e| format!("writing {}: {e}", source.display()))?;
    let exe = out_dir.join("omp_link_check");
    let output = compiler
        .to_command()
        .arg("-fopenmp")
        .arg(Path::new(&source))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-l{library}"))
        .output()
        .map_err(|e| format!("running the C compiler {}: {e}", compiler.path().display()))?;
    if output.status.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr.lines().find(|l| l.contains("error")).or(stderr.lines().next()).unwrap_or("");
        Err(format!("{} cannot build an OpenMP program with -l{library}: {first}", compiler.path().display()))
    }
}
