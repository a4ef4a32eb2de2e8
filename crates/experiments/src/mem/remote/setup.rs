//! The raw memory of a `mem.remote` point: the lines its activities increment, first touched where the case
//! says, and the CPUs each activity runs on.

use super::*;

/// A word's address, shared with the thread that increments it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Word(pub(super) *mut u64);
// SAFETY: an address into a `FirstTouchPage` that `Setup` keeps alive for as long as any thread runs
// (the threads are scoped inside `run_team`); the threads access it only through relaxed atomic loads and
// stores ([`increments`]), as the study's plain increments, and the values are never read for anything but
// the increments themselves.
unsafe impl Send for Word {}
// SAFETY: as for Send.
unsafe impl Sync for Word {}

/// The memory and roles of one point.
pub(super) struct Setup {
    /// The mappings the words point into; kept alive while the threads run.
    pub(super) _pages: Vec<FirstTouchPage>,
    pub(super) reference: Reference,
    /// One per thread, thread 0 first: its CPU and the word it increments.
    pub(super) threads: Vec<(usize, Word)>,
    /// Indices of the threads whose rates are reported.
    pub(super) measured: Vec<usize>,
    /// With the clock's reference: per measured thread, a word of its own (on a page its CPU first
    /// touched) for its solo windows.
    pub(super) solo: Vec<Word>,
}

impl Setup {
    /// The layout of [`Remote`]'s doc for `case` on `cpus`.
    ///
    /// Errors: too few CPUs for the case, or a page could not be first touched on its CPU.
    pub(super) fn new(case: Case, reference: Reference, cpus: &[usize]) -> anyhow::Result<Setup> {
        let a = usize::from(reference == Reference::Activity);
        let needed = match case {
            Case::LocalFree => 1,
            Case::LocalManyRemote => 3,
            _ => 2,
        } + a;
        anyhow::ensure!(cpus.len() >= needed, "{} needs {needed} CPUs, the point has {:?}", case.name(), cpus);
        let mut pages = Vec::new();
        let mut page = |cpu: usize| -> anyhow::Result<(Word, Word)> {
            let p = FirstTouchPage::on_cpu(cpu, 1).map_err(|e| anyhow::anyhow!("first touch on CPU {cpu}: {e}"))?;
            let w0 = p.line(0).as_ptr();
            // SAFETY: the second 8-byte word of line 0, inside the same 64-byte cache line and the mapping.
            let w1 = unsafe { w0.add(1) };
            pages.push(p);
            Ok((Word(w0), Word(w1)))
        };
        let mut threads = Vec::new();
        if a == 1 {
            threads.push((cpus[0], page(cpus[0])?.0));
        }
        let rest = &cpus[a..];
        let mut measured = vec![a];
        match case {
            Case::LocalFree => threads.push((rest[0], page(rest[0])?.0)),
            Case::LocalOneRemote => {
                let (i, j) = page(rest[0])?;
                threads.extend([(rest[0], i), (rest[1], j)]);
            }
            Case::RemoteUsed => {
                let (i, j) = page(rest[1])?;
                threads.extend([(rest[0], j), (rest[1], i)]);
            }
            Case::LocalManyRemote => {
                let (i, j) = page(rest[0])?;
                threads.push((rest[0], i));
                threads.extend(rest[1..].iter().map(|&c| (c, j)));
            }
            // The owner first touches the page and runs nothing.
            Case::RemoteUnused => threads.push((rest[0], page(rest[1])?.0)),
            Case::RemoteHeavy => {
                let (w, _) = page(rest[0])?;
                threads.extend(rest.iter().map(|&c| (c, w)));
                measured = (a..threads.len()).collect();
            }
            Case::NumaLocal | Case::NumaRemote => anyhow::bail!("{} is not a team case", case.name()),
        }
        let solo = match reference {
            Reference::Clock => {
                measured.iter().map(|&m| page(threads[m].0).map(|w| w.0)).collect::<anyhow::Result<_>>()?
            }
            Reference::Activity => Vec::new(),
        };
        Ok(Setup { _pages: pages, reference, threads, measured, solo })
    }
}
