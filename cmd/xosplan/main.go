// Command xosplan validates, plans and applies declarative service
// descriptions (TOSCA service templates, XOS recipes and Tonomi-style
// manifests). See docs/cli.md for the commands and their exit codes.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/process"
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
	// Before anything else: this may be the supervisor of an operation's
	// script, not a command (process.Supervise).
	if code, ok := process.Supervise(); ok {
		os.Exit(code)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(runProcess(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// runProcess runs one invocation with the process's interrupts, as
// Terraform handles them. The first SIGINT or SIGTERM is acknowledged and
// cancels the command's context: nothing new starts, running actions get
// their grace period, the state is saved. The second is acknowledged and
// stops running actions at once (their process groups are ended; their
// outcomes are still recorded). A third is left to the default handler,
// which ends the process.
func runProcess(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, interrupt := context.WithCancelCause(context.Background())
	abortCtx, abort := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	view := views.NewInterrupts(stderr)
	var wg sync.WaitGroup
	wg.Go(func() {
		for n := 1; n <= 2; n++ {
			select {
			case <-sigs:
			case <-done:
				return
			}
			if n == 1 {
				view.First()
				interrupt(errInterrupted)
				continue
			}
			view.Second()
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			abort()
		}
	})
	code := runAbortable(ctx, abortCtx, args, stdin, stdout, stderr)
	signal.Stop(sigs)
	close(done)
	wg.Wait()
	interrupt(nil)
	abort()
	return code
}
