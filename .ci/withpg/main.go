//go:build linux

// Command withpg runs a command with a throw-away PostgreSQL 15 server
// (pgtest.Start) and XOSPLAN_TEST_PG naming it, then stops the server by
// its PID and removes its folder, so that nothing is left running:
//
//	go run ./.ci/withpg go test ./...
//
// `make test` runs the whole suite under it, one server for every test
// package. When the server cannot start (PostgreSQL is not installed) the
// command still runs, without the variable, and its PostgreSQL tests skip
// saying so; with -require it fails instead.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
)

func main() {
	os.Exit(run())
}

func run() int {
	require := flag.Bool("require", false, "fail when the server cannot be started")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: withpg [-require] COMMAND [ARG...]")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := pgtest.Start(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "withpg: no PostgreSQL server for the tests: %v\n", err)
		if *require {
			return 1
		}
	} else {
		defer srv.Stop()
		fmt.Fprintf(os.Stderr, "withpg: PostgreSQL 15 on 127.0.0.1:%d (pid %d) for this run\n", srv.Port, srv.PID())
		os.Setenv(pgtest.EnvDSN, srv.DSN)
	}
	cmd := exec.CommandContext(ctx, flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// On an interrupt the command gets it too (same process group) and
	// ends; the server is stopped after it.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return max(ee.ExitCode(), 1)
	case err != nil:
		fmt.Fprintf(os.Stderr, "withpg: %v\n", err)
		return 1
	}
	return 0
}
