package main

// Cross-checks of the probe's numbers with Go's own benchmark harness, written without the probe's
// harness, kernels or helpers (nothing from the package is used). Run on one P:
//
//	go test -run '^$' -bench . -cpu 1
//
// BenchmarkUnbufferedRoundTrip reports ns per message, like msg.switch (half a round trip), and
// BenchmarkSpawnJoin ns per goroutine spawned and joined, like spawn.create kind:task. testing.B
// includes its own (tiny) loop overhead, which the probe subtracts with its control loop.
// BenchmarkChanThroughput (run on two Ps, -cpu 2) reports ns per message streamed, like msg.throughput
// impl:chan placement:other_core.

import (
	"fmt"
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

// BenchmarkChanThroughput: crossbeam-channel's suite's spsc and mpsc (4 producers) through a chan of
// capacity 1024 or 0, timed the way go test times it: b.N messages in all, split evenly over producer
// goroutines started inside the timed region (as the suite spawns its threads), received by the
// benchmark's own goroutine; ns per message received.
func BenchmarkChanThroughput(b *testing.B) {
	for _, pattern := range []struct {
		name      string
		producers int
	}{{"spsc", 1}, {"mpsc", 4}} {
		for _, capacity := range []int{1024, 0} {
			b.Run(fmt.Sprintf("%s/%d", pattern.name, capacity), func(b *testing.B) {
				ch := make(chan uint64, capacity)
				share := b.N / pattern.producers
				var wg sync.WaitGroup
				for p := 0; p < pattern.producers; p++ {
					wg.Add(1)
					go func(p int) {
						defer wg.Done()
						for i := 0; i < share; i++ {
							ch <- uint64(p<<48 | i)
						}
					}(p)
				}
				var sum uint64
				for i := 0; i < share*pattern.producers; i++ {
					sum += <-ch
				}
				wg.Wait()
				benchSink = sum
			})
		}
	}
}

// benchSink keeps the received messages' sum alive.
var benchSink uint64
