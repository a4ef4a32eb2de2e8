//! `overhead check`: the harness's own health on this machine.

use std::process::ExitCode;

use serde::Serialize;

use super::{CheckArgs, TimeSourceChoice};
use overhead_clock::{calibrate, Calibration, Ticks, TimeSourceInfo};
use overhead_experiments::empty_loop;
use overhead_harness::{chain_batch, Harness, HarnessConfig, Mode};
use overhead_humanize::format_ns;
use overhead_machine::{pin_current_thread, MachineInfo};

/// Links in the known-cost chain: long enough that one operation dwarfs the loop around it.
const CHAIN_LINKS: u64 = 1000;

/// What `check` found. JSON keys are public: scripts read `linearity_ratio` and `control_cost_ns`.
#[derive(Debug, Serialize)]
pub struct HealthReport {
    pub time_source: TimeSourceInfo,
    /// CPU the checks ran on, and whether pinning to it was allowed.
    pub cpu: usize,
    pub pinned: bool,
    /// Per-iteration cost of the empty control loop (ns).
    pub control_cost_ns: f64,
    /// Cost of one known-cost operation, a dependent chain of `CHAIN_LINKS` xorshift-multiply steps
    /// (`harness::chain`), in ns.
    pub known_cost_ns: f64,
    /// Median time of a 2N batch over median time of an N batch of the known-cost operation; 2.00 means
    /// time is additive at this batch size.
    pub linearity_ratio: f64,
    /// Relative spread of the known-cost samples: MAD / median, in percent.
    pub noise_pct: f64,
    /// Relative 95% CI half-width of the known-cost median, in percent.
    pub ci_half_width_pct: f64,
    pub warnings: Vec<String>,
    /// Which kernel and hardware counters a point's counts can have here, and why any is absent
    /// (docs/METHOD.md §18).
    pub counters: Vec<CounterCheck>,
    /// The kernel's tick (ns), at which it samples the user/kernel split of CPU time.
    pub accounting_tick_ns: Option<u64>,
}

/// One counter of [`overhead_machine::CounterKind`]: its record name and why it is absent, if it is.
#[derive(Debug, Serialize)]
pub struct CounterCheck {
    /// The name in a point's `counts` (`cs` → `cs_per_op`).
    pub counter: &'static str,
    /// Whether a point can count it here.
    pub available: bool,
    /// Why not, in the kernel's words; absent where it counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_absent: Option<String>,
}

/// Runs the checks and prints a table, or JSON with `--json`.
pub fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let report = health(args.time.time_source == TimeSourceChoice::Clock);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_table(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn health(force_clock_gettime: bool) -> HealthReport {
    let machine = MachineInfo::detect();
    let cpu = machine.allowed_cpus.first().copied().unwrap_or(0);
    let pin = pin_current_thread(cpu);
    let time_source = calibrate(force_clock_gettime, Calibration::DEFAULT);
    let h = Harness::new(&time_source, HarnessConfig::for_mode(Mode::Default));

    let control = h.measure(empty_loop, |_| {});
    let control_cost_ns = control.summary().map_or(f64::NAN, |s| s.median);
    let known_op = chain_batch(CHAIN_LINKS);
    let known = h.measure(known_op, empty_loop);
    let known_summary = known.summary();
    let known_cost_ns = known_summary.as_ref().map_or(f64::NAN, |s| s.median);
    let linearity_ratio = linearity(&h, known.batch_ops, known_op);

    let mut warnings = machine.timing_warnings();
    if let Err(e) = &pin {
        warnings.push(format!("Pinning to CPU {cpu} was refused ({e}); multi-CPU placements cannot be controlled."));
    }
    if (linearity_ratio - 2.0).abs() > 0.1 {
        warnings.push(format!(
            "Linearity ratio {linearity_ratio:.3} is outside 2.00 ± 0.10: batch times are not additive here."
        ));
    }
    let (noise_pct, ci_half_width_pct) = known_summary
        .map_or((f64::NAN, f64::NAN), |s| (100.0 * s.mad / s.median, 100.0 * s.ci_half_width() / s.median));
    if ci_half_width_pct > 5.0 {
        warnings.push(format!(
            "Noise: a steady operation's CI is ±{ci_half_width_pct:.1}% of its median; expect `noisy` points."
        ));
    }
    let counters: Vec<CounterCheck> = overhead_machine::ThreadCounters::availability()
        .into_iter()
        .map(|(kind, why)| CounterCheck { counter: kind.name(), available: why.is_none(), why_absent: why })
        .collect();
    if let Some(why) = counters.iter().find_map(|c| c.why_absent.as_ref().filter(|_| c.counter == "cs")) {
        warnings.push(format!(
            "The measuring thread's context switches, migrations and faults are absent ({why}); runs go on without \
             them and count the process's switches and CPU time."
        ));
    }
    HealthReport {
        counters,
        accounting_tick_ns: overhead_machine::accounting_tick_ns(),
        time_source,
        cpu,
        pinned: pin.is_ok(),
        control_cost_ns,
        known_cost_ns,
        linearity_ratio,
        noise_pct,
        ci_half_width_pct,
        warnings,
    }
}

/// Median ticks of 2N-operation batches over median ticks of N-operation batches, interleaved (N, 2N, N,
/// 2N, …; the harness's pairs, no warm-up).
fn linearity<C: Ticks, F: FnMut(u64) + Copy>(h: &Harness<C>, n: u64, op: F) -> f64 {
    let (mut single_op, mut double_op) = (op, op);
    let (single, double) =
        h.paired_ticks((&mut single_op, n), (&mut double_op, 2 * n), 0, h.config.repetitions, &mut |_| {});
    let median = |v: &[u64]| {
        let v: Vec<f64> = v.iter().map(|&t| t as f64).collect();
        overhead_stats::Summary::of(&v).map_or(f64::NAN, |s| s.median)
    };
    median(&double) / median(&single)
}

fn print_table(r: &HealthReport) {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(["check", "value"]);
    let t = &r.time_source;
    let rows = [
        ("time source", format!("{:?} — {}", t.clock.kind, t.reason)),
        ("rate", format!("{:.3} MHz", t.clock.hz / 1e6)),
        ("calibration error", format!("±{:.2} ppm", t.calibration_error_ppm)),
        ("read cost", format_ns(t.read_cost_ns)),
        ("resolution", format_ns(t.resolution_ns)),
        ("CPU (pinned)", format!("{} ({})", r.cpu, if r.pinned { "yes" } else { "refused" })),
        ("control cost (empty loop, per iteration)", format_ns(r.control_cost_ns)),
        ("known-cost op (1000-link dependent chain)", format_ns(r.known_cost_ns)),
        ("linearity ratio t(2N)/t(N)", format!("{:.3}", r.linearity_ratio)),
        ("noise (MAD/median)", format!("{:.2}%", r.noise_pct)),
        ("CI half-width / median", format!("{:.2}%", r.ci_half_width_pct)),
    ];
    for (k, v) in rows {
        table.add_row([k.to_string(), v]);
    }
    // The counters: those a point counts here on one row, each absent one with why (the same reason once).
    let available: Vec<&str> = r.counters.iter().filter(|c| c.available).map(|c| c.counter).collect();
    table.add_row([
        "counters per operation".to_string(),
        if available.is_empty() { "none".into() } else { available.join(", ") },
    ]);
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for c in &r.counters {
        if let Some(why) = &c.why_absent {
            match reasons.iter_mut().find(|(w, _)| w == why) {
                Some((_, names)) => names.push(c.counter),
                None => reasons.push((why, vec![c.counter])),
            }
        }
    }
    for (why, names) in reasons {
        table.add_row([format!("absent: {}", names.join(", ")), why.to_string()]);
    }
    if let Some(tick) = r.accounting_tick_ns {
        table.add_row(["kernel tick (samples user/kernel time)".to_string(), format_ns(tick as f64)]);
    }
    println!("{table}");
    for w in &r.warnings {
        println!("warning: {w}");
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use overhead_clock::Clock;
    use overhead_harness::testing::{scripted_config, scripted_harness, ScriptedClock};

    /// Linearity alternates batches of N and 2N, one pair per repetition, and divides the medians: exactly 2
    /// when a batch costs only its operations, less when every batch also pays a fixed cost (a read of 100
    /// ticks: 1100 / 600).
    #[test]
    fn linearity_is_the_ratio_of_interleaved_2n_and_n_batches() {
        let clock = ScriptedClock::new(1e9);
        let h = scripted_harness(clock, scripted_config(&clock, 1000.0, 1, 3));
        let sizes = RefCell::new(Vec::new());
        let op = |n: u64| {
            sizes.borrow_mut().push(n);
            clock.ops(5)(n)
        };
        assert_eq!(linearity(&h, 100, op), 2.0);
        assert_eq!(*sizes.borrow(), vec![100, 200, 100, 200, 100, 200], "no warm-up, N then 2N");
        let clock = clock.with_read_ticks(100);
        let h = scripted_harness(clock, scripted_config(&clock, 1000.0, 1, 3));
        assert_eq!(linearity(&h, 100, clock.ops(5)), 1100.0 / 600.0);
    }

    /// Scripts read `overhead check --json`: its top-level keys stay these, in this order.
    #[test]
    fn the_json_keys_are_the_published_ones() {
        let report = HealthReport {
            time_source: TimeSourceInfo {
                clock: Clock::MONOTONIC_RAW,
                reason: "requested".into(),
                calibration_error_ppm: 0.0,
                read_cost_ns: 20.0,
                resolution_ns: 1.0,
            },
            cpu: 0,
            pinned: true,
            control_cost_ns: 0.3,
            known_cost_ns: 1000.0,
            linearity_ratio: 2.0,
            noise_pct: 1.0,
            ci_half_width_pct: 0.5,
            warnings: vec![],
            counters: vec![CounterCheck { counter: "cycles", available: false, why_absent: Some("no PMU".into()) }],
            accounting_tick_ns: Some(4_000_000),
        };
        let json = serde_json::to_string_pretty(&report).unwrap();
        let expected = [
            "time_source",
            "cpu",
            "pinned",
            "control_cost_ns",
            "known_cost_ns",
            "linearity_ratio",
            "noise_pct",
            "ci_half_width_pct",
            "warnings",
            "counters",
            "accounting_tick_ns",
        ];
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let mut keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut sorted = expected;
        sorted.sort_unstable();
        assert_eq!(keys, sorted);
        let at = |key: &str| json.find(&format!("\n  \"{key}\": ")).unwrap_or_else(|| panic!("{key} in {json}"));
        assert!(expected.windows(2).all(|w| at(w[0]) < at(w[1])), "keys out of order: {json}");
    }
}
