// Measures: memory of N idle TCP connections, each served by its own goroutine blocked in
// conn.Read into a buffer of its own (tasks/README.md, "Connections protocol").
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

func usage(msg string) {
	fmt.Fprintf(os.Stderr, "%s\nusage: go-server PORT N BUFFER_BYTES  (PORT 1-65535, N >= 0, BUFFER_BYTES >= 1)\n", msg)
	os.Exit(2)
}

// serve reads into the connection's own buffer until EOF or an error. The first read that returns
// data is the connection's first message; the goroutine that counts the Nth prints the ready line.
func serve(c net.Conn, size int, n int64, first *atomic.Int64, wg *sync.WaitGroup) {
	defer wg.Done()
	defer c.Close()
	buf := make([]byte, size)
	counted := false
	for {
		got, err := c.Read(buf)
		if got > 0 && !counted {
			counted = true
			if first.Add(1) == n {
				fmt.Println("ready", n)
			}
		}
		if err != nil {
			return
		}
	}
}

func main() {
	if len(os.Args) != 4 {
		usage("wrong number of arguments")
	}
	port, err := strconv.Atoi(os.Args[1])
	if err != nil || port < 1 || port > 65535 {
		usage("PORT must be an integer from 1 to 65535: " + os.Args[1])
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 0 {
		usage("N must be a non-negative integer: " + os.Args[2])
	}
	size, err := strconv.Atoi(os.Args[3])
	if err != nil || size < 1 {
		usage("BUFFER_BYTES must be a positive integer: " + os.Args[3])
	}

	// net.Listen sets SO_REUSEADDR and asks for the backlog in net.core.somaxconn.
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if n == 0 {
		fmt.Println("ready", 0)
	}

	var first atomic.Int64
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		go serve(c, size, int64(n), &first, &wg)
	}
	ln.Close()
	wg.Wait()
}
