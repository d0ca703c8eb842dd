package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// writeNoopStack writes n TOSCA node templates that the noop driver
// applies (tosca.nodes.Root, with nothing to run) into files of at most
// perFile each, in dir.
func writeNoopStack(tb testing.TB, dir string, n, perFile int) {
	tb.Helper()
	for f := 0; f*perFile < n; f++ {
		var b bytes.Buffer
		b.WriteString("tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n")
		for i := f * perFile; i < min(n, (f+1)*perFile); i++ {
			fmt.Fprintf(&b, "    node%d: {type: tosca.nodes.Root, properties: {}}\n", i)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part%d.yaml", f)), b.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkApply80k runs the whole apply command, with the binary's
// garbage-collector settings, on 80,000 resources of the noop driver
// (eight files of 10,000) into a new local state: compile, plan, the
// walk with its journal, and the state written. Besides the time it
// reports the CPU time and the peak of the memory the Go runtime held
// (peak-MB, what the process's resident size follows; the figure the
// README states).
func BenchmarkApply80k(b *testing.B) {
	const n = 80_000
	dir := b.TempDir()
	cfg := filepath.Join(dir, "stack")
	if err := os.Mkdir(cfg, 0o755); err != nil {
		b.Fatal(err)
	}
	writeNoopStack(b, cfg, n, 10_000)
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(memoryLimit))
	// The plan's text goes to a terminal, not into memory: only the end,
	// with the apply's summary, is kept.
	var stdout tailWriter
	var stderr bytes.Buffer
	var peak uint64
	var cpu time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		st := filepath.Join(dir, fmt.Sprintf("state%d.json", i))
		runtime.GC()
		debug.FreeOSMemory()
		stop := startPeakSampler()
		start := testutil.CPUTime()
		b.StartTimer()
		stdout.Reset()
		stderr.Reset()
		code := run(context.Background(), []string{"apply", "--auto-approve", "--no-color", "--state", st, cfg}, nil, &stdout, &stderr)
		b.StopTimer()
		cpu += testutil.CPUTime() - start
		peak = max(peak, stop())
		if code != 0 || !bytes.Contains(stdout.tail, fmt.Appendf(nil, "Resources: %d added", n)) {
			b.Fatalf("exit %d: %.500s %.500s", code, string(stdout.tail), stderr.String())
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	runtime.GC()
	debug.FreeOSMemory()
}

// tailWriter keeps the last 4 KiB written to it.
type tailWriter struct{ tail []byte }

func (w *tailWriter) Write(p []byte) (int, error) {
	w.tail = append(w.tail, p...)
	if over := len(w.tail) - 4096; over > 0 {
		w.tail = append(w.tail[:0], w.tail[over:]...)
	}
	return len(p), nil
}

func (w *tailWriter) Reset() { w.tail = w.tail[:0] }

// The benchmark's stack is what it says: every node applied by noop.
func TestNoopStackApplies(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "stack")
	if err := os.Mkdir(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	writeNoopStack(t, cfg, 30, 20)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"apply", "--auto-approve", "--no-color", "--state", filepath.Join(dir, "s.json"), cfg}, nil, &stdout, &stderr)
	if code != 0 || !bytes.Contains(stdout.Bytes(), []byte("Resources: 30 added")) {
		t.Fatalf("exit %d: %s %s", code, stdout.String(), stderr.String())
	}
}
