//! `overhead scale-side RECORD SIDE FACTOR OUT` (hidden): a copy of a record with sides in which one side's
//! per-operation times (after the control) are multiplied by a factor in every batch of every process, and
//! the analysis made again — the check of the paired analysis's power on real noise (docs/METHOD.md §17), and
//! a record the CI gate must fail (docs/ci.md). `scripts/scale-side` runs it from the release binary, so it
//! costs seconds, not a build.

use std::path::PathBuf;

use overhead_record::{load, write_atomic, PointRecord, RunRecord};

/// `RECORD SIDE FACTOR OUT`: read, scale, analyse, write.
pub fn scale_side(args: &[String]) -> Result<(), String> {
    let [record_path, side, factor, out] = args else {
        return Err(format!("expected RECORD SIDE FACTOR OUT, got {} argument(s)", args.len()));
    };
    let factor: f64 = factor
        .parse()
        .ok()
        .filter(|f: &f64| f.is_finite() && *f > 0.0)
        .ok_or_else(|| format!("FACTOR {factor:?}: expected a positive number, e.g. 1.05"))?;
    let out = PathBuf::from(out);
    if out.exists() {
        return Err(format!("OUT {}: already exists; a record is never replaced", out.display()));
    }
    let mut record = load(std::path::Path::new(record_path)).map_err(|e| format!("RECORD {record_path}: {e}"))?;
    scale(&mut record, side, factor)?;
    overhead_analysis::analyze(&mut record, &overhead_experiments::CATALOG);
    write_atomic(&out, &record).map_err(|e| format!("OUT {}: {e:#}", out.display()))
}

/// Multiplies every per-operation time of side `side`'s points by `factor`; in a record without sides, SIDE
/// `all` scales its points (the ×1.1 copy of a run that `overhead compare` is checked with, docs/METHOD.md §13).
fn scale(record: &mut RunRecord, side: &str, factor: f64) -> Result<(), String> {
    if record.sides.is_none() && side == "all" {
        scale_points(&mut record.points, factor);
        return Ok(());
    }
    let sides = record
        .sides
        .as_ref()
        .ok_or("RECORD: the record has no sides (a run with --side); SIDE `all` scales its points")?;
    let names: Vec<String> = sides.sides.iter().map(|s| s.spec.name.clone()).collect();
    let index =
        names.iter().position(|n| n == side).ok_or_else(|| format!("SIDE {side:?}: the sides are {names:?}"))?;
    let points: &mut Vec<PointRecord> = match index {
        0 => &mut record.points,
        i => &mut record.sides.as_mut().expect("checked above").sides[i].points,
    };
    scale_points(points, factor);
    Ok(())
}

/// Multiplies every per-operation time of `points` by `factor`.
fn scale_points(points: &mut [PointRecord], factor: f64) {
    for p in points {
        for s in &mut p.samples_ns {
            *s *= factor;
        }
        for process in &mut p.processes {
            process.median_ns *= factor;
        }
        let s = &mut p.summary;
        for v in [&mut s.median, &mut s.min, &mut s.max, &mut s.p10, &mut s.p90, &mut s.mad, &mut s.mean, &mut s.stddev]
        {
            *v *= factor;
        }
        (s.ci_low, s.ci_high) = (s.ci_low * factor, s.ci_high * factor);
    }
}
