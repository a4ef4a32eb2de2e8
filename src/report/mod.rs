//! Renderers: they read only the run record, never the probes (DESIGN.md "Renderers"), so a report can
//! be made again later, on another machine.

mod convert;
mod primitives;
mod table;
mod units;

pub use convert::convert_table;
pub use primitives::primitives_table;
pub use table::{render, Format};
pub use units::format_ns;
