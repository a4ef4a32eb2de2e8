//! lmbench 3's latency programs (McVoy and Staelin, "lmbench: Portable Tools for Performance Analysis",
//! USENIX 1996): each prints `"<what>: <µs> microseconds"` on stderr, the median of its repetitions, a round
//! trip for the pipe, UNIX socket and TCP programs (one byte there and back through an echo process).

use std::collections::BTreeMap;

use overhead_record::PeerCase;

use super::super::peer::{find_program_in, number_after, Peer, PeerCommand};

/// Where Debian's and Ubuntu's `lmbench` packages put the programs.
const LMBENCH_DIRS: [&str; 2] = ["/usr/lib/lmbench/bin", "/usr/lib/lmbench/bin/x86_64-linux-gnu"];

/// How long each repetition runs at least (µs): lmbench's own ENOUGH, set so it skips calibrating it.
const ENOUGH_US: &str = "50000";

/// One lmbench latency program.
pub struct Lmbench {
    /// The program (`lat_syscall`).
    pub program: &'static str,
    /// Its arguments after the repetitions (`null`).
    pub args: &'static [&'static str],
    /// The label of its line (`Simple syscall:`).
    pub label: &'static str,
    /// Our point.
    pub point: &'static str,
    /// What may differ by method.
    pub method_difference: &'static str,
    /// A TCP server to start before and stop after (`lat_tcp -s`, `lat_tcp -S localhost`).
    pub server: bool,
}

/// lmbench's programs that have a point of ours.
pub fn programs() -> Vec<Lmbench> {
    vec![
        Lmbench {
            program: "lat_syscall",
            args: &["null"],
            label: "Simple syscall:",
            point: "base.syscall/runtime:os",
            method_difference: "lmbench times getppid in a loop of its own with the timer's overhead subtracted, ours against an empty-loop control",
            server: false,
        },
        Lmbench {
            program: "lat_pipe",
            args: &[],
            label: "Pipe latency:",
            point: "msg.ipc/runtime:os/transport:pipe/payload:8/placement:same_cpu",
            method_difference: "lmbench sends 1 byte, ours 8",
            server: false,
        },
        Lmbench {
            program: "lat_unix",
            args: &[],
            label: "AF_UNIX sock stream latency:",
            point: "msg.ipc/runtime:os/transport:unix_stream/payload:8/placement:same_cpu",
            method_difference: "lmbench sends 1 byte, ours 8",
            server: false,
        },
        Lmbench {
            program: "lat_tcp",
            args: &["localhost"],
            label: "TCP latency using localhost:",
            point: "msg.ipc/runtime:os/transport:tcp/payload:8/placement:same_cpu",
            method_difference: "lmbench's server is a separate program; Nagle and delayed ACKs as each sets them",
            server: true,
        },
        Lmbench {
            program: "lat_proc",
            args: &["fork"],
            label: "Process fork+exit:",
            point: "spawn.create/runtime:os/kind:process",
            method_difference: "the parent's size: lmbench's process is small, ours carries the runtimes",
            server: false,
        },
    ]
}

impl Peer for Lmbench {
    fn name(&self) -> String {
        format!("lmbench {}", self.program)
    }

    fn install(&self) -> String {
        "apt-get install lmbench (Debian non-free, Ubuntu multiverse), or build lmbench 3 from source and put its bin/ on the PATH".into()
    }

    fn cases(&self) -> Vec<PeerCase> {
        vec![PeerCase {
            case: self.label.trim_end_matches(':').into(),
            point: self.point.into(),
            conversion: "µs → ns".into(),
            cross_core: false,
            method_difference: self.method_difference.into(),
            ours_key: None,
        }]
    }

    fn command(&self, cpus: &[usize]) -> Result<PeerCommand, String> {
        let path = find_program_in(self.program, &LMBENCH_DIRS)
            .ok_or_else(|| format!("{} not found on the PATH or in {}", self.program, LMBENCH_DIRS.join(", ")))?;
        let path = path.display().to_string();
        let mut argv = vec![path.clone(), "-N".into(), "3".into()];
        argv.extend(self.args.iter().map(|a| a.to_string()));
        // Everything on the point's first CPU: the echo process is the program's fork, the server pinned too.
        let cpu = &cpus[..cpus.len().min(1)];
        let mut command = PeerCommand::pinned(cpu, argv);
        // Without ENOUGH lmbench first calibrates how long a repetition must run, ~30 s a program here.
        command.env.push(("ENOUGH".into(), ENOUGH_US.into()));
        if self.server {
            command.before = Some(super::super::peer::with_taskset(cpu, vec![path.clone(), "-s".into()]));
            command.after = Some(vec![path, "-S".into(), "localhost".into()]);
        }
        Ok(command)
    }

    fn parse(&self, _stdout: &str, stderr: &str) -> Result<BTreeMap<String, f64>, String> {
        let us = number_after(stderr, self.label)
            .ok_or_else(|| format!("expected a line \"{} <µs> microseconds\" from {}", self.label, self.program))?;
        Ok([(self.label.trim_end_matches(':').to_string(), us * 1e3)].into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_program_reads_its_line_in_ns() {
        let p = programs();
        let syscall = p[0].parse("", "Simple syscall: 0.0983 microseconds\n").unwrap();
        assert!((syscall["Simple syscall"] - 98.3).abs() < 1e-9);
        let pipe = p[1].parse("", "Pipe latency: 4.5678 microseconds\n").unwrap();
        assert!((pipe["Pipe latency"] - 4567.8).abs() < 1e-6);
        let fork = p[4].parse("", "Process fork+exit: 95.1234 microseconds\n").unwrap();
        assert!((fork["Process fork+exit"] - 95_123.4).abs() < 1e-6);
        // The case names the parse gives are the cases the peer declares.
        for program in &p {
            assert_eq!(program.cases()[0].case, program.label.trim_end_matches(':'));
        }
        let e = p[2].parse("", "AF_UNIX sock stream latency: n/a\n").unwrap_err();
        assert!(e.contains("AF_UNIX sock stream latency:"), "{e}");
    }
}
