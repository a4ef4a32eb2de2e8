//! The run's progress on stderr: a bar on a terminal, one line per probe otherwise.

use std::cell::Cell;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// Progress on stderr: a bar with the round, the points left in it, the point's name and the ETA on a
/// terminal; one line per probe otherwise.
pub struct Progress {
    bar: Option<ProgressBar>,
    total: Cell<usize>,
    done: Cell<usize>,
    round: Cell<usize>,
}

impl Progress {
    /// A bar (on a terminal) for `total` probes: the minimum rounds of every point.
    pub fn new(total: usize) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{elapsed}] {bar:30} {pos}/{len} ETA {eta}  {msg}")
                    .expect("the template is valid"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress { bar, total: Cell::new(total), done: Cell::new(0), round: Cell::new(1) }
    }

    /// A round past the minimum: `points` more probes to come.
    pub fn add(&self, points: usize) {
        self.total.set(self.total.get() + points);
        if let Some(bar) = &self.bar {
            bar.inc_length(points as u64);
        }
    }

    /// A probe planned but not run (out of budget).
    pub fn skip(&self) {
        self.total.set(self.total.get().saturating_sub(1));
        if let Some(bar) = &self.bar {
            bar.dec_length(1);
        }
    }

    /// The probe of `name` starts, with `left_in_round` probes of round `round` left, this one included.
    pub fn start(&self, round: usize, left_in_round: usize, name: &str) {
        self.round.set(round);
        if let Some(bar) = &self.bar {
            bar.set_message(format!("round {round}, {left_in_round} left: {name}"));
        }
    }

    /// A probe ended; `line` says how (the point and its median, or why it failed).
    pub fn finish(&self, line: &str) {
        self.done.set(self.done.get() + 1);
        match &self.bar {
            Some(bar) => bar.inc(1),
            None => eprintln!("[round {} {}/{}] {line}", self.round.get(), self.done.get(), self.total.get()),
        }
    }

    /// A line about the run (not a probe's end: nothing is counted), above the bar on a terminal, on stderr
    /// otherwise.
    pub fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// The run ended: the bar goes away.
    pub fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
