//! The command line: `run`, `list`, `check`, `report`, `compare`, `history`, and the hidden `probe` and
//! `about`.
//!
//! Exit codes: 0 success, 1 a failure while working (or `compare --fail-on` found a flagged slowdown), 2 bad
//! input (as clap uses), 130 interrupted.

mod check;
mod compare;
mod crosscheck;
mod history;
mod list;
mod probe;
mod report;
mod run;
mod scale_side;
mod simulate;

use overhead_record::BuildStamp;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use overhead_harness::Mode;
use overhead_report::export::for_comparison;
use overhead_report::OutputFormat;

/// Measures what the primitives of concurrent runtimes cost on this machine.
#[derive(Debug, Parser)]
#[command(name = "overhead", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure, write DIR/results.json, print the table and the record's path.
    Run(Box<RunArgs>),
    /// List the experiments: ID, what it measures, and its source.
    List,
    /// Report the harness's own health on this machine.
    Check(CheckArgs),
    /// Render a run record again.
    Report(ReportArgs),
    /// Compare records: every point of the others against the first, as a ratio with its 95% CI.
    Compare(CompareArgs),
    /// Run the field's own tools (lmbench, perf, cyclictest, core-to-core-latency, EPCC, crossbeam's programs)
    /// beside our matching points, paired in time and grouped by host state, and say where they agree.
    Crosscheck(CrosscheckArgs),
    /// List this machine's runs from the history and the run-level spread per family, or clear them.
    History(HistoryArgs),
    /// Say this binary's probe protocol and build as one JSON line (asked by a run with sides of each
    /// side's binary).
    #[command(hide = true)]
    About,
    /// A copy of a record with one side's times scaled (scripts/scale-side; docs/ci.md).
    #[command(hide = true)]
    ScaleSide {
        /// RECORD SIDE FACTOR OUT.
        #[arg(num_args = 4, value_names = ["RECORD", "SIDE", "FACTOR", "OUT"])]
        args: Vec<String>,
    },
    /// Measure one point (used by `run`; speaks JSON lines).
    #[command(hide = true)]
    Probe {
        /// The job as JSON (see protocol::ProbeJob).
        #[arg(long)]
        job: String,
    },
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Fewer points (teams of 1, 2 and all CPUs; MPI's launches only with --runtime mpi), 3–5 processes per
    /// point, ~20 s budget for refining, no probe after 28 s (about 30 s in all).
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// The full parameter grids, 5–30 processes per point, a 20 min refining budget, no probe after 25 min;
    /// prints its ETA first.
    #[arg(long)]
    pub full: bool,
    /// Seconds the run may spend in all before it stops refining points past their minimum rounds
    /// (default: 20 quick, 80 default, 1200 full; a run narrowed by --only or --runtime gets its share of
    /// that by points, at least a quarter). The deadline after which no probe starts (28, 85, 1500 s)
    /// moves out to a longer budget.
    #[arg(long, value_name = "SECONDS")]
    pub budget: Option<f64>,
    /// Print the plan and exit: every point this run would measure, one name a line, then every skipped
    /// cell with its reason (like JMH's `-l`); nothing is measured or written.
    #[arg(long)]
    pub plan: bool,
    /// With --plan: simulate the run instead of listing it, each point's processes costing what they cost in
    /// this recorded run (`results.json`; its point of the same name, else one of another thread count scaled
    /// along the line through its recorded counts, else its experiment's median), replayed through the run's own schedule on a
    /// simulated clock. Prints each point with the processes it would get, then `simulated: P points, N
    /// processes, W s, fewest processes a point M`. The machine is the record's unless --topology describes
    /// another.
    #[arg(long, value_name = "RECORD", requires = "plan")]
    pub simulate: Option<PathBuf>,
    /// With --simulate: the machine to plan for, as `lscpu -p` writes it (`CPU,Core,Socket,Node,,L1d,L1i,L2,L3`
    /// lines), optionally followed by `lscpu -C`'s cache table: e.g. `(lscpu -p; lscpu -C) > machine.txt`.
    #[arg(long, value_name = "FILE", requires = "simulate")]
    pub topology: Option<PathBuf>,
    /// With --simulate: the schedule to simulate, `allotted` (this build's) or `walk` (the schedule before
    /// the minimum was planned against the deadline: for checking the simulation on records it made).
    #[arg(long, value_name = "NAME", requires = "simulate", hide = true, default_value = "allotted")]
    pub simulate_schedule: String,
    /// With --simulate: also write the record's process costs in the compact form the simulation replays
    /// (JSON), for a test fixture.
    #[arg(long, value_name = "FILE", requires = "simulate", hide = true)]
    pub simulate_save_costs: Option<PathBuf>,
    /// Print the plan as JSON lines (a point, or a skipped cell with its reason): what a run with sides asks
    /// each side's binary, in the side's environment.
    #[arg(long, hide = true, conflicts_with = "plan")]
    pub plan_json: bool,
    /// Print the full report at the end (every point and every section), not the one-screen summary.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Experiment IDs or families to run (repeat or separate by commas), e.g. `--only base,sync.faa`.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Runtimes to measure (default: every runtime this build implements).
    #[arg(long, value_delimiter = ',')]
    pub runtime: Vec<String>,
    /// CPUs the run may use, e.g. `0-3,8` (default: all this process may run on).
    #[arg(long)]
    pub cpus: Option<String>,
    /// Directory for results.json (default: overhead-results/<host>-<UTC time>/); refused if it already
    /// holds a results.json.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write these exports next to results.json (repeat or separate by commas): `csv`
    /// (results.csv), `bmf` (results.bmf.json, Bencher Metric Format), `github-benchmark`
    /// (results.github-benchmark.json, github-action-benchmark's customSmallerIsBetter).
    #[arg(long, value_delimiter = ',', value_parser = formats_where(|f| f.export_file_name().is_some()))]
    pub export: Vec<OutputFormat>,
    /// Measure the plan on this side too, each point's processes for the sides back to back in every round
    /// (give two or more; the first is the baseline the others are compared with): `NAME=[KEY=VALUE ...]
    /// [PATH]`, as `env` writes a command — environment settings for the side's probe processes, then the
    /// `overhead` binary they run (this one when left out). E.g. `--side old=./overhead-old --side new=`,
    /// `--side one='GOMAXPROCS=1' --side all=`. The budget and the deadline grow with the sides.
    #[arg(long, value_name = "NAME=[KEY=VALUE ...] [PATH]")]
    pub side: Vec<String>,
    /// Do not add this run to the machine's history ($XDG_DATA_HOME/overhead/history.sqlite), nor read
    /// the history for how far each point moves between runs or what its processes cost here.
    #[arg(long)]
    pub no_history: bool,
    /// Measure across these hosts too (mpirun's host list, `H1,H2,…`; H1 is this machine): the
    /// `placement:other_host` points of msg.ipc, msg.bw, rpc.methods and the mpi runtime, the host matrix
    /// (mpi.hosts) and Souvatzis's networked case. Ranks are started by an MPI launcher (OpenMPI's mpirun or
    /// MPICH's mpiexec on PATH, or OVERHEAD_MPIRUN); `overhead` must be at the same path on every host.
    #[arg(long, value_name = "H1,H2,…", conflicts_with = "hostfile")]
    pub hosts: Option<String>,
    /// The hosts from a file (one per line, mpirun's hostfile format; `slots=` is ignored).
    #[arg(long, value_name = "FILE")]
    pub hostfile: Option<PathBuf>,
    /// An argument for the MPI launcher, passed unchanged before the program (repeat for several, in order):
    /// e.g. `--launcher-arg=--mca --launcher-arg=plm_rsh_agent --launcher-arg=/path/agent`.
    #[arg(long = "launcher-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub launcher_args: Vec<String>,
    #[command(flatten)]
    pub time: TimeArgs,
}

#[derive(Debug, clap::Args)]
pub struct TimeArgs {
    /// Time source: the invariant TSC when available, or clock_gettime(CLOCK_MONOTONIC_RAW).
    #[arg(long, value_enum, default_value_t = TimeSourceChoice::Auto)]
    pub time_source: TimeSourceChoice,
}

/// The user's choice of time source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TimeSourceChoice {
    /// The TSC (aarch64: the virtual counter) when invariant, else clock_gettime.
    Auto,
    /// Always clock_gettime(CLOCK_MONOTONIC_RAW).
    Clock,
}

#[derive(Debug, clap::Args)]
pub struct CrosscheckArgs {
    /// Rounds: each runs every installed peer and one process of each of our matching points, in an order
    /// drawn afresh (at least 2).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// A built crossbeam-channel benchmark program (`crossbeam-channel`, `mpsc` or `flume` from
    /// crossbeam-channel/benchmarks; repeat for several).
    #[arg(long, value_name = "PATH")]
    pub crossbeam: Vec<PathBuf>,
    /// Directory for results.json (default: overhead-results/crosscheck-<host>-<UTC time>/); refused if it holds a record.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub time: TimeArgs,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub time: TimeArgs,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A results.json written by `overhead run`.
    pub record: PathBuf,
    /// `table`, `md` and `html` render the report; `csv`, `bmf` and `github-benchmark` export every point (median
    /// and 95% CI in ns) for spreadsheets and CI dashboards.
    #[arg(long, default_value = "table", value_parser = formats_where(|_| true))]
    pub format: OutputFormat,
    /// Which table: `all` (the full report: header, every point, skipped points and every section) or one
    /// section alone.
    #[arg(long, default_value = "all", value_parser = report_tables())]
    pub table: String,
}

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Records written by `overhead run` (or plain Google Benchmark files): the first is the baseline. A
    /// side may be several records of one configuration joined by commas (`a1.json,a2.json,a3.json`):
    /// replicates, from which the run level is estimated. One record of a run with `--side`: its sides,
    /// each against its baseline from the processes measured next to each other.
    #[arg(required = true, num_args = 1.., value_name = "RECORD[,RECORD…]")]
    pub records: Vec<String>,
    /// Do not read the machine's history for the run level: use the replicates given, else the measured
    /// defaults (labelled "assumed").
    #[arg(long)]
    pub no_history: bool,
    /// `table` and `md` print the changes as text; `html` writes one self-contained page.
    #[arg(long, default_value = "table", value_parser = formats_where(|f| for_comparison(f).is_some()))]
    pub format: OutputFormat,
    /// Exit 1 when a family is flagged slower than the baseline by at least PCT percent (default 5): a gate
    /// for CI. `slower` or `slower:PCT`.
    #[arg(long, value_name = "slower[:PCT]")]
    pub fail_on: Option<String>,
    /// With --fail-on: a flagged point that slow fails too, not only a family.
    #[arg(long, requires = "fail_on")]
    pub fail_on_points: bool,
    /// With --fail-on: fail too when more than PCT percent of the points could not be judged (too few
    /// processes on a side, an interval reaching zero, different host states, missing on a side). Without it,
    /// stderr still says how many points the gate judged.
    #[arg(long, requires = "fail_on", value_name = "PCT")]
    pub fail_on_unjudged: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// Every machine's runs, not only this machine's.
    #[arg(long)]
    pub all_machines: bool,
    /// Remove the listed runs (this machine's, or every machine's with --all-machines) from the history.
    #[arg(long)]
    pub clear: bool,
}

/// A `--format` or `--export` parser that takes the formats `supported` admits, by their names (clap's
/// error for any other lists the ones it takes, exit 2), and `--help` lists them with their help.
fn formats_where(
    supported: impl Fn(OutputFormat) -> bool,
) -> impl clap::builder::TypedValueParser<Value = OutputFormat> {
    use clap::builder::TypedValueParser as _;
    use clap::ValueEnum as _;
    let names = OutputFormat::ALL.into_iter().filter(|&f| supported(f)).filter_map(|f| f.to_possible_value());
    clap::builder::PossibleValuesParser::new(names).try_map(|name| OutputFormat::from_str(&name, false))
}

/// The `--table` values: `all`, then every report section's key with its one line of help.
fn report_tables() -> clap::builder::PossibleValuesParser {
    let all = clap::builder::PossibleValue::new("all").help("the full report");
    let summary = clap::builder::PossibleValue::new("summary").help("the one screen `overhead run` prints at the end");
    let sections = overhead_report::SECTIONS.iter().map(|s| {
        let old = overhead_report::SECTION_ALIASES.iter().filter(|(_, current)| *current == s.key).map(|(old, _)| *old);
        clap::builder::PossibleValue::new(s.key).help(s.about).aliases(old)
    });
    clap::builder::PossibleValuesParser::new([all, summary].into_iter().chain(sections))
}

impl RunArgs {
    /// The mode the flags select.
    pub fn mode(&self) -> Mode {
        match (self.quick, self.full) {
            (true, _) => Mode::Quick,
            (_, true) => Mode::Full,
            _ => Mode::Default,
        }
    }
}

/// An error that is the user's input, not a failure while working: exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

/// Parses the command line and runs the command. `build` is what the binary was built from (its build script's
/// stamp), written into every record a run makes.
pub fn main(build: &BuildStamp) -> ExitCode {
    let cli = Cli::parse();
    if matches!(cli.command, Command::List | Command::Report(_) | Command::Compare(_) | Command::History(_)) {
        quiet_on_closed_pipe();
    }
    let result = match cli.command {
        Command::Run(args) => run::run(*args, build),
        Command::List => list::list(),
        Command::Check(args) => check::check(args),
        Command::Report(args) => report::report(args),
        Command::Compare(args) => compare::compare(args),
        Command::History(args) => history::history(args),
        Command::Crosscheck(args) => crosscheck::crosscheck(args, build),
        Command::Probe { job } => probe::probe(&job),
        Command::About => probe::about(build),
        Command::ScaleSide { args } => match scale_side::scale_side(&args) {
            Ok(()) => Ok(ExitCode::SUCCESS),
            Err(e) => Err(UsageError(e).into()),
        },
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// For the commands that only print (`list`, `report`, `compare`): a reader that stops early (`| head`)
/// ends the process quietly, as it ends `cat`, instead of a panic on a broken pipe. Not for `run`, which
/// must keep its record whatever happens to its output.
fn quiet_on_closed_pipe() {
    // SAFETY: setting SIGPIPE's disposition to the default, before any thread is started, is a plain
    // system call with no memory handed over. Rust sets it to ignore at startup; this undoes that.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}
