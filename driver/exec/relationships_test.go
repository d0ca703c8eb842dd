//go:build unix

package exec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
)

// TestExecRunsEachRelationshipsOperation checks that when several
// relationships of a node define one Configure operation, each runs in
// its turn (requirement name, then index) and its outputs set its own
// relationship's attributes. Before, the compilers gave them one key
// (the last relationship's operation alone ran), and the driver ran only
// the plain "Configure.<operation>" keys, so none of these ran: the log
// held Standard.create, Standard.configure and Standard.start only.
func TestExecRunsEachRelationshipsOperation(t *testing.T) {
	dir := t.TempDir()
	stateDir := t.TempDir()
	testutil.WriteScript(t, dir, "op.sh", `echo "$XOSPLAN_OPERATION $name" >> "$XOSPLAN_STATE_DIR/log"
echo "link=L-$name" >> "$XOSPLAN_OUTPUTS"
`)
	rel := func(req string, idx int, target, name string) graph.Operation {
		return graph.Operation{Implementation: "op.sh", Inputs: map[string]graph.Value{"name": name},
			Outputs: map[string]string{"link": graph.OutputAttribute{Requirement: req, Index: idx, Target: target, Name: "link_id"}.String()}}
	}
	ops := map[string]graph.Operation{
		"Standard.create":                         {Implementation: "op.sh", Inputs: map[string]graph.Value{"name": "node"}},
		"Configure.pre_configure_source@db[1]":    rel("db", 1, "db2", "db1"),
		"Configure.pre_configure_source@db[0]":    rel("db", 0, "db", "db0"),
		"Configure.pre_configure_source@cache[0]": rel("cache", 0, "cache", "cache0"),
		"Configure.add_source":                    {Implementation: "op.sh", Inputs: map[string]graph.Value{"name": "only"}},
		"Configure.add_target@db[0]":              {Inputs: map[string]graph.Value{"name": "no implementation: skipped"}},
	}
	d := New(func() driver.Options { o := drivertest.Options(""); o.StateDir = stateDir; return o }())
	o, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: "app", Resource: execResource("app", ops), WorkDir: dir})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	log, _ := os.ReadFile(filepath.Join(stateDir, "log"))
	want := strings.Join([]string{
		"Standard.create node",
		"Configure.pre_configure_source@cache[0] cache0",
		"Configure.pre_configure_source@db[0] db0",
		"Configure.pre_configure_source@db[1] db1",
		"Configure.add_source only",
	}, "\n")
	if got := strings.TrimSpace(string(log)); got != want {
		t.Errorf("operations run:\n%s\nwant:\n%s", got, want)
	}
	for req, w := range map[graph.OutputAttribute]string{
		{Requirement: "db", Index: 0, Target: "db", Name: "link_id"}:       "L-db0",
		{Requirement: "db", Index: 1, Target: "db2", Name: "link_id"}:      "L-db1",
		{Requirement: "cache", Index: 0, Target: "cache", Name: "link_id"}: "L-cache0",
	} {
		if got := o.Feedback.Attributes[req.String()]; got != w {
			t.Errorf("attribute %s = %v, want %q (all: %v)", req, got, w, o.Feedback.Attributes)
		}
	}
}
