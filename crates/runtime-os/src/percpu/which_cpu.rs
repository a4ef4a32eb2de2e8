//! "Which CPU am I on?", every way a thread can ask: the rseq area's `cpu_id`, glibc's `sched_getcpu`, the raw
//! `getcpu` system call, and the x86 instructions `RDPID` and `RDTSCP` (whose `TSC_AUX` Linux sets to the
//! CPU number, with the NUMA node above bit 12).

use serde::{Deserialize, Serialize};

use super::rseq;

/// A way to read the current CPU. serde: the `source:` parameter's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CpuSource {
    /// A load of the rseq area's `cpu_id` (glibc 2.35+ registers the area).
    Rseq,
    /// glibc's `sched_getcpu()` (which reads the rseq area itself where it has one, else the vDSO).
    SchedGetcpu,
    /// `syscall(SYS_getcpu)`: the kernel entered every time.
    GetcpuSyscall,
    /// `RDPID` (Ice Lake and Zen 2 on): `TSC_AUX` in one instruction.
    Rdpid,
    /// `RDTSCP`: the time-stamp counter and `TSC_AUX` together.
    Rdtscp,
}

impl CpuSource {
    /// Every source, in the report's order.
    pub const ALL: [CpuSource; 5] =
        [CpuSource::Rseq, CpuSource::SchedGetcpu, CpuSource::GetcpuSyscall, CpuSource::Rdpid, CpuSource::Rdtscp];

    /// Why this machine cannot read it, or `None` when it can.
    pub fn unavailable(self) -> Option<String> {
        match self {
            CpuSource::Rseq if rseq::area().is_none() => {
                Some("no rseq area: glibc older than 2.35, the kernel refused it, or glibc.pthread.rseq=0".into())
            }
            CpuSource::Rdpid if !has_rdpid() => Some("this CPU has no RDPID (CPUID.7.0:ECX[22])".into()),
            CpuSource::Rdtscp if !has_rdtscp() => Some("this CPU has no RDTSCP (CPUID.80000001h:EDX[27])".into()),
            CpuSource::Rdpid if !names_this_cpu(read_rdpid) => Some(TSC_AUX_UNSET.into()),
            CpuSource::Rdtscp if !names_this_cpu(read_rdtscp) => Some(TSC_AUX_UNSET.into()),
            _ => None,
        }
    }

    /// A reader of this source: a call that returns the CPU number. `None` where [`CpuSource::unavailable`].
    pub fn reader(self) -> Option<fn() -> u32> {
        if self.unavailable().is_some() {
            return None;
        }
        Some(match self {
            CpuSource::Rseq => read_rseq,
            CpuSource::SchedGetcpu => read_sched_getcpu,
            CpuSource::GetcpuSyscall => read_getcpu_syscall,
            CpuSource::Rdpid => read_rdpid,
            CpuSource::Rdtscp => read_rdtscp,
        })
    }
}

fn read_rseq() -> u32 {
    thread_local! {
        static AREA: Option<*mut rseq::RseqArea> = rseq::area();
    }
    // SAFETY: the area is this thread's own (the thread-local is per thread).
    AREA.with(|a| a.map_or(u32::MAX, |area| unsafe { rseq::cpu_id(area) }))
}

fn read_sched_getcpu() -> u32 {
    // SAFETY: sched_getcpu has no preconditions.
    unsafe { libc::sched_getcpu() as u32 }
}

fn read_getcpu_syscall() -> u32 {
    let mut cpu: libc::c_uint = 0;
    // SAFETY: getcpu writes the CPU into `cpu`; the node and cache pointers may be null.
    unsafe {
        libc::syscall(libc::SYS_getcpu, &mut cpu, std::ptr::null_mut::<libc::c_uint>(), std::ptr::null_mut::<u8>())
    };
    cpu
}

#[cfg(target_arch = "x86_64")]
fn has_rdpid() -> bool {
    // Leaf 7 only where leaf 0 reports it.
    std::arch::x86_64::__cpuid(0).eax >= 7 && std::arch::x86_64::__cpuid_count(7, 0).ecx & (1 << 22) != 0
}

#[cfg(target_arch = "x86_64")]
fn has_rdtscp() -> bool {
    // Leaf 0x80000001 only where the highest extended leaf reaches it.
    std::arch::x86_64::__cpuid(0x8000_0000).eax >= 0x8000_0001
        && std::arch::x86_64::__cpuid(0x8000_0001).edx & (1 << 27) != 0
}

#[cfg(not(target_arch = "x86_64"))]
fn has_rdpid() -> bool {
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn has_rdtscp() -> bool {
    false
}

/// Why `RDPID` and `RDTSCP` are refused where the instruction exists but its `TSC_AUX` does not hold the CPU
/// (a hypervisor or kernel that does not set it): their answer would be a number, not this CPU's.
const TSC_AUX_UNSET: &str = "TSC_AUX does not hold the CPU number here (its reading never matched sched_getcpu)";

/// Whether `read` names the CPU `sched_getcpu` names, in one of a few tries (the thread may move between
/// the two reads).
fn names_this_cpu(read: fn() -> u32) -> bool {
    (0..8).any(|_| read() == read_sched_getcpu())
}

/// `TSC_AUX`'s CPU number (Linux puts the node in bits 12 and up).
const CPU_MASK: u32 = 0xfff;

#[cfg(target_arch = "x86_64")]
fn read_rdpid() -> u32 {
    let aux: u64;
    // SAFETY: only called where CPUID says the CPU has RDPID ([`CpuSource::reader`]); it writes one register.
    unsafe { std::arch::asm!("rdpid {}", out(reg) aux, options(nomem, nostack, preserves_flags)) };
    aux as u32 & CPU_MASK
}

#[cfg(target_arch = "x86_64")]
fn read_rdtscp() -> u32 {
    let mut aux = 0u32;
    // SAFETY: only called where CPUID says the CPU has RDTSCP; `aux` is a valid place for TSC_AUX.
    unsafe { std::arch::x86_64::__rdtscp(&mut aux) };
    aux & CPU_MASK
}

#[cfg(not(target_arch = "x86_64"))]
fn read_rdpid() -> u32 {
    u32::MAX
}

#[cfg(not(target_arch = "x86_64"))]
fn read_rdtscp() -> u32 {
    u32::MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pinned to one CPU, every source this machine has says that CPU (a wrong mask or field would not).
    #[test]
    fn every_source_names_the_cpu_the_thread_is_pinned_to() {
        let cpus = overhead_machine::allowed_cpus();
        let cpu = *cpus.last().unwrap();
        std::thread::spawn(move || {
            overhead_machine::pin_current_thread(cpu).unwrap();
            for source in CpuSource::ALL {
                let Some(read) = source.reader() else {
                    eprintln!("{source:?}: {}", source.unavailable().unwrap());
                    continue;
                };
                assert_eq!(read() as usize, cpu, "{source:?}");
            }
        })
        .join()
        .unwrap();
    }
}
