package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/xosplan/xosplan/pkg/redact"
	"github.com/xosplan/xosplan/pkg/state"
)

// ErrTimeout is wrapped by the error of an operation that ran past its
// timeout and was killed.
var ErrTimeout = errors.New("operation timed out")

// ErrReplyTooLarge is wrapped by the error of a script whose stdout went
// past the reply limit.
var ErrReplyTooLarge = errors.New("script output too large")

// Process is one subprocess to run: the drivers' operations and scripts,
// health checks and discovery, model policies (RunProgram).
type Process struct {
	// Argv is the command line; Argv[0] is looked up in PATH.
	Argv []string
	// Dir is the working folder.
	Dir string
	// Env is the whole environment (nothing is inherited).
	Env []string
	// Stdin is the process's input; nil means none (/dev/null).
	Stdin   []byte
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL of the process group.
	Grace time.Duration
	// Output receives each line of stdout (when EchoStdout) and stderr.
	Output     func(line string)
	EchoStdout bool
	// MaxStdout, when positive, bounds stdout (a scripted component's
	// reply): a script that writes more fails with ErrReplyTooLarge.
	MaxStdout int
	// OnStdoutLine sees each stdout line as it arrives (the scripted
	// driver splits YAML documents with it to stream command results).
	OnStdoutLine func(line string)
	// CaptureStdout keeps stdout whole, up to MaxStdout, for
	// Result.Stdout (RunProgram).
	CaptureStdout bool
	// MaxTail bounds the combined output tail kept.
	MaxTail int
	// Redact removes secrets from what is shown and kept: output lines,
	// the tail, the stderr of an error. The lines OnStdoutLine sees are
	// the script's reply, and stay whole.
	Redact *redact.Redactor
	// Started, when set, learns the process group right after the start
	// (driver.Request.Started).
	Started func(state.Process)
}

// Result is what a finished subprocess left.
type Result struct {
	// Stdout is what the process printed, kept with CaptureStdout.
	Stdout   []byte
	Tail     string // last MaxTail bytes of stdout and stderr, interleaved
	Stderr   string // last lines of stderr, for error messages
	ExitCode int
}

// Run starts p in its own process group and waits for it. The returned
// error is nil only for exit status 0. The group ends with the call:
// on timeout or cancellation it gets SIGTERM, then SIGKILL after the
// grace period; when the script exits, whatever it left running in its
// group (a background child) gets the same, so nothing outlives the
// operation and the call does not wait for such a child.
func (p Process) Run(ctx context.Context) (Result, error) {
	// Pdeathsig (Linux) fires when the OS thread that started the child
	// exits, not when xosplan does; the runtime may end an idle thread
	// (one a goroutine left locked). Holding this thread until the child
	// is reaped keeps the signal for xosplan's own death.
	defer pinThread()()
	parent := ctx
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, p.Timeout)
		defer cancel()
	}
	sink := &outputSink{p: &p, shown: [2]*redact.Stream{p.Redact.Stream(), p.Redact.Stream()}}
	var outR, errR *os.File
	cmd := p.command()
	status, err := superviseCommand(cmd)
	if err == nil {
		outR, errR, err = startPiped(cmd, status)
	}
	if err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("starting %s: %w", p.Argv[0], err)
	}
	defer closeAll(outR, errR)
	pgid := cmd.Process.Pid
	if p.Started != nil {
		p.Started(Group(pgid))
	}
	var readers sync.WaitGroup
	readers.Go(func() { _, _ = io.Copy(sink.writer(true), outR) })
	readers.Go(func() { _, _ = io.Copy(sink.writer(false), errR) })
	err = reap(cmd, p.await(ctx, cmd, pgid))
	awaitGroupEnd(pgid, p.Grace)
	drainOutput(&readers, p.Grace, outR, errR)
	sink.flush()
	res := Result{Stdout: sink.stdout, Tail: sink.tail.String(), Stderr: sink.stderrTail(), ExitCode: exitCode(cmd)}
	return res, p.failure(parent, ctx, sink, res, err)
}

// command is the command of p, in its own process group.
func (p Process) command() *exec.Cmd {
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Dir = p.Dir
	cmd.Env = p.Env
	if p.Stdin != nil {
		cmd.Stdin = bytes.NewReader(p.Stdin)
	}
	setProcessGroup(cmd)
	// Bounds the copy of stdin to a group member that never reads it.
	cmd.WaitDelay = p.Grace
	return cmd
}

// startPiped starts cmd with its stdout and stderr on pipes of our own,
// not exec's copying goroutines: Wait then returns when the script exits,
// and the group can be ended before its output is drained. With a
// supervisor's status pipe (superviseCommand) it returns once the script
// has started, with the error of a script that could not. The caller
// closes the read ends it gets.
func startPiped(cmd *exec.Cmd, status *os.File) (outR, errR *os.File, err error) {
	if status != nil {
		defer status.Close()
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW)
		return nil, nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	closeAll(outW, errW)
	closeAll(cmd.ExtraFiles...)
	if err == nil && status != nil {
		err = awaitSupervisedStart(cmd, status)
	}
	if err != nil {
		closeAll(outR, errR)
		return nil, nil, err
	}
	return outR, errR, nil
}

// await waits for the script to exit and ends its group: when the script
// exits, what it left running in its group goes too (signalling every
// time costs less than looking first); when ctx ends first, the group
// gets SIGTERM, then SIGKILL after the grace period.
func (p Process) await(ctx context.Context, cmd *exec.Cmd, pgid int) error {
	exited := make(chan error, 1)
	go func() { exited <- awaitExit(cmd) }()
	select {
	case err := <-exited:
		signalPGID(pgid, false)
		return err
	case <-ctx.Done():
	}
	signalGroup(cmd, false)
	t := time.NewTimer(p.Grace)
	defer t.Stop()
	select {
	case err := <-exited:
		return err
	case <-t.C:
		signalGroup(cmd, true)
		return <-exited
	}
}

// failure is the error of a finished run, nil for exit status 0: the
// caller's ctx (parent) ended, the timeout (ctx) passed, stdout went past
// its limit, or the script failed (its exit status and the end of its
// stderr).
func (p Process) failure(parent, ctx context.Context, sink *outputSink, res Result, err error) error {
	switch {
	case parent.Err() != nil:
		// The cause says why: an interrupt (ErrInterrupted), or the
		// caller's own.
		return fmt.Errorf("%s stopped: %w (its process group was ended)", p.Argv[len(p.Argv)-1], context.Cause(parent))
	case ctx.Err() != nil:
		return fmt.Errorf("%w after %s (process group killed)", ErrTimeout, p.Timeout)
	case sink.overflow:
		return fmt.Errorf("%w: more than %d bytes on stdout", ErrReplyTooLarge, p.MaxStdout)
	case err == nil:
		return nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		msg := fmt.Sprintf("exit status %d", res.ExitCode)
		if res.ExitCode < 0 {
			msg = ee.Error()
		}
		if res.Stderr != "" {
			msg += ": " + res.Stderr
		}
		return errors.New(msg)
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The script exited but something held its stdin open; what it
		// printed is complete.
		return nil
	}
	return err
}

// drainOutput waits for the output readers to reach the end of the pipes.
// Once the group is gone that is at once, unless a process that left the
// group (setsid) still holds them: after grace the pipes are closed under
// the readers.
func drainOutput(readers *sync.WaitGroup, grace time.Duration, pipes ...*os.File) {
	drained := make(chan struct{})
	go func() {
		readers.Wait()
		close(drained)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-drained:
	case <-t.C:
		closeAll(pipes...)
		<-drained
	}
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

func exitCode(cmd *exec.Cmd) int {
	if cmd.ProcessState == nil {
		return -1
	}
	return cmd.ProcessState.ExitCode()
}

// DefaultGrace is the time a process group gets between SIGTERM and
// SIGKILL when its caller gives none (driver.Options.KillGrace's default,
// and the grace of a leftover group).
const DefaultGrace = 2 * time.Second

// Group returns the record of the process group pgid as Process.Started
// reports it: its id and the start token that tells it from a later group
// given the same id.
func Group(pgid int) state.Process {
	return state.Process{PID: pgid, PGID: pgid, Start: startToken(pgid)}
}

// EndLeftover ends the group g a crashed run recorded (Group), if it is
// still running and is that group: SIGTERM, then SIGKILL to what is left
// after DefaultGrace. It reports whether there was such a group.
func EndLeftover(g state.Process) bool {
	if !leftoverAlive(g.PGID, g.Start) {
		return false
	}
	signalPGID(g.PGID, false)
	awaitGroupEnd(g.PGID, DefaultGrace)
	return true
}

// awaitGroupEnd gives a signalled group up to grace to end, then sends
// SIGKILL to what is left. A group already empty costs one check.
func awaitGroupEnd(pgid int, grace time.Duration) {
	if !groupAlive(pgid) {
		return
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		time.Sleep(groupPoll)
		if !groupAlive(pgid) {
			return
		}
	}
	signalPGID(pgid, true)
}

// groupPoll is how often awaitGroupEnd looks whether a group has ended.
const groupPoll = 10 * time.Millisecond

// outputSink splits a process's output into lines for the Output callback
// and keeps a bounded tail and, optionally, the whole of stdout. What is
// shown and kept passes through the process's Redactor first; the reply
// (captured stdout, OnStdoutLine) does not.
type outputSink struct {
	p  *Process
	mu sync.Mutex
	// stdoutBytes counts stdout, for MaxStdout.
	stdoutBytes int
	overflow    bool
	tail        tailBuffer
	errTail     tailBuffer
	// shown redacts stdout [0] and stderr [1]; partial holds the start
	// of a line of each not yet ended, reply that of the raw stdout.
	shown   [2]*redact.Stream
	partial [2][]byte
	reply   []byte
	// stdout is the raw stdout kept with captureStdout, never past
	// maxStdout.
	stdout []byte
}

func (s *outputSink) writer(stdout bool) *sinkWriter { return &sinkWriter{s: s, stdout: stdout} }

type sinkWriter struct {
	s      *outputSink
	stdout bool
}

// Write never fails: a process must not die of SIGPIPE because its output
// is too much; the excess is dropped and flagged.
func (w *sinkWriter) Write(b []byte) (int, error) {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tail.max == 0 {
		s.tail.max = max(s.p.MaxTail, 1)
		s.errTail.max = 2048
	}
	i := 1
	if w.stdout {
		i = 0
		if s.p.MaxStdout > 0 {
			s.stdoutBytes += len(b)
			s.overflow = s.overflow || s.stdoutBytes > s.p.MaxStdout
		}
		if s.p.OnStdoutLine != nil {
			s.reply = splitLines(append(s.reply, b...), s.replyLine)
		}
		if s.p.CaptureStdout && !s.overflow {
			s.stdout = append(s.stdout, b...)
		}
	}
	s.show(i, s.shown[i].Write(b))
	return len(b), nil
}

// show keeps redacted output of stream i in the tails and passes its
// finished lines on.
func (s *outputSink) show(i int, b []byte) {
	s.tail.write(b)
	if i == 1 {
		s.errTail.write(b)
	}
	s.partial[i] = splitLines(append(s.partial[i], b...), func(l string) { s.line(i == 0, l) })
}

// splitLines calls fn with each finished line of buf and returns the rest.
func splitLines(buf []byte, fn func(string)) []byte {
	rest := buf
	for {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		fn(strings.TrimSuffix(string(rest[:nl]), "\r"))
		rest = rest[nl+1:]
	}
	if len(rest) > 64<<10 {
		// A "line" this long is not one; pass it on in pieces.
		fn(string(rest))
		rest = nil
	}
	return append(buf[:0], rest...)
}

func (s *outputSink) replyLine(l string) {
	if !s.overflow {
		s.p.OnStdoutLine(l)
	}
}

func (s *outputSink) line(stdout bool, l string) {
	if s.p.Output != nil && (!stdout || s.p.EchoStdout) {
		s.p.Output(l)
	}
}

func (s *outputSink) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reply) > 0 && s.p.OnStdoutLine != nil {
		s.replyLine(strings.TrimSuffix(string(s.reply), "\r"))
		s.reply = nil
	}
	for i := range s.shown {
		if b := s.shown[i].Flush(); len(b) > 0 {
			s.show(i, b)
		}
	}
	for i, b := range s.partial {
		if len(b) > 0 {
			s.line(i == 0, strings.TrimSuffix(string(b), "\r"))
			s.partial[i] = nil
		}
	}
}

// stderrTail returns the last few lines of stderr, joined for an error.
func (s *outputSink) stderrTail() string {
	lines := strings.Split(strings.TrimSpace(s.errTail.String()), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
	cut bool
}

func (t *tailBuffer) write(b []byte) {
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.cut = true
	}
}

// String returns the tail, starting at a line boundary when it was cut.
func (t *tailBuffer) String() string {
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		t.cut = true
	}
	if t.cut {
		if nl := bytes.IndexByte(b, '\n'); nl >= 0 && nl < len(b)-1 {
			b = b[nl+1:]
		}
		return "…\n" + strings.ToValidUTF8(string(b), "")
	}
	return strings.ToValidUTF8(string(b), "")
}
