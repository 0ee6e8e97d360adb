// HTTP workload (tasks/README.md, "HTTP protocol"): net/http as its documentation's first example
// has it, http.HandleFunc on the DefaultServeMux and http.ListenAndServe, which serves each
// accepted connection in a goroutine of its own and keeps it open (HTTP/1.1 keep-alive is the
// default). No Server fields set: the defaults for timeouts, buffers and the backlog.
//
// GET / answers 302 with Location /Renard-K.png, K from math/rand's top-level rand.Intn: in Go 1.26
// (math/rand/rand.go) that draws from the runtime's generator, seeded at startup, with no lock;
// before Go 1.20 the top-level functions share a mutex-guarded source seeded with 1 (the same
// sequence every run, still uniform). math/rand rather than math/rand/v2 (Go 1.22), so the older
// toolchains of the version axis build it too. The header is written with WriteHeader and no
// body: http.Redirect would add a short HTML body for GET. With nothing written, net/http sends
// Content-Length: 0.
package main

import (
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"os"
	"strconv"
)

func usage(msg string) {
	fmt.Fprintf(os.Stderr, "%s\nusage: go-http PORT IMAGES  (PORT 1-65535, IMAGES >= 1)\n", msg)
	os.Exit(2)
}

func main() {
	if len(os.Args) != 3 {
		usage("wrong number of arguments")
	}
	port, err := strconv.Atoi(os.Args[1])
	if err != nil || port < 1 || port > 65535 {
		usage("PORT must be an integer from 1 to 65535: " + os.Args[1])
	}
	images, err := strconv.Atoi(os.Args[2])
	if err != nil || images < 1 {
		usage("IMAGES must be a positive integer: " + os.Args[2])
	}

	// The pattern "/" matches every path: anything but "/" itself is a 404.
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Location", "/Renard-"+strconv.Itoa(rand.Intn(images)+1)+".png")
		w.WriteHeader(http.StatusFound)
	})
	// Returns only on an error (the port taken, ...); accept errors such as EMFILE are logged to
	// stderr and retried by the server itself.
	err = http.ListenAndServe(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil)
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
