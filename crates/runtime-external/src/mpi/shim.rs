//! The MPI shim (`probes/mpi/overhead_mpi.c`): built on first use with the MPI implementation's `mpicc`
//! into the probe cache, loaded into `overhead probe` with `dlopen` (RTLD_GLOBAL, so that the MPI library's
//! own plug-ins find its symbols), and MPI initialised once per process. Only a process that the launcher
//! started as a rank loads it; the default build and every other probe never touch MPI.

use std::ffi::{c_char, c_double, c_int, c_void};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use crate::probe_sources::sources;
use crate::toolchain::{cached, key, output_of, write_sources};

/// What a lead asks every rank to do (the C `OVH_OP_*`; `probes/mpi/overhead_mpi.c` says what each does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Op {
    Stop = 0,
    Nothing = 1,
    PingPong = 2,
    Window = 3,
    Barrier = 4,
    Allreduce = 5,
    SelfMessage = 6,
    Pair = 8,
    PairWindow = 9,
    Rendezvous = 10,
}

/// The shim's functions, resolved once; the library stays loaded for the life of the process.
pub struct Shim {
    _library: libloading::os::unix::Library,
    rank: unsafe extern "C" fn() -> c_int,
    size: unsafe extern "C" fn() -> c_int,
    finalize: unsafe extern "C" fn() -> c_int,
    abort: unsafe extern "C" fn(c_int),
    library_version: unsafe extern "C" fn(*mut c_char, c_int),
    send_bytes: unsafe extern "C" fn(c_int, *const c_void, c_int) -> c_int,
    recv_bytes: unsafe extern "C" fn(c_int, *mut c_void, c_int) -> c_int,
    gather_bytes: unsafe extern "C" fn(*const c_void, c_int, *mut c_void) -> c_int,
    lead: unsafe extern "C" fn(u64, u64, u64, u64) -> c_int,
    follow: unsafe extern "C" fn() -> c_int,
    pair_ns: unsafe extern "C" fn() -> c_double,
}

/// Whether this process initialised MPI (and so must finalise it before it exits).
static INITIALISED: AtomicBool = AtomicBool::new(false);

/// The shim, built, loaded and with MPI initialised, once per process.
///
/// Errors: no `mpicc` (`OVERHEAD_MPICC`, else PATH), a failed build or load, or `MPI_Init` failing.
pub fn shim() -> Result<&'static Shim, String> {
    static SHIM: OnceLock<Result<Shim, String>> = OnceLock::new();
    SHIM.get_or_init(|| load(&build()?)).as_ref().map_err(Clone::clone)
}

/// Finalises MPI if this process initialised it: every rank must, or the launcher reports the job failed.
pub fn finalize() {
    if INITIALISED.swap(false, Ordering::SeqCst) {
        if let Ok(shim) = shim() {
            // SAFETY: MPI was initialised by this process (INITIALISED), and finalised at most once (swap).
            unsafe { (shim.finalize)() };
        }
    }
}

/// Ends the whole MPI job at once (MPI_Abort) if this process initialised MPI, for a rank that failed: the
/// other ranks may be waiting for it in a collective (rank 0 refused the point before leading anything, or a
/// follower's call failed), and MPI_Finalize would wait for them. The launcher then exits with an error and
/// this rank's error line, already written, is the point's reason. Returns only when MPI was not initialised.
pub fn abort_job() {
    if INITIALISED.swap(false, Ordering::SeqCst) {
        if let Ok(shim) = shim() {
            // SAFETY: MPI was initialised by this process; MPI_Abort does not return.
            unsafe { (shim.abort)(1) };
        }
    }
}

/// The shim's library, built with `mpicc` into the probe cache (keyed by the sources and the compiler's
/// version line), so a later run loads it at once.
///
/// Errors: no `mpicc`, or the build failed, with the compiler's last lines.
pub fn build() -> Result<PathBuf, String> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let mpicc = std::env::var_os("OVERHEAD_MPICC").map(PathBuf::from).unwrap_or_else(|| "mpicc".into());
            let version = output_of(Command::new(&mpicc).arg("--version")).map_err(|e| {
                format!("no MPI compiler wrapper ({} {e}); install OpenMPI or MPICH's development files or set OVERHEAD_MPICC", mpicc.display())
            })?;
            let version = version.lines().next().unwrap_or_default().to_string();
            let mpi_sources = sources()?.mpi;
            let folder = cached(&format!("mpi-{}", key(mpi_sources, &version)), |tmp| {
                let src = tmp.join("src");
                write_sources(&src, mpi_sources)?;
                let mut build = Command::new(&mpicc);
                build.args(["-O2", "-shared", "-fPIC", "-o"]).arg(tmp.join("libovh_mpi.so"));
                build.args(mpi_sources.iter().map(|(path, _)| src.join(path)));
                output_of(&mut build).map_err(|e| format!("mpicc ({}): {e}", mpicc.display())).map(drop)
            })?;
            Ok(folder.join("libovh_mpi.so"))
        })
        .clone()
}

fn load(path: &std::path::Path) -> Result<Shim, String> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: loading runs the library's initialisers: the shim has none, and the MPI library's are written
    // to run at load time. RTLD_GLOBAL because OpenMPI's components, loaded later by MPI_Init, resolve
    // symbols of libmpi that a local load would hide.
    let library = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }
        .map_err(|e| format!("loading the MPI shim {}: {e}", path.display()))?;
    macro_rules! function {
        ($name:literal) => {
            // SAFETY: the symbol is one of the shim's functions, whose C signature the field's type repeats
            // (probes/mpi/overhead_mpi.c); the pointer stays valid while `library` is loaded, which is for the
            // life of the process (the Shim keeps it).
            *unsafe { library.get(concat!($name, "\0").as_bytes()) }
                .map_err(|e| format!("the MPI shim has no {}: {e}", $name))?
        };
    }
    let init: unsafe extern "C" fn() -> c_int = function!("ovh_mpi_init");
    let shim = Shim {
        rank: function!("ovh_mpi_rank"),
        size: function!("ovh_mpi_size"),
        finalize: function!("ovh_mpi_finalize"),
        abort: function!("ovh_mpi_abort"),
        library_version: function!("ovh_mpi_library_version"),
        send_bytes: function!("ovh_mpi_send_bytes"),
        recv_bytes: function!("ovh_mpi_recv_bytes"),
        gather_bytes: function!("ovh_mpi_gather_bytes"),
        lead: function!("ovh_mpi_lead"),
        follow: function!("ovh_mpi_follow"),
        pair_ns: function!("ovh_mpi_pair_ns"),
        _library: library,
    };
    // SAFETY: MPI_Init with no arguments, once per process (OnceLock in `shim`); the shim checks
    // MPI_Initialized first.
    if unsafe { init() } != 0 {
        return Err("MPI_Init failed (was this process started by the MPI launcher?)".into());
    }
    INITIALISED.store(true, Ordering::SeqCst);
    Ok(shim)
}

/// A negative code of the shim as an error naming what failed.
fn check(code: c_int, what: &str) -> anyhow::Result<()> {
    anyhow::ensure!(code == 0, "{what} failed in MPI (code {code})");
    Ok(())
}

impl Shim {
    /// This process's rank in MPI_COMM_WORLD.
    pub fn rank(&self) -> usize {
        // SAFETY: MPI is initialised (a Shim exists only after MPI_Init succeeded).
        unsafe { (self.rank)() }.max(0) as usize
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        // SAFETY: as in `rank`.
        unsafe { (self.size)() }.max(0) as usize
    }

    /// The MPI library's own version line (MPI_Get_library_version's first line).
    pub fn library_version(&self) -> String {
        let mut buffer = vec![0u8; 8192];
        // SAFETY: the shim writes at most `capacity` bytes including the NUL into the buffer.
        unsafe { (self.library_version)(buffer.as_mut_ptr().cast(), buffer.len() as c_int) };
        let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
        String::from_utf8_lossy(&buffer[..end]).lines().next().unwrap_or_default().trim().to_string()
    }

    /// Sends `data` to rank `dest` (outside timed loops: addresses and results).
    pub fn send_bytes(&self, dest: usize, data: &[u8]) -> anyhow::Result<()> {
        // SAFETY: `data` is valid for `data.len()` bytes for the duration of the blocking send.
        check(unsafe { (self.send_bytes)(dest as c_int, data.as_ptr().cast(), data.len() as c_int) }, "a send")
    }

    /// Receives exactly `data.len()` bytes from rank `source`.
    pub fn recv_bytes(&self, source: usize, data: &mut [u8]) -> anyhow::Result<()> {
        // SAFETY: `data` is valid and writable for `data.len()` bytes for the duration of the blocking receive.
        check(unsafe { (self.recv_bytes)(source as c_int, data.as_mut_ptr().cast(), data.len() as c_int) }, "a receive")
    }

    /// Every rank's `mine` (all of one length), gathered at rank 0 in rank order; empty on the other ranks.
    pub fn gather(&self, mine: &[u8]) -> anyhow::Result<Vec<Vec<u8>>> {
        let n = mine.len();
        let mut all = vec![0u8; n * self.size()];
        // SAFETY: `mine` holds n bytes and `all` size × n, as MPI_Gather at the root writes.
        check(unsafe { (self.gather_bytes)(mine.as_ptr().cast(), n as c_int, all.as_mut_ptr().cast()) }, "a gather")?;
        Ok(if self.rank() == 0 { all.chunks(n.max(1)).map(<[u8]>::to_vec).collect() } else { Vec::new() })
    }

    /// Rank 0: every rank does `op` `n` times with `bytes` per message and `window` messages in flight
    /// (or the pair `window >> 16`, `window & 0xffff` for [`Op::Pair`]); this rank's part runs here. The
    /// broadcast that starts it is part of the time, and of an [`Op::Nothing`] lead's, which the control uses.
    pub fn lead(&self, op: Op, n: u64, bytes: u64, window: u64) -> anyhow::Result<()> {
        // SAFETY: MPI is initialised; the shim sizes its own buffers for `bytes` and `window`.
        check(unsafe { (self.lead)(op as u64, n, bytes, window) }, "a batch")
    }

    /// Every rank but 0: do what rank 0 leads until it leads [`Op::Stop`].
    pub fn follow(&self) -> anyhow::Result<()> {
        // SAFETY: MPI is initialised.
        check(unsafe { (self.follow)() }, "following rank 0")
    }

    /// The ns the first rank of the last [`Op::Pair`]/[`Op::PairWindow`] measured (rank 0 only).
    pub fn pair_ns(&self) -> f64 {
        // SAFETY: reads a double the shim keeps.
        unsafe { (self.pair_ns)() }
    }
}
