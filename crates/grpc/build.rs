//! The gRPC service's code (`generated/overhead_rpc.rs`) is kept in the tree, so a build needs no code
//! generator (protox, prost-build, tonic-prost-build and their regex, parser and graph crates cost a fresh build
//! about 17 CPU-seconds). With `--features regenerate` this script generates it again from
//! `proto/overhead_rpc.proto` into `OUT_DIR`, and `service::tests::the_generated_code_matches_the_proto`
//! compares the two (`OVERHEAD_BLESS=1` writes the new code into the tree). CI runs that test.

/// The service definition, relative to the crate root.
#[cfg(feature = "regenerate")]
const RPC_PROTO: &str = "proto/overhead_rpc.proto";

fn main() {
    println!("cargo:rustc-check-cfg=cfg(overhead_grpc_regenerated)");
    #[cfg(feature = "regenerate")]
    regenerate();
}

/// Generates the messages and the client and server code of `proto/overhead_rpc.proto` into `OUT_DIR`
/// (`overhead_rpc.rs`). protox parses the file in Rust, so this needs no `protoc`; tonic-prost-build turns
/// the descriptors into prost messages and tonic stubs. A broken `.proto` fails the build, with protox's
/// message.
#[cfg(feature = "regenerate")]
fn regenerate() {
    println!("cargo:rerun-if-changed={RPC_PROTO}");
    let descriptors = protox::compile([RPC_PROTO], ["proto"]).unwrap_or_else(|e| panic!("{RPC_PROTO}: {e}"));
    tonic_prost_build::configure()
        .build_transport(false)
        .compile_fds(descriptors)
        .unwrap_or_else(|e| panic!("generating the rpc service from {RPC_PROTO}: {e}"));
    println!("cargo:rustc-cfg=overhead_grpc_regenerated");
}
