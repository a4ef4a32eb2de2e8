//! Generates the gRPC service of the `rpc.*` experiments (Walfield 2008) from `proto/overhead_rpc.proto`.

/// The service definition, relative to the crate root.
const RPC_PROTO: &str = "proto/overhead_rpc.proto";

/// Generates the messages and the client and server code of `proto/overhead_rpc.proto` into `OUT_DIR`
/// (`overhead_rpc.rs`, included by `src/service.rs`). protox parses the file in Rust, so the build needs no
/// `protoc`; tonic-prost-build turns the descriptors into prost messages and tonic stubs. A broken `.proto`
/// fails the build, with protox's message.
fn main() {
    println!("cargo:rerun-if-changed={RPC_PROTO}");
    let descriptors = protox::compile([RPC_PROTO], ["proto"]).unwrap_or_else(|e| panic!("{RPC_PROTO}: {e}"));
    tonic_prost_build::configure()
        .build_transport(false)
        .compile_fds(descriptors)
        .unwrap_or_else(|e| panic!("generating the rpc service from {RPC_PROTO}: {e}"));
}
