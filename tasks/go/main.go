// Measures: memory of N goroutines alive at once, each blocked in time.Sleep.
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// waiting counts the goroutines that have reached their time.Sleep. A package variable, so the
// closure captures nothing more; atomic.AddInt64 rather than atomic.Int64 so Go 1.18 still builds.
var waiting int64

// The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
// MEMRUN_TRACE_WAITS=1: the goroutines run traced, the plain body with a `start` line just before
// the count and an `end` line after the sleep, on stdout, where `ready` goes (one write each).
// MEMRUN_STALL_MS=K: main stalls K ms after the last `go` and again just before `ready`.
var (
	trace    = os.Getenv("MEMRUN_TRACE_WAITS") == "1"
	stallFor = stallSetting()
)

func stallSetting() time.Duration {
	ms, _ := strconv.Atoi(os.Getenv("MEMRUN_STALL_MS"))
	return time.Duration(ms) * time.Millisecond
}

func stall() {
	if stallFor > 0 {
		time.Sleep(stallFor)
	}
}

func say(line string) {
	os.Stdout.WriteString(line)
}

func usage(msg string) {
	fmt.Fprintf(os.Stderr, "%s\nusage: go-task N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)\n", msg)
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		usage("wrong number of arguments")
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 0 {
		usage("N must be a non-negative integer: " + os.Args[1])
	}
	seconds := 10.0
	if len(os.Args) == 3 {
		seconds, err = strconv.ParseFloat(os.Args[2], 64)
		if err != nil || !(seconds >= 0 && seconds*1e9 < math.MaxInt64) {
			usage("SLEEP_SECONDS must be a number from 0 to 9.2e9: " + os.Args[2])
		}
	}
	d := time.Duration(seconds * float64(time.Second))

	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		if trace {
			go func() {
				defer wg.Done()
				say("start\n")
				atomic.AddInt64(&waiting, 1)
				time.Sleep(d)
				say("end\n")
			}()
		} else {
			go func() {
				defer wg.Done()
				atomic.AddInt64(&waiting, 1)
				time.Sleep(d)
			}()
		}
	}
	stall()
	// `ready` once every goroutine has run up to its sleep, not merely been created.
	for atomic.LoadInt64(&waiting) < int64(n) {
		time.Sleep(time.Millisecond)
	}
	stall()
	fmt.Println("ready", n)
	if os.Getenv("MEMRUN_BOOKS") == "1" {
		printBooks()
	}
	wg.Wait()
}
