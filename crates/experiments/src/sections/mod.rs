//! What the experiments say about the report's tables without drawing them: which point fills which row of
//! Souvatzis's timing table ([`primitive_rows`]), read by the analysis and by the report's primitives
//! section (`overhead-report`'s `sections`, where every table and figure is drawn).

pub mod primitive_rows;
