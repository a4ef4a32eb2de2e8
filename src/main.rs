//! The `overhead` command; everything lives in the library.

fn main() -> std::process::ExitCode {
    overhead::cli::main()
}
