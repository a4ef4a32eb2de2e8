//! Generates the gRPC service of the `rpc.*` experiments (seed 003) from `proto/overhead_rpc.proto`, and sets
//! the `overhead_openmp` cfg when the runtimes crate built the OpenMP kernels (its `links` metadata), so the
//! experiments' OpenMP tests run only where the kernels exist.

/// The service definition of the `rpc.*` experiments, relative to the crate root.
const RPC_PROTO: &str = "proto/overhead_rpc.proto";

fn main() {
    rpc_service();
    println!("cargo:rustc-check-cfg=cfg(overhead_openmp)");
    if std::env::var_os("DEP_OVERHEAD_OMP_BUILT").is_some() {
        println!("cargo:rustc-cfg=overhead_openmp");
    }
}

/// Generates the messages and the client and server code of `proto/overhead_rpc.proto` into `OUT_DIR`
/// (`overhead_rpc.rs`, included by `crates/experiments/src/rpc/service.rs`). protox parses the file in Rust, so the
/// build needs no `protoc`; tonic-prost-build turns the descriptors into prost messages and tonic stubs.
/// Unlike the OpenMP kernels this cannot be left out: a broken `.proto` fails the build, with protox's message.
fn rpc_service() {
    println!("cargo:rerun-if-changed={RPC_PROTO}");
    let descriptors = protox::compile([RPC_PROTO], ["proto"]).unwrap_or_else(|e| panic!("{RPC_PROTO}: {e}"));
    tonic_prost_build::configure()
        .build_transport(false)
        .compile_fds(descriptors)
        .unwrap_or_else(|e| panic!("generating the rpc service from {RPC_PROTO}: {e}"));
}
