// The runtime's own books, for `memrun explain --books` only: with MEMRUN_BOOKS=1 the program
// prints, once every goroutine waits, every runtime/metrics memory class and the goroutine count
// to stderr as `books NAME VALUE`. Off by default: a figure's run never calls it, so it reads no
// metric and allocates nothing more.
package main

import (
	"fmt"
	"os"
	"runtime/metrics"
	"strings"
)

func printBooks() {
	var samples []metrics.Sample
	for _, d := range metrics.All() {
		if strings.HasPrefix(d.Name, "/memory/classes/") || d.Name == "/sched/goroutines:goroutines" ||
			d.Name == "/gc/stack/starting-size:bytes" {
			samples = append(samples, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(samples)
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			fmt.Fprintf(os.Stderr, "books %s %d\n", s.Name, s.Value.Uint64())
		}
	}
}
