// Tick workload (tasks/README.md, "Tick protocol"): N goroutines, each with its own []byte state,
// waking with time.Sleep until its next absolute due time, checksumming and incrementing its state.
package main

import (
	"bufio"
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Shared between main and the goroutines, all through sync/atomic's functions (not atomic.Int64,
// so Go 1.18 still builds, as the sleep program). Times are µs since t0; 0 means "not set yet"
// (W and E are at least one period after t0).
var (
	readyCount    int64 // goroutines that finished their first wake's work
	windowStart   int64 // W
	windowEnd     int64 // E, stored after W
	achieved      int64
	checksumTotal uint32 // sum of the last checksums, wrapping mod 2^32
	hist          [3328]uint64
)

// bucket: exact below 256 µs, then 128 buckets per power of two (tasks/README.md).
func bucket(v int64) int {
	if v > math.MaxUint32 {
		v = math.MaxUint32
	}
	if v < 256 {
		return int(v)
	}
	m := bits.Len64(uint64(v)) - 1
	return 256 + (m-8)*128 + int(v>>(m-7)) - 128
}

func usage(msg string) {
	fmt.Fprintf(os.Stderr, "%s\nusage: go-tick N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, SLEEP >= 0 may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)\n", msg)
	os.Exit(2)
}

func task(i, n int, size int, period int64, t0 time.Time, wg *sync.WaitGroup) {
	defer wg.Done()
	state := make([]byte, size)
	for j := range state {
		state[j] = byte(1 + (i*31+j)%251)
	}
	off := int64(i) * period / int64(n)
	var last uint32
	for k := int64(1); ; k++ {
		due := off + k*period
		e := atomic.LoadInt64(&windowEnd)
		if e != 0 && due >= e {
			break
		}
		// time.Until reads t0's monotonic clock: the sleep is to an absolute due time.
		time.Sleep(time.Until(t0.Add(time.Duration(due) * time.Microsecond)))
		now := time.Since(t0).Microseconds()
		late := now - due
		if late < 0 {
			late = 0
		}
		var c uint32
		for j := range state {
			c += uint32(state[j])
			state[j]++
		}
		last = c
		if k == 1 {
			atomic.AddInt64(&readyCount, 1)
		}
		e = atomic.LoadInt64(&windowEnd) // main may have set it during the sleep
		if e != 0 {
			if w := atomic.LoadInt64(&windowStart); due >= w && due < e {
				atomic.AddUint64(&hist[bucket(late)], 1)
				if now < e {
					atomic.AddInt64(&achieved, 1)
				}
			}
			if now >= e {
				break
			}
		}
	}
	atomic.AddUint32(&checksumTotal, last)
}

func main() {
	t0 := time.Now()
	if len(os.Args) != 5 {
		usage("wrong number of arguments")
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 0 {
		usage("N must be a non-negative integer: " + os.Args[1])
	}
	seconds, err := strconv.ParseFloat(os.Args[2], 64)
	if err != nil || !(seconds >= 0 && seconds < 9.2e9) {
		usage("SLEEP_SECONDS must be a number from 0 to 9.2e9: " + os.Args[2])
	}
	size, err := strconv.Atoi(os.Args[3])
	if err != nil || size < 0 {
		usage("STATE_BYTES must be a non-negative integer: " + os.Args[3])
	}
	period, err := strconv.ParseInt(os.Args[4], 10, 64)
	if err != nil || period < 1 || period > 1e12 {
		usage("PERIOD_US must be an integer from 1 to 10^12: " + os.Args[4])
	}
	sleepUs := int64(math.Round(seconds * 1e6))

	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go task(i, n, size, period, t0, &wg)
	}
	// `ready` once every goroutine has done its first wake's work.
	for atomic.LoadInt64(&readyCount) < int64(n) {
		time.Sleep(time.Millisecond)
	}
	tReady := time.Since(t0).Microseconds()
	w := (tReady/period + 1) * period
	k := (tReady + sleepUs - w) / period
	if k < 0 {
		k = 0
	}
	atomic.StoreInt64(&windowStart, w)
	atomic.StoreInt64(&windowEnd, w+k*period)
	fmt.Println("ready", n)
	wg.Wait()

	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(out, "tick periods %d asked %d achieved %d checksum %d\nlateness_us", k, int64(n)*k, atomic.LoadInt64(&achieved), atomic.LoadUint32(&checksumTotal))
	for b := range hist {
		if c := atomic.LoadUint64(&hist[b]); c != 0 {
			fmt.Fprintf(out, " %d:%d", b, c)
		}
	}
	out.WriteString("\n")
	if err := out.Flush(); err != nil {
		os.Exit(1)
	}
}
