//! Where a point's parties run: the one type of a point's placement, for the plan that picks CPUs, the point's
//! name (`placement:`), its record and every reader.

/// How a point's parties are placed: the one type, which the machine's topology answers for two of its CPUs
/// and which the plan, a point's name and its record use alike (`overhead_machine::Placement`).
pub use overhead_machine::Placement;

/// The parameter that names a point's placement (`placement:other_core`).
pub const PLACEMENT_KEY: &str = "placement";

#[cfg(test)]
mod tests {
    use super::*;

    /// Every placement's name is its serde form, and names it back.
    #[test]
    fn a_placement_is_named_as_serde_writes_it() {
        for p in Placement::ALL.into_iter().chain([Placement::OtherHost, Placement::Free]) {
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{}\"", p.name()));
            assert_eq!(Placement::named(p.name()), Some(p));
        }
        assert_eq!(Placement::named("other_socket"), None);
    }
}
