package main

// Cross-checks of the probe's numbers with Go's own benchmark harness, written without the probe's
// harness, kernels or helpers (nothing from the package is used). Run on one P:
//
//	go test -run '^$' -bench . -cpu 1
//
// BenchmarkUnbufferedRoundTrip reports ns per message, like msg.switch (half a round trip), and
// BenchmarkSpawnJoin ns per goroutine spawned and joined, like spawn.create kind:task. testing.B
// includes its own (tiny) loop overhead, which the probe subtracts with its control loop.

import (
	"sync"
	"testing"
)

// BenchmarkUnbufferedRoundTrip: a message to an echo goroutine on an unbuffered channel and the echo
// back on another; b.N counts messages, so the loop runs b.N/2 round trips.
func BenchmarkUnbufferedRoundTrip(b *testing.B) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v
		}
		close(pong)
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i += 2 {
		ping <- i
		<-pong
	}
	b.StopTimer()
	close(ping)
	<-pong
}

// BenchmarkSpawnJoin: `go` of an empty function and a WaitGroup wait for its end, per goroutine.
func BenchmarkSpawnJoin(b *testing.B) {
	var wg sync.WaitGroup
	for i := 0; i < b.N; i++ {
		wg.Add(1)
		go func() { wg.Done() }()
		wg.Wait()
	}
}
