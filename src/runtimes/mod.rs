//! Runtimes under test (DESIGN.md "Runtimes under test"): implementations of the primitives that the
//! experiments time side by side.

pub mod os;

/// Every runtime name DESIGN.md defines; a name outside this list is refused at the command line.
pub const KNOWN: [&str; 9] =
    ["os", "fiber-asm", "fiber-ucontext", "fiber-corosensei", "tokio", "rayon", "openmp", "go", "java"];

/// The runtimes this build implements; `overhead run` measures these by default.
pub const IMPLEMENTED: [&str; 1] = ["os"];
