//! Renderers: they read only the run record, never the probes (DESIGN.md "Renderers"), so a report can
//! be made again later, on another machine.

mod primitives;
mod table;
mod timers;
mod units;

pub use primitives::primitives_table;
pub use table::{render, Format};
pub use timers::timers_table;
pub use units::format_ns;
