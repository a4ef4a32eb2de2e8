//! `clock.convert`: what a tick↔ns conversion costs with each routine, and how far each is from the
//! exact result over intervals from 1 µs to 1 year (Kiszka 2006).

use std::collections::BTreeMap;
use std::hint::black_box;

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_convert::{input_max, worst_error, Direction, Imp, Prepared, QuantaPeer, Routine, NS_PER_S, RANGES};
use overhead_harness::{Harness, Measurement};
use overhead_record::{Details, LabelledTable, Metric};

/// Inputs a timed loop cycles through.
const INPUTS: usize = 64;

/// The rates of the accuracy table besides this machine's: 1 GHz and 4 GHz.
const OTHER_RATES: [(&str, u64); 2] = [("1 GHz", 1_000_000_000), ("4 GHz", 4_000_000_000)];

pub use overhead_schema::experiments::clock::ConvertResult;

pub use overhead_schema::experiments::clock::ConvertParams as Params;

/// row again in `extra` as `max_error_ns_<range>` (tick→ns) or `max_error_ticks_<range>` (ns→tick).
pub struct Convert;

impl Convert {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::clock::CONVERT;
}

impl Experiment for Convert {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Convert::ID,
            summary: "tick↔ns conversion routines: ns per conversion (identity loop subtracted), worst error per range",
            source:
                "Kiszka 2006 (conversion routines benchmarked with loop overhead compensated; accuracy for long intervals)",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        let mut out = Vec::new();
        for routine in Routine::ALL {
            for direction in Direction::ALL {
                let spec = ctx.spec_of(self.id(), runtime, &Params { routine, direction }, vec![ctx.home_cpu()]);
                out.push(match routine.unsupported(direction) {
                    Some(why) => Planned::Skip(spec, why.into()),
                    None => Planned::Run(spec),
                });
            }
        }
        out
    }

    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { routine, direction } = point.params()?;
        if let Some(why) = routine.unsupported(direction) {
            anyhow::bail!("{}: {why}", spec.name());
        }
        let hz = (h.clock.hz.round() as u64).max(1);
        let inputs = timing_inputs();
        let mut notes = Vec::new();
        let mut result = ConvertResult { hz: hz as f64, ..ConvertResult::default() };
        if h.clock.kind == overhead_clock::TimeSourceKind::ClockMonotonicRaw {
            notes.push("the time source is clock_gettime, whose ticks are ns: \"this machine\" is 1 GHz here".into());
        }
        let measurement = if routine == Routine::Quanta {
            let peer = QuantaPeer::new();
            quanta_notes(&peer, h, &mut notes, &mut result);
            timed(h, &inputs, |x| peer.ticks_to_ns(x))
        } else {
            let p = Prepared::new(routine, direction, hz).map_err(|e| anyhow::anyhow!("{}: {e}", spec.name()))?;
            describe_machine_rate(&p, &mut result);
            timed_prepared(h, &p, &inputs)
        };
        let mut details = Details::default();
        if routine != Routine::Quanta {
            let (found, bound) = accuracy_tables(routine, direction, hz);
            for (range, cell) in RANGES.iter().zip(&found.rows[0].1) {
                if let Some(v) = cell {
                    result.set_max_error(direction, range.key, *v);
                }
            }
            details.tables.insert("max_error".into(), found);
            details.tables.insert("error_bound".into(), bound);
        }
        Ok(Outcome { measurement, notes, extra: BTreeMap::new(), details }.with_result(&result))
    }
}

/// 64 inputs with 1 to 32 significant bits (each bit length twice, in a scrambled order): log-uniform
/// over `[1, 2^32)`, from a fixed SplitMix64-style sequence so every run converts the same values.
fn timing_inputs() -> [u64; INPUTS] {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    std::array::from_fn(|i| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let z = (state ^ (state >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let bits = (i * 37 % 32) as u32 + 1;
        (z >> (64 - bits)) | (1 << (bits - 1))
    })
}

/// Times `convert` over the inputs against the identity loop.
fn timed<F: Fn(u64) -> u64>(h: &Harness, inputs: &[u64; INPUTS], convert: F) -> Measurement {
    h.measure(
        |n| {
            let inputs = black_box(inputs);
            for i in 0..n {
                black_box(convert(inputs[i as usize % INPUTS]));
            }
        },
        |n| {
            let inputs = black_box(inputs);
            for i in 0..n {
                black_box(inputs[i as usize % INPUTS]);
            }
        },
    )
}

/// Times the routine's own function, monomorphised so its body is inlined into the loop as it would be
/// at a call site (Xenomai's and the kernel's routines are `static inline`).
fn timed_prepared(h: &Harness, p: &Prepared, inputs: &[u64; INPUTS]) -> Measurement {
    let ratio = p.ratio;
    match p.imp {
        Imp::Exact => timed(h, inputs, |x| ratio.exact(x) as u64),
        Imp::Naive(n) => timed(h, inputs, |x| n.apply(x)),
        Imp::Kernel(k) => timed(h, inputs, |x| k.apply(x)),
        Imp::Llmulshft(l) => timed(h, inputs, |x| l.apply(x)),
        Imp::NodivLlimd(f) => timed(h, inputs, |x| f.nodiv_llimd(x)),
        Imp::Imuldiv(i) => timed(h, inputs, |x| i.apply(x)),
        Imp::NodivImuldiv(f) => timed(h, inputs, |x| f.nodiv_imuldiv(x)),
        Imp::FastPath(c) => match p.direction {
            Direction::TickToNs => timed(h, inputs, |x| c.ticks_to_ns(x)),
            Direction::NsToTick => timed(h, inputs, |x| c.ns_to_ticks(x)),
        },
        Imp::F64(f) => timed(h, inputs, |x| f.apply(x)),
    }
}

/// The routine's constants and overflow point at this machine's rate, into `result`.
fn describe_machine_rate(p: &Prepared, result: &mut ConvertResult) {
    for (key, value) in p.constants() {
        result.by_name.insert(key.into(), value);
    }
    if p.max_input() < u64::MAX {
        result.max_input = Some(p.max_input() as f64);
    }
    if let Some(x) = p.overflow_input() {
        let per_second = match p.direction {
            Direction::TickToNs => p.hz,
            Direction::NsToTick => NS_PER_S,
        };
        result.overflow_input = Some(x as f64);
        result.overflow_s = Some(x as f64 / per_second as f64);
    }
}

/// What quanta's own calibration says, beside the harness's.
fn quanta_notes(peer: &QuantaPeer, h: &Harness, notes: &mut Vec<String>, result: &mut ConvertResult) {
    if peer.is_identity() {
        notes.push("quanta found no invariant TSC and uses its monotonic clock: its conversion is the identity".into());
        return;
    }
    let implied = peer.implied_hz();
    result.quanta_implied_hz = Some(implied);
    // Both calibrate the same TSC only when the harness reads the TSC too.
    let versus = if h.clock.kind == overhead_clock::TimeSourceKind::Tsc {
        let ppm = (implied / h.clock.hz - 1.0) * 1e6;
        result.quanta_vs_harness_ppm = Some(ppm);
        format!(", {ppm:+.1} ppm from the harness's")
    } else {
        String::new()
    };
    notes.push(format!(
        "quanta converts at its own calibrated rate ({implied:.0} Hz{versus}) and cannot be given one, so it is \
         timed at that rate and has no accuracy table"
    ));
}

/// The worst error found by search and the analytic bound, rows = rates (this machine, 1 GHz, 4 GHz),
/// columns = ranges. A cell is empty when the routine cannot be set up at that rate or the range is
/// past the inputs the routine takes (32-bit routines); `error_bound` is also empty past an overflow.
fn accuracy_tables(routine: Routine, direction: Direction, hz: u64) -> (LabelledTable, LabelledTable) {
    let unit = direction.output_unit();
    let columns: Vec<String> = RANGES.iter().map(|r| r.label.to_string()).collect();
    let mut found = LabelledTable {
        title: format!(
            "worst |{} − exact| ({unit}) over intervals up to each range, found by search (edges, structure, samples)",
            routine.name()
        ),
        unit: unit.into(),
        columns: columns.clone(),
        rows: Vec::new(),
    };
    let mut bound = LabelledTable {
        title: format!("analytic upper bound of |{} − exact| ({unit}); empty past an overflow", routine.name()),
        unit: unit.into(),
        columns,
        rows: Vec::new(),
    };
    let machine = format!("this machine ({hz} Hz)");
    let rates = std::iter::once((machine.as_str(), hz)).chain(OTHER_RATES);
    for (label, rate) in rates {
        let prepared = Prepared::new(routine, direction, rate).ok();
        let mut found_row = Vec::new();
        let mut bound_row = Vec::new();
        for range in RANGES {
            let x_max = input_max(direction, rate, range.ns);
            let cell = prepared.as_ref().filter(|p| x_max <= p.max_input());
            found_row.push(cell.map(|p| {
                let breakpoints: Vec<u64> =
                    [Some(u32::MAX as u64), Some(p.domain_max()), p.overflow_input()].into_iter().flatten().collect();
                worst_error(|x| p.apply(x), p.ratio, x_max, &breakpoints).error as f64
            }));
            bound_row.push(cell.and_then(|p| p.error_bound(x_max)).map(|b| b as f64));
        }
        found.rows.push((label.to_string(), found_row));
        bound.rows.push((label.to_string(), bound_row));
    }
    (found, bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_span_every_bit_length_up_to_32() {
        let inputs = timing_inputs();
        let mut lengths: Vec<u32> = inputs.iter().map(|x| 64 - x.leading_zeros()).collect();
        assert!(inputs.iter().all(|&x| x >= 1 && x <= u32::MAX as u64));
        lengths.sort_unstable();
        lengths.dedup();
        assert_eq!(lengths, (1..=32).collect::<Vec<_>>());
        assert_eq!(timing_inputs(), inputs, "deterministic");
    }

    #[test]
    fn accuracy_table_shape_and_cells() {
        let (found, bound) = accuracy_tables(Routine::FastPath, Direction::TickToNs, 2_995_234_567);
        assert_eq!(found.rows.len(), 3);
        assert!(found.rows.iter().all(|(_, r)| r.len() == RANGES.len()));
        assert!(found.rows[0].0.contains("2995234567"));
        // the fast path is within 1 ns everywhere, and its bound says so
        assert!(found.rows.iter().flat_map(|(_, r)| r).all(|c| c.is_some_and(|v| v <= 1.0)));
        assert!(bound.rows.iter().flat_map(|(_, r)| r).all(|c| *c == Some(1.0)));
        // a 32-bit routine has no cell past 2^32 inputs: 1 min of ns is 6e10
        let (found, _) = accuracy_tables(Routine::NodivImuldiv, Direction::NsToTick, 2_995_234_567);
        assert!(found.rows[0].1[2].is_some() && found.rows[0].1[3].is_none(), "{:?}", found.rows[0]);
        // the kernel's 600 s factor drifts: at 1 h it is far more than 1 ns off at this odd rate
        let (found, bound) = accuracy_tables(Routine::Kernel, Direction::TickToNs, 2_995_234_567);
        let (f, b) = (found.rows[0].1[4].unwrap(), bound.rows[0].1[4].unwrap());
        assert!(f > 1000.0 && f <= b, "found {f} bound {b}");
    }
}
