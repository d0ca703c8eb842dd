package executor

import (
	"context"
	"time"

	"github.com/xosplan/xosplan/pkg/state"
)

// Command is one subprocess a driver outside this package runs (the
// Ansible driver's ansible-playbook) through the runner the exec driver
// uses: its own process group, a timeout, SIGTERM then SIGKILL to the
// group when the call ends, on Linux the supervisor that ends it with
// xosplan, and bounded, redacted output.
type Command struct {
	// Argv is the program and its arguments; Argv[0] is looked up on
	// PATH.
	Argv []string
	// Dir is the working folder.
	Dir string
	// Env is the whole environment (nothing is inherited).
	Env []string
	// Timeout bounds the run (zero: none beyond ctx).
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL of the process group;
	// zero means the drivers' default.
	Grace time.Duration
	// Output receives each line of stdout and stderr, redacted; nil for
	// none.
	Output func(line string)
	// MaxTail bounds the output tail kept, in bytes.
	MaxTail int
	// Redactor removes secrets from the lines, the tail and the error.
	Redactor *Redactor
	// Started learns the process group right after the start
	// (Request.Started).
	Started func(state.Process)
}

// CommandTail is what a finished Command left: the last MaxTail bytes of
// its stdout and stderr, interleaved and redacted, and its exit status
// (-1 when it did not exit by itself).
type CommandTail struct {
	Tail     string
	ExitCode int
}

// RunCommand runs c and waits for it. The error is nil only for exit
// status 0; it wraps ErrTimeout when the timeout passed and the cause of
// ctx when ctx ended first; it quotes the end of stderr otherwise. The
// process group ends with the call, whatever happens.
func RunCommand(ctx context.Context, c Command) (CommandTail, error) {
	grace := c.Grace
	if grace <= 0 {
		grace = defaultKillGrace
	}
	res, err := process{
		argv:       c.Argv,
		dir:        c.Dir,
		env:        c.Env,
		timeout:    c.Timeout,
		grace:      grace,
		output:     c.Output,
		echoStdout: true,
		maxTail:    c.MaxTail,
		redact:     c.Redactor,
		started:    c.Started,
	}.run(ctx)
	return CommandTail{Tail: res.tail, ExitCode: res.exitCode}, err
}
