//go:build linux

package main

import (
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// cpuMask is a Linux cpu_set_t for up to 1024 CPUs.
type cpuMask [16]uint64

// allowedCpus is the calling thread's affinity (sched_getaffinity), which the orchestrator set for the
// whole process before it started.
func allowedCpus() ([]int, error) {
	var mask cpuMask
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
	if errno != 0 {
		return nil, errno
	}
	var cpus []int
	for i := 0; i < len(mask)*64; i++ {
		if mask[i/64]&(1<<(uint(i)%64)) != 0 {
			cpus = append(cpus, i)
		}
	}
	return cpus, nil
}

// pinGoroutine locks the calling goroutine to its OS thread (runtime.LockOSThread, never undone: the
// thread dies with the goroutine) and pins that thread to cpu with sched_setaffinity. For team
// experiments, where each goroutine owns one CPU; Souvatzis's same-CPU points leave goroutines free on
// their one P, since a locked goroutine that blocks hands its P to another thread (an OS switch).
func pinGoroutine(cpu int) error {
	runtime.LockOSThread()
	if cpu < 0 || cpu >= 1024 {
		return fmt.Errorf("CPU %d out of range", cpu)
	}
	var mask cpuMask
	mask[cpu/64] |= 1 << (uint(cpu) % 64)
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
	if errno != 0 {
		return fmt.Errorf("sched_setaffinity to CPU %d: %v", cpu, errno)
	}
	return nil
}
