//! The `timer.*` experiments: timers (Kiszka 2006).

use crate::variants::timer_scenario::{Scenario, StartMode, TimeBaseKind};

/// The experiment ID `timer.stolen`.
pub const STOLEN: &str = "timer.stolen";

/// The experiment ID `timer.wakeup`.
pub const WAKEUP: &str = "timer.wakeup";

/// The experiment ID `timer.hotpath`.
pub const HOTPATH: &str = "timer.hotpath";

/// `timer.hotpath`'s parameters.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct HotPathParams {
    pub scenario: Scenario,
    pub time_base: TimeBaseKind,
    pub start: StartMode,
}
