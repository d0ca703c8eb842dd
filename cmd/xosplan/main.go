// Command xosplan validates, plans and applies declarative service
// descriptions (TOSCA service templates, XOS recipes and Tonomi-style
// manifests). See README.md for the commands and their exit codes.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// Compiling a large template allocates many short-lived nodes; with Go's
// default GOGC of 100 a third of the CPU goes to collecting them. A
// higher target with a soft memory limit trades some peak memory for that
// time, and still collects hard when the heap nears the limit. An explicit
// GOGC or GOMEMLIMIT from the environment wins.
const (
	gcPercent   = 400
	memoryLimit = 1 << 30
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	// The first SIGINT/SIGTERM cancels the context so that commands stop
	// starting new work and save what they must; a second one kills the
	// process, as the default handler would.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
