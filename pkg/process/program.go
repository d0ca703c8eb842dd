package process

import (
	"context"
	"errors"
	"time"
)

// Program is a subprocess run to completion with its stdout kept whole:
// what pkg/policy runs (a model policy), through the same runner as the
// drivers' scripts, so that it gets the same process group, timeout,
// cancellation and output bounds.
type Program struct {
	// Path is the executable; a .sh, .bash or .py file runs under its
	// interpreter, anything else by its #! line, as operation
	// implementations do. The caller confines it.
	Path string
	// Dir is the working folder.
	Dir string
	// Env is the whole environment (nothing is inherited).
	Env []string
	// Stdin is the program's input.
	Stdin []byte
	// Timeout bounds the run (required: a positive duration).
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL of the process group;
	// zero means DefaultGrace.
	Grace time.Duration
	// MaxStdout bounds stdout (required: a positive size); a program that
	// prints more fails with ErrReplyTooLarge.
	MaxStdout int
}

// ProgramResult is what a finished program left.
type ProgramResult struct {
	// Stdout is what it printed, whole.
	Stdout []byte
	// Stderr is the last lines of its stderr.
	Stderr string
	// ExitCode is its exit status, -1 when it did not exit by itself.
	ExitCode int
}

// RunProgram runs p in its own process group and waits for it. The error
// is nil only for exit status 0; it wraps ErrTimeout when the timeout
// passed, ErrReplyTooLarge when stdout went past MaxStdout, and the cause
// of ctx when ctx ended first. The process group ends with the call,
// whatever happens.
func RunProgram(ctx context.Context, p Program) (ProgramResult, error) {
	if p.Timeout <= 0 || p.MaxStdout <= 0 {
		return ProgramResult{ExitCode: -1}, errors.New("a program needs a positive timeout and stdout limit")
	}
	argv, err := Interpreter(ctx, p.Path)
	if err != nil {
		return ProgramResult{ExitCode: -1}, err
	}
	stdin := p.Stdin
	if stdin == nil {
		stdin = []byte{}
	}
	grace := p.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	res, err := Process{
		Argv:          argv,
		Dir:           p.Dir,
		Env:           p.Env,
		Stdin:         stdin,
		Timeout:       p.Timeout,
		Grace:         grace,
		MaxStdout:     p.MaxStdout,
		CaptureStdout: true,
		MaxTail:       4 << 10,
	}.Run(ctx)
	return ProgramResult{Stdout: res.Stdout, Stderr: res.Stderr, ExitCode: res.ExitCode}, err
}
