// Package floorbench is what the sale's floor benchmarks of both engines
// share (db and pg BenchmarkSaleFloor, docs/performance.md): the clients
// that run the bookings and what each booking takes.
package floorbench

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Clients is how many run at once: bench's 64 counters.
const Clients = 64

// Booking k is seats First and First+1 of show Show: 250 pairs a 500-seat
// show, then the next show.
type Booking struct {
	Show, First int64
	Owner       string // the counter that sells it
	Number, Key string // spread as random numbers and keys are
}

// Of is booking k.
func Of(k int64) Booking {
	return Booking{Show: 1 + k/250, First: 2*(k%250) + 1, Owner: fmt.Sprint("counter-", k%Clients),
		Number: fmt.Sprintf("N%09d", k*7919%1000000007), Key: fmt.Sprintf("K%016x", uint64(k)*0x9E3779B97F4A7C15)}
}

// Run makes bookings 0 to b.N-1 on Clients goroutines and returns the
// seconds they took and each booking's time, sorted. A booking that fails
// fails the benchmark and stops its client.
func Run(b *testing.B, book func(k int64) error) (float64, []time.Duration) {
	var next atomic.Int64
	var wg sync.WaitGroup
	took := make([][]time.Duration, Clients)
	start := time.Now()
	for c := range Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := next.Add(1) - 1
				if k >= int64(b.N) {
					return
				}
				t0 := time.Now()
				if err := book(k); err != nil {
					b.Error(err)
					return
				}
				took[c] = append(took[c], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	all := slices.Concat(took...)
	slices.Sort(all)
	return secs, all
}

// Report adds the figures both floors print: bookings/s, p50 and p99.
func Report(b *testing.B, secs float64, took []time.Duration) float64 {
	bps := float64(b.N) / secs
	b.ReportMetric(bps, "bookings/s")
	b.ReportMetric(float64(took[len(took)/2])/1e6, "p50_ms")
	b.ReportMetric(float64(took[len(took)*99/100])/1e6, "p99_ms")
	return bps
}
