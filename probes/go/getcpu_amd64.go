package main

// hasRDTSCP reports whether the CPU has RDTSCP (CPUID 0x80000001 EDX bit 27). In getcpu_amd64.s.
func hasRDTSCP() bool

// rdtscpAux returns IA32_TSC_AUX as RDTSCP reads it: Linux stores (NUMA node << 12) | CPU there for
// every CPU, which is how its vDSO getcpu answers. Only call it when hasRDTSCP is true. In
// getcpu_amd64.s.
func rdtscpAux() uint32

// canReadCpu is fixed at start: whether taskCpu can tell a CPU at all.
var canReadCpu = hasRDTSCP()

// taskCpu is the CPU the calling goroutine runs on, read without a system call (about as cheap as the
// vDSO sched_getcpu the Rust tasks use), or false where the CPU has no RDTSCP. Go has no getcpu in its
// standard library, and the raw system call would cost a task more than its reads at high task counts.
func taskCpu() (int, bool) {
	if !canReadCpu {
		return 0, false
	}
	return int(rdtscpAux() & 0xfff), true
}
