//! The `timer.*` experiments: timers (Kiszka 2006).

/// The experiment ID `timer.stolen`.
pub const STOLEN: &str = "timer.stolen";

/// The experiment ID `timer.wakeup`.
pub const WAKEUP: &str = "timer.wakeup";

/// The experiment ID `timer.hotpath`.
pub const HOTPATH: &str = "timer.hotpath";
