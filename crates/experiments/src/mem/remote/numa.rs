//! The NUMA rows: a dependent pointer chase over a buffer first touched on the walker's node or on another,
//! against a local-node walk.

use super::*;

/// A buffer of `bytes` first touched on `cpu`, every 64-byte line holding the address of the next in one
/// random cycle through all of them ([`cycle`]): a dependent chase that neither the caches nor the
/// prefetchers can follow.
pub(super) fn chase_buffer(cpu: usize, bytes: usize, seed: u64) -> anyhow::Result<FirstTouchPage> {
    let page = FirstTouchPage::on_cpu(cpu, bytes).map_err(|e| anyhow::anyhow!("first touch on CPU {cpu}: {e}"))?;
    let lines = page.bytes() / 64;
    let order = cycle(lines, seed);
    let base = page.as_ptr() as usize;
    for (i, &next) in order.iter().enumerate() {
        // SAFETY: `i` and `next` are below `lines`, so both lines lie inside the mapping; aligned for usize.
        unsafe { std::ptr::write((base + 64 * i) as *mut usize, base + 64 * next as usize) };
    }
    Ok(page)
}

/// `next[i]`: one cycle through all of `0..n` — the lines in a random order (Fisher–Yates with a xorshift
/// generator seeded `seed`), each linked to the one after it, the last to the first.
pub fn cycle(n: usize, seed: u64) -> Vec<u32> {
    let mut items: Vec<u32> = (0..n as u32).collect();
    let mut x = seed | 1;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = (x % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
    let mut next = vec![0u32; n];
    for i in 0..n {
        next[items[i] as usize] = items[(i + 1) % n];
    }
    next
}

/// `steps` dependent loads from `start`; returns where it ended (to start the next walk there).
///
/// # Safety
/// `start` must be a line of a buffer made by [`chase_buffer`], alive for the walk.
#[inline(never)]
pub(super) unsafe fn chase(start: usize, steps: u64) -> usize {
    let mut p = start;
    for _ in 0..steps {
        p = std::ptr::read_volatile(p as *const usize);
    }
    p
}

/// The NUMA rows: per window, `steps` of the chase over the local buffer, then over the measured one
/// (a second local buffer for `numa_local`, one first touched on `cpus[1]`'s node for `numa_remote`),
/// each timed; the rate is local time over measured time.
pub(super) fn numa(
    case: Case,
    cpus: &[usize],
    h: &Harness,
    window_ns: f64,
    warmup: usize,
    kept: usize,
) -> anyhow::Result<Outcome> {
    let walker = cpus[0];
    let owner = if case == Case::NumaRemote {
        *cpus.get(1).ok_or_else(|| anyhow::anyhow!("numa_remote needs the remote buffer's owner CPU"))?
    } else {
        walker
    };
    let topology = Topology::detect();
    let llc = topology.caches.iter().map(|c| c.size).max().unwrap_or(32 << 20) as usize;
    let bytes = (4 * llc).clamp(16 << 20, 1 << 30);
    let local = chase_buffer(walker, bytes, 0x9e37_79b9_7f4a_7c15)?;
    let measured = chase_buffer(owner, bytes, 0xd1b5_4a32_d192_ed03)?;
    let mut notes = Vec::new();
    for (what, page, cpu) in [("local", &local, walker), ("measured", &measured, owner)] {
        match (page.numa_node(), node_of(&topology, cpu)) {
            (Ok(node), Some(expected)) if node != expected => {
                notes.push(format!("the {what} buffer landed on node {node}, not CPU {cpu}'s node {expected}"))
            }
            (Err(e), _) => notes.push(format!("the {what} buffer's node is unknown: {e}")),
            _ => {}
        }
    }
    let clock = h.clock;
    let timed = |start: usize, steps: u64| -> (usize, f64) {
        let t0 = clock.start();
        // SAFETY: `start` is a line of a live chase buffer.
        let end = unsafe { chase(start, steps) };
        (end, clock.ticks_to_ns(clock.stop().wrapping_sub(t0) as f64))
    };
    let (mut at_local, mut at_measured) = (local.as_ptr() as usize, measured.as_ptr() as usize);
    let (end, pilot_ns) = timed(at_local, 20_000);
    at_local = end;
    let steps = ((window_ns / (pilot_ns / 20_000.0).max(1e-3)) as u64).max(1_000);
    let (mut samples, mut rates) = (Vec::new(), Vec::new());
    for w in 0..warmup + kept {
        let (end, local_ns) = timed(at_local, steps);
        at_local = end;
        let (end, measured_ns) = timed(at_measured, steps);
        at_measured = end;
        if w >= warmup && measured_ns > 0.0 {
            samples.push(measured_ns / steps as f64);
            rates.push(local_ns / measured_ns);
        }
    }
    let result = RemoteResult {
        relative_rate: median(&rates),
        relative_rate_min: None,
        relative_rate_max: None,
        windows: samples.len() as f64,
        dropped_windows: None,
        window_ms: None,
        buffer_mib: Some(bytes as f64 / (1 << 20) as f64),
        steps_per_window: Some(steps as f64),
    };
    let measurement = Measurement {
        counts_per_op: None,
        batch_ops: steps,
        control_ns: vec![0.0; samples.len()],
        samples_ns: samples,
        per_thread_ns: Vec::new(),
        resolution_ns: h.resolution_per_op_ns(steps),
    };
    Ok(Outcome { measurement, notes, extra: BTreeMap::new(), details: Details::default() }.with_result(&result))
}
