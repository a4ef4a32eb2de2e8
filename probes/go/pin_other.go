//go:build !linux

package main

import (
	"errors"
	"runtime"
)

// allowedCpus is unknown off Linux.
func allowedCpus() ([]int, error) { return nil, errors.New("affinity is Linux-only") }

// pinGoroutine locks the goroutine to its thread; pinning to a CPU is Linux-only.
func pinGoroutine(cpu int) error {
	runtime.LockOSThread()
	return errors.New("pinning is Linux-only")
}
