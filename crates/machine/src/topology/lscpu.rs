//! A topology described in text: the output of `lscpu -p` (util-linux), optionally followed by that of
//! `lscpu -C` for the cache sizes. It describes a machine the tool does not run on, for `overhead run --plan
//! --simulate` (docs/METHOD.md "The schedule, simulated"): one line per logical CPU, present on every Linux,
//! short enough to paste into an issue, and (unlike a sysfs snapshot or hwloc XML) written by hand in a minute
//! for a machine one only has the datasheet of.
//!
//! The `lscpu -p` part: `#` comment lines, the last of which before the data names the columns
//! (`# CPU,Core,Socket,Node,,L1d,L1i,L2,L3`), then one comma-separated line per CPU. `CPU` is required; a
//! missing or empty `Core` makes the CPU a core of its own, `Socket` and `Node` default to 0. The cache
//! columns (`L1d`, `L1i`, `L2`, `L3`, or one column `L1d:L1i:L2:L3` whose values are colon-separated, as
//! `lscpu -p=CPU,CORE,SOCKET,NODE,CACHE` writes them) give each CPU's cache instance per level: the
//! highest-level data or unified one is the CPU's last-level cache.
//!
//! The optional `lscpu -C` part: a header line starting `NAME` with columns `ONE-SIZE`, `TYPE` and
//! `LEVEL`, then one line per cache (`L3 32M 64M 16 Unified 3 …`). Without it the topology lists no cache
//! sizes ([`Topology::caches`] empty, as when sysfs lists none).

use super::raw::{lone_core_key, RawCpu};
use super::{CacheInfo, Topology};

impl Topology {
    /// The topology `text` describes in `lscpu -p` form, with `lscpu -C`'s cache table after it if present
    /// (the module's documentation gives the format).
    ///
    /// Errors: no column header, no `CPU` column, a line with a field that is not a number where one is
    /// expected, no CPU at all, or a cache table line that does not read; each message names the line.
    pub fn from_lscpu(text: &str) -> Result<Topology, String> {
        let mut header: Option<Vec<String>> = None;
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut cache_table: Option<CacheTable> = None;
        let mut caches = Vec::new();
        for (n, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
            if line.is_empty() {
                continue;
            }
            if let Some(comment) = line.strip_prefix('#') {
                let names: Vec<String> = comment.split(',').map(|c| c.trim().to_string()).collect();
                if names.first().is_some_and(|c| c.eq_ignore_ascii_case("cpu")) {
                    header = Some(names);
                }
                continue;
            }
            if line.starts_with("NAME") {
                cache_table = Some(CacheTable::of_header(line).map_err(|e| format!("line {n}: {e}"))?);
                continue;
            }
            match &cache_table {
                Some(table) => caches.push(table.row(line).map_err(|e| format!("line {n}: {e}"))?),
                None if header.is_some() => rows.push(line.split(',').map(|f| f.trim().to_string()).collect()),
                None => return Err(format!("line {n}: a CPU line before the `# CPU,Core,Socket,…` header")),
            }
        }
        let header = header.ok_or("no `# CPU,Core,Socket,Node,…` header line (the output of `lscpu -p`)")?;
        let columns = Columns::of(&header)?;
        let raw: Vec<RawCpu> = rows.iter().map(|row| columns.raw_cpu(row)).collect::<Result<_, _>>()?;
        let caches = columns.sharing(&rows, caches);
        Topology::from_raw(raw, caches).ok_or_else(|| "no CPU line after the header".to_string())
    }
}

/// Where each field of an `lscpu -p` line is.
struct Columns {
    cpu: usize,
    core: Option<usize>,
    socket: Option<usize>,
    node: Option<usize>,
    /// Per cache column, its name (`L1d`, `L3`, …) and where its instance number is: the field, and the
    /// position within a colon-separated field (0 when it has a column of its own).
    caches: Vec<(String, usize, usize)>,
}

impl Columns {
    /// The columns `header` names.
    ///
    /// Errors: no `CPU` column.
    fn of(header: &[String]) -> Result<Columns, String> {
        let find = |name: &str| header.iter().position(|h| h.eq_ignore_ascii_case(name));
        let cpu = find("cpu").ok_or("the header names no CPU column")?;
        let mut caches = Vec::new();
        for (field, name) in header.iter().enumerate() {
            for (part, level) in name.split(':').enumerate() {
                // Bytes, not a str slice: a header's second character may be any UTF-8 (`# CPU,Lé`).
                if level.len() >= 2 && level.starts_with(['L', 'l']) && level.as_bytes()[1].is_ascii_digit() {
                    caches.push((level.to_string(), field, part));
                }
            }
        }
        Ok(Columns { cpu, core: find("core"), socket: find("socket"), node: find("node"), caches })
    }

    /// One CPU line as the builder's keys.
    ///
    /// Errors: a field that is not a number where one is expected, naming the CPU line.
    fn raw_cpu(&self, row: &[String]) -> Result<RawCpu, String> {
        let line = row.join(",");
        let number = |field: Option<usize>| -> Result<Option<i64>, String> {
            match field.and_then(|f| row.get(f)).map(String::as_str) {
                None | Some("") | Some("-") => Ok(None),
                Some(text) => {
                    text.parse::<i64>().map(Some).map_err(|_| format!("CPU line {line:?}: {text:?} is not a number"))
                }
            }
        };
        let cpu = number(Some(self.cpu))?.ok_or_else(|| format!("CPU line {line:?}: no CPU number"))?;
        let cpu = usize::try_from(cpu).map_err(|_| format!("CPU line {line:?}: a negative CPU number"))?;
        Ok(RawCpu {
            cpu,
            core_key: number(self.core)?.unwrap_or_else(|| lone_core_key(cpu)),
            package_key: number(self.socket)?.unwrap_or(0),
            numa_node: number(self.node)?.map_or(Ok(0), |n| usize::try_from(n).map_err(|_| format!("{line:?}")))?,
            llc_key: self.llc_key(row),
        })
    }

    /// The instance number of the row's last cache column that has one: the highest level is listed last,
    /// and `L1i` never is (lscpu lists `L1d,L1i,L2,L3`, so the last is a data or unified cache).
    fn llc_key(&self, row: &[String]) -> Option<i64> {
        self.caches.iter().rev().find_map(|(_, field, part)| self.instance(row, *field, *part))
    }

    /// The cache instance in field `field`, part `part`, of `row`.
    fn instance(&self, row: &[String], field: usize, part: usize) -> Option<i64> {
        row.get(field)?.split(':').nth(part)?.trim().parse().ok()
    }

    /// `caches` (from `lscpu -C`, named `L1d`, `L2`, …) with the number of CPUs sharing one instance, counted
    /// from the first CPU line's instance in the column of the same name (1 when no column names it).
    fn sharing(&self, rows: &[Vec<String>], caches: Vec<(String, CacheInfo)>) -> Vec<CacheInfo> {
        caches
            .into_iter()
            .map(|(name, mut cache)| {
                let column = self.caches.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(&name));
                if let (Some((_, field, part)), Some(first)) = (column, rows.first()) {
                    let mine = self.instance(first, *field, *part);
                    let sharing = rows.iter().filter(|r| self.instance(r, *field, *part) == mine).count();
                    cache.num_sharing = u32::try_from(sharing.max(1)).unwrap_or(u32::MAX);
                }
                cache
            })
            .collect()
    }
}

/// Where the name, size, type and level are in `lscpu -C`'s table.
struct CacheTable {
    name: usize,
    size: usize,
    kind: usize,
    level: usize,
}

impl CacheTable {
    /// The table's columns from its header line.
    ///
    /// Errors: a column among NAME, ONE-SIZE, TYPE, LEVEL is missing.
    fn of_header(line: &str) -> Result<CacheTable, String> {
        let names: Vec<&str> = line.split_whitespace().collect();
        let find = |want: &str| {
            names.iter().position(|n| *n == want).ok_or_else(|| format!("the `lscpu -C` header has no {want} column"))
        };
        Ok(CacheTable { name: find("NAME")?, size: find("ONE-SIZE")?, kind: find("TYPE")?, level: find("LEVEL")? })
    }

    /// One cache line: its name and what it is (shared by one CPU until [`Columns::sharing`] counts).
    ///
    /// Errors: a line too short, a size or level that does not read.
    fn row(&self, line: &str) -> Result<(String, CacheInfo), String> {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let field = |i: usize| fields.get(i).copied().ok_or_else(|| format!("cache line {line:?} is too short"));
        let size = size_bytes(field(self.size)?).ok_or_else(|| format!("cache line {line:?}: size unreadable"))?;
        let level = field(self.level)?.parse().map_err(|_| format!("cache line {line:?}: level is not a number"))?;
        let cache = CacheInfo { kind: field(self.kind)?.to_string(), level, size, num_sharing: 1 };
        Ok((field(self.name)?.to_string(), cache))
    }
}

/// `48K`, `1.3M`, `2G`, `512` (as `lscpu -C` writes sizes) in bytes; `None` for anything else.
fn size_bytes(text: &str) -> Option<u64> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale = match unit.trim_end_matches("iB").trim_end_matches('B') {
        "" => 1u64,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    let bytes = number.parse::<f64>().ok()? * scale as f64;
    (bytes.is_finite() && bytes >= 1.0).then_some(bytes as u64)
}

/// The distinct values of `f` over `topology`'s CPUs: for the tests' counts.
#[cfg(test)]
fn distinct(topology: &Topology, f: fn(&super::CpuInfo) -> Option<usize>) -> usize {
    use std::collections::BTreeSet;
    topology.cpus.iter().filter_map(f).collect::<BTreeSet<_>>().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Placement;

    /// Two packages of two cores with SMT (CPU n and n + 4 are siblings), one NUMA node and one L3 each;
    /// then `lscpu -C`'s table.
    const TWO_SOCKETS: &str = "\
# The following is the parsable format, which can be fed to other
# programs. Each different item in every column has an unique ID
# starting usually from zero.
# CPU,Core,Socket,Node,,L1d,L1i,L2,L3
0,0,0,0,,0,0,0,0
1,1,0,0,,1,1,1,0
2,2,1,1,,2,2,2,1
3,3,1,1,,3,3,3,1
4,0,0,0,,0,0,0,0
5,1,0,0,,1,1,1,0
6,2,1,1,,2,2,2,1
7,3,1,1,,3,3,3,1
NAME ONE-SIZE ALL-SIZE WAYS TYPE        LEVEL  SETS PHY-LINE COHERENCY-SIZE
L1d       48K     384K   12 Data            1    64        1             64
L1i       32K     256K    8 Instruction     1    64        1             64
L2       1.5M      12M   16 Unified         2  1024        1             64
L3        32M      64M   16 Unified         3 32768        1             64
";

    #[test]
    fn a_two_socket_smt_machine_reads_as_lscpu_describes_it() {
        let t = Topology::from_lscpu(TWO_SOCKETS).unwrap();
        assert_eq!((t.cpus.len(), t.cores, t.packages, t.numa_nodes), (8, 4, 2, 2));
        assert_eq!(distinct(&t, |c| c.llc), 2);
        assert_eq!(t.placement(0, 4), Placement::SmtSibling);
        assert_eq!(t.placement(0, 1), Placement::OtherCore);
        assert_eq!(t.placement(0, 2), Placement::OtherPackage);
        assert_eq!(t.share_llc(1, 5), Some(true));
        let l3 = t.caches.iter().find(|c| c.level == 3).unwrap();
        assert_eq!((l3.size, l3.num_sharing), (32 << 20, 4));
        let l2 = t.caches.iter().find(|c| c.level == 2).unwrap();
        assert_eq!((l2.size, l2.num_sharing), (3 << 19, 2));
    }

    #[test]
    fn the_cache_column_of_lscpu_p_cache_and_empty_fields_read_too() {
        let text = "# CPU,Core,Socket,Node,L1d:L1i:L2:L3\n0,0,0,,0:0:0:0\n1,,0,,1:1:1:0\n2,2,0,,2:2:2:1\n";
        let t = Topology::from_lscpu(text).unwrap();
        assert_eq!((t.cpus.len(), t.cores, t.numa_nodes), (3, 3, 1));
        assert_eq!((t.share_llc(0, 1), t.share_llc(0, 2)), (Some(true), Some(false)));
        assert!(t.caches.is_empty(), "no `lscpu -C` table, no sizes");
    }

    #[test]
    fn bad_input_is_refused_with_the_line() {
        assert!(Topology::from_lscpu("0,0,0,0\n").unwrap_err().contains("before the"));
        assert!(Topology::from_lscpu("# just a comment\n").unwrap_err().contains("no `# CPU"));
        assert!(Topology::from_lscpu("# CPU,Core\n").unwrap_err().contains("no CPU line"));
        // A column whose name is not ASCII after its `L` is no cache level, and no panic.
        assert!(Topology::from_lscpu("# CPU,Lé\n").unwrap_err().contains("no CPU line"));
        let bad = Topology::from_lscpu("# CPU,Core\n0,x\n").unwrap_err();
        assert!(bad.contains("\"x\" is not a number"), "{bad}");
        let table = Topology::from_lscpu("# CPU\n0\nNAME ONE-SIZE TYPE LEVEL\nL1d 48Q Data 1\n").unwrap_err();
        assert!(table.contains("line 4") && table.contains("size unreadable"), "{table}");
    }

    #[test]
    fn sizes_read_as_lscpu_writes_them() {
        assert_eq!(size_bytes("48K"), Some(48 << 10));
        assert_eq!(size_bytes("1.5M"), Some(3 << 19));
        assert_eq!(size_bytes("300MiB"), Some(300 << 20));
        assert_eq!(size_bytes("512"), Some(512));
        assert_eq!(size_bytes("3Q"), None);
    }
}
