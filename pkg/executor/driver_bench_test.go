//go:build unix

package executor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
)

// BenchmarkExecOperation measures the driver's cost around one subprocess
// that does nothing: the per-action overhead of an exec operation.
func BenchmarkExecOperation(b *testing.B) {
	dir := b.TempDir()
	testutil.WriteScript(b, dir, "op.sh", ":")
	r := execResource("n", map[string]graph.Operation{"Standard.create": {Implementation: "op.sh", Inputs: map[string]graph.Value{"a": "1", "b": int64(2)}}})
	d := NewExec(testOpts(""))
	req := Request{Action: ActionCreate, Address: "n", Resource: r, WorkDir: dir}
	b.ResetTimer()
	for range b.N {
		if _, err := d.Apply(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScriptedLaunchBatch launches 100 instances with one run of a
// shell script that answers for all of them.
func BenchmarkScriptedLaunchBatch(b *testing.B) {
	root := b.TempDir()
	// The reply is generated in advance: the benchmark measures the
	// driver (stdin document, streaming parse, correlation), not sh.
	var reply strings.Builder
	reply.WriteString("instances:\n")
	reqs := make([]Request, 100)
	for i := range reqs {
		addr := fmt.Sprintf("A%d.c", i)
		fmt.Fprintf(&reply, "  n-%d:\n    instanceId: %s\n    $set: {status.flags.active: true, interfaces.web.signals.url: http://n-%d/}\n", i, syntheticID(addr), i)
		r := scriptedResource(addr, map[string]string{graph.OpLaunch: "/c/launch.sh", graph.OpDestroy: "/c/launch.sh"}, map[string]graph.Value{"configuration.size": int64(i)})
		reqs[i] = Request{Action: ActionCreate, Address: addr, Resource: r, Resolved: r.Spec}
	}
	testutil.WriteScript(b, root, "c/reply.yaml", reply.String())
	testutil.WriteScript(b, root, "c/launch.sh", `cat >/dev/null; cat "$XOSPLAN_SCRIPT_ROOT/c/reply.yaml"`)
	d := NewScripted(testOpts(root))
	b.ResetTimer()
	for range b.N {
		for i, r := range d.LaunchBatch(context.Background(), reqs) {
			if r.Err != nil {
				b.Fatalf("%d: %v", i, r.Err)
			}
		}
	}
}

// BenchmarkParseReply parses and applies a 1,000-instance reply.
func BenchmarkParseReply(b *testing.B) {
	var reply strings.Builder
	reply.WriteString("instances:\n")
	for i := range 1000 {
		fmt.Fprintf(&reply, "  n-%d:\n    $set: {status.flags.active: true}\n    interfaces: {web: {signals: {url: http://n-%d/}}}\n    $pushAll:\n      activityLog: [{severity: info, message: up}]\n", i, i)
	}
	data := []byte(reply.String())
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		docs, diags := parseReplyDocs("bench", data)
		if diags.HasErrors() {
			b.Fatal(diags.Err())
		}
		for _, iu := range docs[0].instances {
			m := instanceModel{}
			for _, u := range iu.updates {
				if _, err := m.apply(u); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// BenchmarkExecParallelSleep runs 200 operations of a 50 ms script, 10 at
// a time, through the exec driver alone; the ideal is 1 s. It reports how
// far above the ideal the driver and the machine take.
func BenchmarkExecParallelSleep(b *testing.B) {
	dir := b.TempDir()
	testutil.WriteScript(b, dir, "sleep.sh", "sleep 0.05\n")
	r := execResource("n", map[string]graph.Operation{"Standard.create": {Implementation: "sleep.sh"}})
	d := NewExec(testOpts(""))
	const n, par = 200, 10
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		sem := make(chan struct{}, par)
		var wg sync.WaitGroup
		for range n {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				if _, err := d.Apply(context.Background(), Request{Action: ActionCreate, Address: "n", Resource: r, WorkDir: dir}); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	per := time.Since(start) / time.Duration(b.N)
	ideal := time.Duration(n/par) * 50 * time.Millisecond
	b.ReportMetric(float64(per-ideal)/float64(ideal)*100, "%over-ideal")
	// Each of the n/par waves of par actions is slower by this much.
	b.ReportMetric(float64((per-ideal)/time.Microsecond)/float64(n/par), "overhead-µs/wave")
}
