// Command xosplan validates, plans and applies declarative service
// descriptions (TOSCA service templates, XOS recipes and Tonomi-style
// manifests). See README.md for the commands and their exit codes.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// The first SIGINT/SIGTERM cancels the context so that commands stop
	// starting new work and save what they must; a second one kills the
	// process, as the default handler would.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
