//! (to be written)

use crate::record::RunRecord;
use crate::report::Format;

/// Empty until written.
pub fn render(record: &RunRecord, format: Format) -> String {
    let _ = (record, format);
    String::new()
}
