//! Sets the `overhead_openmp` cfg when overhead-runtime-parallel built the OpenMP kernels (its `links` metadata), so
//! the experiments' OpenMP tests run only where the kernels exist.

fn main() {
    println!("cargo:rustc-check-cfg=cfg(overhead_openmp)");
    if std::env::var_os("DEP_OVERHEAD_OMP_BUILT").is_some() {
        println!("cargo:rustc-cfg=overhead_openmp");
    }
}
