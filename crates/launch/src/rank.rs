//! Which rank this process is, read from the environment the MPI launcher gives each process it starts
//! (OpenMPI: `OMPI_COMM_WORLD_RANK`; MPICH's Hydra and other PMI launchers: `PMI_RANK`; PMIx: `PMIX_RANK`).

/// The environment variables that carry a process's rank, in the order they are trusted.
pub const RANK_VARIABLES: [&str; 3] = ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"];

/// This process's rank when an MPI launcher started it; `None` otherwise (started by the orchestrator
/// directly, or by hand).
pub fn current() -> Option<usize> {
    from(|name| std::env::var(name).ok())
}

/// The rank given by `lookup` (an environment), first variable of [`RANK_VARIABLES`] that parses.
pub fn from(lookup: impl Fn(&str) -> Option<String>) -> Option<usize> {
    RANK_VARIABLES.iter().find_map(|name| lookup(name).and_then(|v| v.trim().parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_comes_from_the_launchers_variable() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        assert_eq!(from(env(&[("OMPI_COMM_WORLD_RANK", "3")])), Some(3));
        assert_eq!(from(env(&[("PMI_RANK", "1")])), Some(1));
        assert_eq!(from(env(&[("PMIX_RANK", "0"), ("PMI_RANK", "junk")])), Some(0));
        assert_eq!(from(env(&[])), None);
    }
}
