//! The history under concurrent writers, damage and its bound.

use std::collections::BTreeMap;

use super::*;
use overhead_record::PointRunSummary;

fn summary(machine: &str, options: &str, median: f64) -> RunSummary {
    let points: BTreeMap<String, PointRunSummary> = [(
        "base.loop/runtime:os".to_string(),
        PointRunSummary { median_ns: median, ci_low_ns: median * 0.99, ci_high_ns: median * 1.01, processes: 5 },
    )]
    .into();
    RunSummary {
        label: "r".into(),
        started_utc: "2026-11-25T12:00:00Z".into(),
        config: Some(RunConfig {
            machine: machine.into(),
            kernel: "k".into(),
            build: "b".into(),
            options: options.into(),
        }),
        speed_ns: Some(0.25),
        max_other_share: Some(0.01),
        max_steal_share: Some(0.0),
        points,
        process_wall_ms: BTreeMap::new(),
        host_state_rtt_ns: Default::default(),
    }
}

#[test]
fn runs_come_back_by_machine_and_group_by_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = History::open(&dir.path().join("h.sqlite")).unwrap();
    h.add(&summary("m1", "default", 1.0), "/r/1").unwrap();
    h.add(&summary("m1", "quick", 1.1), "/r/2").unwrap();
    h.add(&summary("m2", "default", 2.0), "/r/3").unwrap();
    let id = h.add(&summary("m1", "default", 1.2), "/r/4").unwrap();
    let m1 = h.load(Some("m1")).unwrap();
    assert_eq!(m1.entries.len(), 3);
    assert_eq!(m1.entries[2].summary.points["base.loop/runtime:os"].median_ns, 1.2);
    assert_eq!(m1.entries.last().map(|e| e.id), Some(id), "ids grow with time");
    let groups = by_config(&m1.entries);
    assert_eq!(groups.iter().map(|g| g.1.len()).collect::<Vec<_>>(), [2, 1]);
    assert_eq!(h.load(None).unwrap().entries.len(), 4);
    assert_eq!(h.clear(Some("m1")).unwrap(), 3);
    assert_eq!(h.load(None).unwrap().entries.len(), 1);
}

#[test]
fn concurrent_writers_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    History::open(&path).unwrap();
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut h = History::open(&path).unwrap();
                for k in 0..15 {
                    h.add(&summary("m", "default", 1.0 + w as f64 + k as f64 / 100.0), &format!("/r/{w}/{k}")).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let loaded = History::open(&path).unwrap().load(Some("m")).unwrap();
    assert_eq!(loaded.entries.len(), 60);
    assert!(loaded.damaged.is_empty());
}

#[test]
fn a_damaged_entry_is_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let mut h = History::open(&path).unwrap();
    h.add(&summary("m", "default", 1.0), "/r/1").unwrap();
    h.connection
        .execute(
            "INSERT INTO runs (added_utc, record_path, machine, summary) VALUES ('x', '/r/2', 'm', '{\"label\": 5')",
            [],
        )
        .unwrap();
    h.connection
        .execute("INSERT INTO runs (added_utc, record_path, machine, summary) VALUES ('x', '/r/3', 'm', 7)", [])
        .unwrap();
    h.add(&summary("m", "default", 1.1), "/r/4").unwrap();
    let loaded = h.load(Some("m")).unwrap();
    assert_eq!(loaded.entries.len(), 2);
    assert_eq!(loaded.damaged.len(), 2, "{:?}", loaded.damaged);
    assert!(loaded.damaged[0].contains("/r/2") && loaded.damaged[1].contains("/r/3"));
}

#[test]
fn a_file_that_is_not_a_database_is_moved_aside_and_a_new_history_begun() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    std::fs::write(&path, vec![0x5a; 8192]).unwrap();
    let mut h = History::open(&path).unwrap();
    let notice = h.notice.clone().expect("a notice");
    assert!(notice.contains("moved to") && notice.contains("damaged"), "{notice}");
    h.add(&summary("m", "default", 1.0), "/r/1").unwrap();
    assert_eq!(h.load(None).unwrap().entries.len(), 1);
    let aside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("damaged"))
        .collect();
    assert_eq!(aside.len(), 1, "the damaged file is kept, not deleted");
    assert_eq!(std::fs::read(aside[0].path()).unwrap(), vec![0x5a; 8192]);
}

#[test]
fn the_history_keeps_the_newest_runs_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = History::open(&dir.path().join("h.sqlite")).unwrap();
    h.max_runs = 5;
    for k in 0..12 {
        h.add(&summary("m", "default", 1.0 + k as f64), &format!("/r/{k}")).unwrap();
    }
    let loaded = h.load(None).unwrap();
    assert_eq!(loaded.entries.len(), 5);
    assert_eq!(loaded.entries[0].record_path, "/r/7");
}

#[test]
fn the_default_path_follows_xdg_data_home() {
    // Read-only look at the variable: the path is under it when set.
    if let Some(base) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        assert_eq!(default_path().unwrap(), PathBuf::from(base).join("overhead/history.sqlite"));
    } else {
        assert!(default_path().is_none_or(|p| p.ends_with("overhead/history.sqlite")));
    }
}
