//! The `base.*` experiments: the costs every other number stands on (Ben-Asher & Feitelson 1991 §5.1, lmbench).

/// The experiment ID `base.loop`.
pub const LOOP: &str = "base.loop";

/// The experiment ID `base.syscall`.
pub const SYSCALL: &str = "base.syscall";

/// The experiment ID `base.call`.
pub const CALL: &str = "base.call";
