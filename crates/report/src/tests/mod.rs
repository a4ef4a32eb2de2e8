//! Tests of report sections that read what the analysis derives, so they live above both the experiments and
//! the analysis.

mod catalog_in_record;
mod intervals;
mod primitives_section;
mod timers_section;
