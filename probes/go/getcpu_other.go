//go:build !amd64

package main

// canReadCpu: without RDTSCP (other architectures) the probe cannot tell a task's CPU.
var canReadCpu = false

// taskCpu cannot tell the CPU here: every task is counted as other (probes/README.md "grain.sweep").
func taskCpu() (int, bool) {
	return 0, false
}
