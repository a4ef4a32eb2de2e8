//! The generic pieces the report is built from (docs/ARCHITECTURE.md "Renderers"): tables in the report's
//! text formats, labelled matrices, curves as data, their SVG plots (plotters) and Markdown as HTML. They know
//! nothing of any experiment, so the experiments' sections and the report's assembly (both in
//! `overhead_report`) build on them; the idea is criterion's plot kinds behind one `Plotter` and hyperfine's
//! exporters sharing one `MarkupExporter`. It uses only the record and the units; no crate that holds a
//! timed loop depends on it.

pub mod curve;
pub mod figure;
pub mod markdown;
pub mod matrix;
pub mod plot;
pub mod ratio_plot;
pub mod table;

pub use matrix::render_matrix;
pub use table::{new_table, Format};
