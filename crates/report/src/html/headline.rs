//! The HTML report's headline: a dozen of this machine's key costs, each a point of the record with its
//! median and 95% CI, chosen so that a reader sees at a glance what the kernel, the runtimes and the
//! memory system charge (the lmbench summary table's idea: a few numbers that characterise a machine).

use serde::Serialize;

use crate::format_ns;
use crate::table::flags_of;
use overhead_machine::Placement;
use overhead_record::{PointRecord, RunRecord};

/// Which of the matching points a key cost shows.
#[derive(Clone, Copy)]
enum Pick {
    /// The one point with these parameters.
    Only,
    /// The point with the most threads: contention as large as this machine makes it.
    MostThreads,
    /// A point whose two parties sit on different CPUs (the first placement other than `same_cpu`).
    OtherCpu,
}

/// One key cost: where it comes from in the record.
struct KeyCost {
    label: &'static str,
    experiment: &'static str,
    runtime: &'static str,
    params: &'static [(&'static str, &'static str)],
    pick: Pick,
    /// The point's value times this (½ turns a round trip into one way).
    scale: f64,
}

/// The headline's costs, in reading order: the kernel, the clock, switches, creation, IPC, memory.
const KEY_COSTS: &[KeyCost] = &[
    KeyCost {
        label: "system call (getppid)",
        experiment: overhead_schema::experiments::base::SYSCALL,
        runtime: "os",
        params: &[],
        pick: Pick::Only,
        scale: 1.0,
    },
    KeyCost {
        label: "clock read (clock_gettime MONOTONIC)",
        experiment: overhead_schema::experiments::clock::READ,
        runtime: "os",
        params: &[("source", "clock_gettime_monotonic")],
        pick: Pick::Only,
        scale: 1.0,
    },
    KeyCost {
        label: "futex handoff round trip, same CPU",
        experiment: overhead_schema::experiments::sched::SWITCH,
        runtime: "os",
        params: &[("mechanism", "futex"), ("placement", "same_cpu")],
        pick: Pick::Only,
        scale: 1.0,
    },
    KeyCost {
        label: "futex handoff round trip, other CPU",
        experiment: overhead_schema::experiments::sched::SWITCH,
        runtime: "os",
        params: &[("mechanism", "futex")],
        pick: Pick::OtherCpu,
        scale: 1.0,
    },
    KeyCost {
        label: "thread create + join",
        experiment: overhead_schema::experiments::spawn::CREATE,
        runtime: "os",
        params: &[("kind", "thread")],
        pick: Pick::Only,
        scale: 1.0,
    },
    KeyCost {
        label: "process fork + wait",
        experiment: overhead_schema::experiments::spawn::CREATE,
        runtime: "os",
        params: &[("kind", "process")],
        pick: Pick::Only,
        scale: 1.0,
    },
    KeyCost {
        label: "fiber switch round trip",
        experiment: overhead_schema::experiments::sched::SWITCH,
        runtime: "fiber-asm",
        params: &[],
        pick: Pick::Only,
        scale: 1.0,
    },
    KeyCost {
        label: "tokio task spawn + join",
        experiment: overhead_schema::experiments::spawn::CREATE,
        runtime: "tokio",
        params: &[("kind", "task")],
        pick: Pick::Only,
        scale: 1.0,
    },
    KeyCost {
        label: "pipe round trip, 8 B",
        experiment: overhead_schema::experiments::msg::IPC,
        runtime: "os",
        params: &[("transport", "pipe"), ("payload", "8")],
        pick: Pick::OtherCpu,
        scale: 1.0,
    },
    KeyCost {
        label: "cache line, core to core, one way",
        experiment: overhead_schema::experiments::mem::C2C,
        runtime: "os",
        params: &[("op", "cas")],
        pick: Pick::Only,
        scale: 0.5,
    },
    KeyCost {
        label: "contended atomic add",
        experiment: overhead_schema::experiments::sync::FAA,
        runtime: "os",
        params: &[("impl", "hw"), ("variable", "shared")],
        pick: Pick::MostThreads,
        scale: 1.0,
    },
    KeyCost {
        label: "barrier episode (spin barrier)",
        experiment: overhead_schema::experiments::sync::BARRIER,
        runtime: "os",
        params: &[("impl", "spin")],
        pick: Pick::MostThreads,
        scale: 1.0,
    },
];

/// A key cost as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Headline {
    pub label: String,
    /// The median, formatted (`78.2 ns`).
    pub value: String,
    /// The 95% CI, formatted (`72.1 – 84.0 ns`).
    pub ci: String,
    /// What else the reader needs: the thread count or placement chosen, the metric.
    pub detail: String,
    /// The point's name (the anchor of its row in the table of every point).
    pub point: String,
    /// The point's flags (`noisy`, `unstable`, `<res`, `slow`).
    pub flags: Vec<&'static str>,
}

/// The headline of `record`: every key cost, each from its point or marked as not measured.
/// The key costs the record measured, each from its point; no card for one it did not measure. A record
/// that measured none of them (a run narrowed by `--only` or `--runtime`: a JDK's runtimes alone) shows the
/// cheapest point of each family it has instead, so the page never opens on empty cards.
pub fn headline(record: &RunRecord) -> Vec<Headline> {
    let curated: Vec<Headline> = KEY_COSTS.iter().filter_map(|key| Some(show(key, find(record, key)?))).collect();
    if !curated.is_empty() {
        return curated;
    }
    cheapest_per_family(record)
}

/// The cheapest point of each family, in the order the families first appear, leaving out points that are
/// no cost (`<res`).
fn cheapest_per_family(record: &RunRecord) -> Vec<Headline> {
    let mut families: Vec<&str> = Vec::new();
    for p in &record.points {
        if !families.contains(&p.spec.family()) {
            families.push(p.spec.family());
        }
    }
    families
        .into_iter()
        .filter_map(|family| {
            let cheapest = record
                .points
                .iter()
                .filter(|p| p.spec.family() == family && !p.below_resolution && p.summary.median > 0.0)
                .min_by(|a, b| a.summary.median.total_cmp(&b.summary.median))?;
            let key = KeyCost { label: "", experiment: "", runtime: "", params: &[], pick: Pick::Only, scale: 1.0 };
            let mut card = show(&key, cheapest);
            card.label = format!("{family}: its cheapest point");
            card.detail = [card.detail.as_str(), cheapest.name.as_str()]
                .into_iter()
                .filter(|d| !d.is_empty())
                .collect::<Vec<_>>()
                .join(", ");
            Some(card)
        })
        .collect()
}

fn matches(p: &PointRecord, key: &KeyCost) -> bool {
    p.spec.experiment == key.experiment
        && p.spec.runtime == key.runtime
        && key.params.iter().all(|(k, v)| p.spec.param(k) == Some(*v))
}

/// The team size of a point whose experiment has a `threads` parameter (`sync.faa`, `sync.barrier`, …).
fn threads(p: &PointRecord) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Team {
        threads: Option<u64>,
    }
    p.spec.params_as::<Team>().ok()?.threads
}

fn find<'a>(record: &'a RunRecord, key: &KeyCost) -> Option<&'a PointRecord> {
    let mut candidates = record.points.iter().filter(|p| matches(p, key));
    match key.pick {
        Pick::Only => candidates.next(),
        Pick::MostThreads => candidates.max_by_key(|p| threads(p).unwrap_or(0)),
        Pick::OtherCpu => candidates.find(|p| p.spec.placement.is_some_and(|pl| pl != Placement::SameCpu)),
    }
}

fn show(key: &KeyCost, p: &PointRecord) -> Headline {
    let s = &p.summary;
    let mut detail = Vec::new();
    if let Some(t) = threads(p) {
        detail.push(format!("{t} threads"));
    }
    if let Some(pl) = p.spec.placement.filter(|_| matches!(key.pick, Pick::OtherCpu)) {
        detail.push(pl.name().replace('_', " "));
    }
    if key.scale != 1.0 {
        detail.push("half the round trip".into());
    }
    if let Some(state) = p.by_state.as_ref().filter(|b| b.differs).and_then(|b| b.states.first()) {
        let others: Vec<String> = p
            .by_state
            .iter()
            .flat_map(|b| &b.states[1..])
            .map(|s| format!("{} in the {} state", format_ns(s.median * key.scale), format_ns(s.rtt_ns)))
            .collect();
        detail.push(format!(
            "host state {} round trip ({:.0}% of the processes; {})",
            format_ns(state.rtt_ns),
            state.share * 100.0,
            others.join(", ")
        ));
    }
    Headline {
        label: key.label.into(),
        value: format_ns(s.median * key.scale),
        ci: crate::interval::point_interval(p, key.scale),
        detail: detail.join(", "),
        point: p.name.clone(),
        // `notes` is left to the point's row: the card shows what bears on the number.
        flags: flags_of(p).into_iter().filter(|f| *f != "notes").collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};

    #[test]
    fn a_record_of_other_runtimes_shows_each_familys_cheapest_point_and_no_empty_card() {
        let mut record = sample_record();
        record.points = vec![
            point("sched.switch", "java-virtual", &[("mechanism", "park")], 900.0),
            point("sched.switch", "java-platform", &[("mechanism", "park")], 5000.0),
            point("msg.rendezvous", "java-virtual", &[], 700.0),
        ];
        let h = headline(&record);
        assert_eq!(h.len(), 2, "one card per family");
        assert_eq!((h[0].label.as_str(), h[0].value.as_str()), ("sched: its cheapest point", "900 ns"));
        assert!(h[0].detail.contains("sched.switch/runtime:java-virtual"), "{}", h[0].detail);
        assert!(h.iter().all(|k| !k.value.is_empty()));
    }

    #[test]
    fn every_key_cost_measured_is_shown_and_none_is_empty() {
        let mut record = sample_record();
        record.points = vec![
            point("sync.faa", "os", &[("impl", "hw"), ("variable", "shared"), ("threads", "1")], 3.0),
            point("sync.faa", "os", &[("impl", "hw"), ("variable", "shared"), ("threads", "2")], 30.0),
            point("mem.c2c", "os", &[("op", "cas")], 80.0),
            point("sched.switch", "os", &[("mechanism", "futex"), ("placement", "same_cpu")], 6000.0),
            point("sched.switch", "os", &[("mechanism", "futex"), ("placement", "other_core")], 13000.0),
        ];
        let h = headline(&record);
        assert_eq!(h.len(), 4, "the four key costs this record measured, no empty card");
        let faa = h.iter().find(|k| k.label == "contended atomic add").unwrap();
        assert_eq!((faa.value.as_str(), faa.detail.as_str()), ("30.0 ns", "2 threads"), "the most threads");
        let c2c = h.iter().find(|k| k.label.starts_with("cache line")).unwrap();
        assert_eq!(c2c.value, "40.0 ns", "one way is half the round trip");
        let other = h.iter().find(|k| k.label.ends_with("other CPU")).unwrap();
        assert_eq!((other.value.as_str(), other.detail.as_str()), ("13.0 µs", "other core"));
        assert!(!h.iter().any(|k| k.label.starts_with("system call")), "not measured, so no card");
    }
}
