//! TEMPORARY stub until the topology module lands.
use serde::{Deserialize, Serialize};
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement { SameCpu, SmtSibling, OtherCore, OtherNumaNode, OtherPackage }
pub fn allowed_cpus() -> Vec<usize> { (0..2).collect() }
pub fn pin_current_thread(cpu: usize) -> std::io::Result<()> {
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 { return Err(std::io::Error::last_os_error()); }
    }
    Ok(())
}
