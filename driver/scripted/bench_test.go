//go:build unix

package scripted

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
)

// BenchmarkScriptedLaunchBatch launches 100 instances with one run of a
// shell script that answers for all of them.
func BenchmarkScriptedLaunchBatch(b *testing.B) {
	root := b.TempDir()
	// The reply is generated in advance: the benchmark measures the
	// driver (stdin document, streaming parse, correlation), not sh.
	var reply strings.Builder
	reply.WriteString("instances:\n")
	reqs := make([]driver.Request, 100)
	for i := range reqs {
		addr := fmt.Sprintf("A%d.c", i)
		fmt.Fprintf(&reply, "  n-%d:\n    instanceId: %s\n    $set: {status.flags.active: true, interfaces.web.signals.url: http://n-%d/}\n", i, driver.InstanceID(addr), i)
		r := scriptedResource(addr, map[string]string{graph.OpLaunch: "/c/launch.sh", graph.OpDestroy: "/c/launch.sh"}, map[string]graph.Value{"configuration.size": int64(i)})
		reqs[i] = driver.Request{Action: driver.ActionCreate, Address: addr, Resource: r, Resolved: r.Spec}
	}
	testutil.WriteScript(b, root, "c/reply.yaml", reply.String())
	testutil.WriteScript(b, root, "c/launch.sh", `cat >/dev/null; cat "$XOSPLAN_SCRIPT_ROOT/c/reply.yaml"`)
	d := New(drivertest.Options(root))
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
