package testutil

import (
	"os"
	"strings"
)

// GORACE returns the GORACE setting for a process a test starts from a
// test binary (its own, or the command a testscript runs): this process's
// setting with atexit_sleep_ms=0. A binary built with -race sleeps a
// second as it exits, so that race reports still pending get printed
// (atexit_sleep_ms, default 1000); the CLI scripts start hundreds of such
// processes and spent most of their time asleep there. A race is still
// reported, and fails the process, when it happens.
func GORACE() string {
	return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// ChildEnv returns env with GORACE set as GORACE returns it, for a test
// binary started as a child process.
func ChildEnv(env []string) []string {
	return append(env, "GORACE="+GORACE())
}
