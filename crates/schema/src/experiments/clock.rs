//! The `clock.*` experiments: reading time and converting ticks (Kiszka 2006).

/// The experiment ID `clock.read`.
pub const READ: &str = "clock.read";

/// The experiment ID `clock.convert`.
pub const CONVERT: &str = "clock.convert";

/// The experiment ID `clock.rate`.
pub const RATE: &str = "clock.rate";

/// The experiment ID `clock.offset`.
pub const OFFSET: &str = "clock.offset";
