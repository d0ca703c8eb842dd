//go:build unix

package scripted

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/process"
	"github.com/xosplan/xosplan/pkg/state"
)

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}

// TestPetClinicScripts runs the example's real scripts through the
// scripted driver: batched launch of two VMs, health check, reconfigure,
// a command with intermediate results, discovery, a PetClinic launch
// whose VM references resolve through the factory mapping, and destroy.
func TestPetClinicScripts(t *testing.T) {
	needPython(t)
	root := filepath.Join(testutil.ModuleRoot(t), "examples", "petclinic", "scripts")
	reg := t.TempDir()
	opts := drivertest.Options(root)
	opts.Env = []string{"XOSPLAN_REGISTRY=" + reg}
	d := New(opts)
	ctx := context.Background()
	vmOps := map[string]string{
		graph.OpLaunch: "/vm/launch.py", graph.OpDestroy: "/vm/destroy.py", graph.OpHealthCheck: "/vm/healthCheck.py",
		graph.OpReconfigure: "/vm/reconfigure.py", graph.OpCommandPrefix + "control.reboot": "/vm/reboot.py",
	}
	vm1 := scriptedResource("VM.vm", vmOps, map[string]graph.Value{"configuration.instanceType": "m1.small"})
	vm2 := scriptedResource("VM2.vm", vmOps, map[string]graph.Value{"configuration.instanceType": "m3.large"})
	factory := &state.Resource{Address: "F.factory", Spec: map[string]graph.Value{"configuration.awsAccessKey": "XXX", "component.application": "VM"}}

	reqs := []driver.Request{
		{Action: driver.ActionCreate, Address: vm1.Address, Resource: vm1, Resolved: vm1.Spec, Factory: factory},
		{Action: driver.ActionCreate, Address: vm2.Address, Resource: vm2, Resolved: vm2.Spec, Factory: factory},
	}
	if k1, k2 := d.BatchKey(reqs[0]), d.BatchKey(reqs[1]); k1 == "" || k1 != k2 {
		t.Fatalf("batch keys %q, %q: want equal and non-empty", k1, k2)
	}
	res := d.LaunchBatch(ctx, reqs)
	var recs []*state.Resource
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("launch %d: %v\n%s", i, r.Err, r.Outcome.Feedback.Output)
		}
		fb := r.Outcome.Feedback
		if !fb.Status.Active || fb.BackendCode != state.BackendOK || !strings.HasPrefix(fb.InstanceID, "i-") {
			t.Fatalf("launch %d: feedback %+v", i, fb)
		}
		if ip, _ := fb.Signals["compute.ip"].(string); !strings.HasPrefix(ip, "203.0.113.") {
			t.Errorf("launch %d: compute.ip = %v", i, fb.Signals["compute.ip"])
		}
		if fb.Extra[driver.ExtraInstanceID] != driver.InstanceID(reqs[i].Address) {
			t.Errorf("launch %d: instance id %v", i, fb.Extra[driver.ExtraInstanceID])
		}
		recs = append(recs, drivertest.Recorded(reqs[i].Resource, r.Outcome))
	}
	if recs[0].Feedback.InstanceID == recs[1].Feedback.InstanceID {
		t.Fatal("two launches share a natural id")
	}
	// Launch is idempotent: again, same natural id.
	o, err := d.Apply(ctx, driver.Request{Action: driver.ActionCreate, Address: vm1.Address, Resource: vm1, Resolved: vm1.Spec, Prior: recs[0], Factory: factory})
	if err != nil || o.Feedback.InstanceID != recs[0].Feedback.InstanceID {
		t.Fatalf("relaunch: %v, id %q want %q", err, o.Feedback.InstanceID, recs[0].Feedback.InstanceID)
	}

	o, err = d.Apply(ctx, driver.Request{Action: driver.ActionHealth, Address: vm1.Address, Resource: vm1, Prior: recs[0], Factory: factory})
	if err != nil || !o.Feedback.Status.Active {
		t.Fatalf("health: %v %+v", err, o.Feedback.Status)
	}

	spec := map[string]graph.Value{"configuration.instanceType": "m4.xlarge"}
	o, err = d.Apply(ctx, driver.Request{Action: driver.ActionUpdate, Address: vm1.Address, Resource: vm1, Resolved: spec, Prior: recs[0], Factory: factory})
	if err != nil || !o.Feedback.Status.Active {
		t.Fatalf("reconfigure: %v %+v", err, o.Feedback.Status)
	}
	if b, _ := os.ReadFile(filepath.Join(reg, "vm", recs[0].Feedback.InstanceID+".json")); !strings.Contains(string(b), "m4.xlarge") {
		t.Errorf("reconfigure did not reach the registry: %s", b)
	}

	var out drivertest.Lines
	o, err = d.Invoke(ctx, driver.Request{Address: vm1.Address, Resource: vm1, Prior: recs[0], Factory: factory, Output: out.Add}, "control.reboot", nil)
	if err != nil {
		t.Fatalf("invoke: %v\n%s", err, o.Feedback.Output)
	}
	if len(o.Results) != 2 || !o.Results[0].Intermediate || o.Results[1].Intermediate || o.Results[1].Values["state"] != "rebooted" {
		t.Fatalf("invoke results %+v", o.Results)
	}
	if txt := out.Text(); !strings.Contains(txt, `intermediate {"state":"rebooting"}`) || !strings.Contains(txt, "[INFO] VM.vm: vm "+recs[0].Feedback.InstanceID+" rebooted") {
		t.Errorf("invoke output:\n%s", txt)
	}

	// Discovery adopts what the registry holds.
	vmFactory := &graph.Resource{Address: "F.factory", Driver: graph.Driver{Name: graph.DriverScripted, Operations: map[string]graph.Operation{graph.OpDiscovery: {Implementation: "/vm/discover.py"}}}}
	o, err = d.Apply(ctx, driver.Request{Action: driver.ActionDiscover, Address: vmFactory.Address, Resource: vmFactory})
	if err != nil || len(o.Discovered) != 2 {
		t.Fatalf("discover: %v %+v", err, o.Discovered)
	}
	if o.Discovered[0].NaturalID > o.Discovered[1].NaturalID || !strings.HasPrefix(o.Discovered[0].Name, "vm i-") {
		t.Errorf("discovered %+v", o.Discovered)
	}

	// PetClinic references resolve through the factory's vms.vm-by-id.
	// As the walk records the PetClinic factory: its consume-signal pin
	// resolved to the VM factory's factory.instances.
	pcFactory := &state.Resource{Address: "P.factory", Spec: map[string]graph.Value{"configuration.registry": "local"}, Feedback: state.Feedback{Resolved: map[string]graph.Value{
		"configuration.registry": "local",
		"vms.vm-by-id":           map[string]graph.Value{recs[0].Feedback.InstanceID: "vm-one", recs[1].Feedback.InstanceID: "vm-two"},
	}}}
	// The factory itself runs nothing on create.
	o, err = d.Apply(ctx, driver.Request{Action: driver.ActionCreate, Address: "P.factory", Resource: &graph.Resource{Address: "P.factory", Driver: graph.Driver{Name: graph.DriverScripted, Operations: map[string]graph.Operation{graph.OpDiscovery: {Implementation: "/petclinic/discover.py"}}}}})
	if err != nil || !o.Feedback.Status.Active {
		t.Fatalf("factory create: %v %+v", err, o.Feedback)
	}
	pc := scriptedResource("PetClinic.petclinic", map[string]string{graph.OpLaunch: "/petclinic/launch.py", graph.OpDestroy: "/petclinic/destroy.py", graph.OpHealthCheck: "/petclinic/healthCheck.py"}, map[string]graph.Value{})
	o, err = d.Apply(ctx, driver.Request{Action: driver.ActionCreate, Address: pc.Address, Resource: pc, Factory: pcFactory})
	if err != nil {
		t.Fatalf("petclinic launch: %v\n%s", err, o.Feedback.Output)
	}
	comps, _ := o.Feedback.Attributes[AttrComponents].(map[string]graph.Value)
	for _, role := range []string{"haproxy-vm", "tomcat-vm"} {
		ref, _ := comps[role].(map[string]graph.Value)
		if id, _ := ref["instance"].(string); id != "vm-one" && id != "vm-two" {
			t.Errorf("reference %s not resolved: %v", role, comps[role])
		}
	}
	pcRec := drivertest.Recorded(pc, o)
	o, err = d.Apply(ctx, driver.Request{Action: driver.ActionDelete, Address: pc.Address, Prior: pcRec, Factory: pcFactory})
	if err != nil || !o.Gone {
		t.Fatalf("petclinic destroy: %v gone=%v", err, o.Gone)
	}

	// Destroy both VMs in one batch.
	res = d.LaunchBatch(ctx, []driver.Request{
		{Action: driver.ActionDelete, Address: vm1.Address, Prior: recs[0], Factory: factory},
		{Action: driver.ActionDelete, Address: vm2.Address, Resource: vm2, Prior: recs[1], Factory: factory},
	})
	for i, r := range res {
		if r.Err != nil || !r.Outcome.Gone {
			t.Fatalf("destroy %d: %v gone=%v", i, r.Err, r.Outcome.Gone)
		}
	}
	if ids, _ := filepath.Glob(filepath.Join(reg, "vm", "*.json")); len(ids) != 0 {
		t.Errorf("registry still holds %v", ids)
	}
	// A health check now reports the vanished instance failed.
	_, err = d.Apply(ctx, driver.Request{Action: driver.ActionHealth, Address: vm1.Address, Resource: vm1, Prior: recs[0], Factory: factory})
	if err == nil || !strings.Contains(err.Error(), "not in the registry") {
		t.Errorf("health of a destroyed VM: %v", err)
	}
}

// TestScriptedFaults runs small shell scripts that misbehave: each failure
// is a clean error of the action, never a crash or a hang.
func TestScriptedFaults(t *testing.T) {
	launchOK := `cat >/dev/null; printf 'instances:\n  n-1:\n    instanceId: %s\n    $set:\n      status.flags.active: true\n' "$ID"`
	cases := []struct {
		name    string
		launch  string
		timeout time.Duration
		want    string // substring of the error; "" = success
		check   func(t *testing.T, o driver.Outcome)
	}{
		{name: "ok", launch: launchOK},
		{name: "garbage", launch: `cat >/dev/null; printf '\001\002 binary {{{ garbage\n'`, want: "malformed reply"},
		{name: "not yaml", launch: `cat >/dev/null; echo 'instances: [unclosed'`, want: "malformed reply"},
		{name: "wrong shape", launch: `cat >/dev/null; echo '- just a list'`, want: "must be a map"},
		{name: "exit status", launch: `cat >/dev/null; echo 'cloud said no' >&2; exit 3`, want: "exit status 3: cloud said no"},
		{name: "no instanceId", launch: `cat >/dev/null; printf 'instances:\n  n-1:\n    status: {flags: {active: true}}\n'`, want: "no instance with instanceId"},
		{name: "flag not boolean", launch: `cat >/dev/null; printf 'instances:\n  n-1:\n    instanceId: %s\n    $set:\n      status.flags.active: "yes"\n' "$ID"`, want: "must be a boolean"},
		{name: "failed", launch: `cat >/dev/null; printf 'instances:\n  n-1:\n    instanceId: %s\n    status: {flags: {failed: true}, message: quota exceeded}\n' "$ID"`, want: "the instance failed: quota exceeded"},
		{name: "converging", launch: `cat >/dev/null; printf 'instances:\n  n-1:\n    instanceId: %s\n    $set: {status.flags.converging: true}\n' "$ID"`,
			check: func(t *testing.T, o driver.Outcome) {
				if !o.Converging {
					t.Error("not converging")
				}
			}},
		{name: "several documents", launch: `cat >/dev/null; printf 'instances:\n  n-1:\n    instanceId: %s\n    $set: {status.flags.converging: true}\n---\ninstances:\n  n-1:\n    $set: {status.flags.converging: false, status.flags.active: true}\n    $pushAll:\n      activityLog:\n      - {severity: warning, message: slow}\n' "$ID"`,
			check: func(t *testing.T, o driver.Outcome) {
				if o.Converging || !o.Feedback.Status.Active {
					t.Errorf("status %+v", o.Feedback.Status)
				}
			}},
		{name: "hangs", launch: `sleep 30 & echo $! > "$XOSPLAN_STATE_DIR/child"; wait`, timeout: 300 * time.Millisecond, want: "timed out"},
		{name: "ignores SIGTERM", launch: `trap '' TERM; sleep 30 & echo $! > "$XOSPLAN_STATE_DIR/child"; wait; wait`, timeout: 300 * time.Millisecond, want: "timed out"},
		{name: "huge output", launch: `cat >/dev/null; yes 'instances: {}' | head -c 20000000`, want: "too large"},
		{name: "huge stderr", launch: `cat >/dev/null; yes 'noise noise noise' | head -c 5000000 >&2; printf 'instances:\n  n-1:\n    instanceId: %s\n    $set: {status.flags.active: true}\n' "$ID"`,
			check: func(t *testing.T, o driver.Outcome) {
				if len(o.Feedback.Output) > 20<<10 {
					t.Errorf("output tail is %d bytes", len(o.Feedback.Output))
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			stateDir := t.TempDir()
			testutil.WriteScript(t, root, "c/launch.sh", tc.launch)
			opts := drivertest.Options(root)
			opts.StateDir = stateDir
			opts.Env = []string{"ID=" + driver.InstanceID("A.c")}
			d := New(opts)
			r := scriptedResource("A.c", map[string]string{graph.OpLaunch: "/c/launch.sh", graph.OpDestroy: "/c/destroy.sh", graph.OpHealthCheck: "/c/health.sh"}, nil)
			start := time.Now()
			o, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: r.Address, Resource: r, Timeout: tc.timeout})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if o.Feedback.BackendCode != state.BackendOK {
					t.Errorf("backend code %d", o.Feedback.BackendCode)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one containing %q", err, tc.want)
				}
				if o.Feedback.BackendCode != state.BackendError || !o.Feedback.Status.Failed || o.Feedback.BackendStatus == "" {
					t.Errorf("failure feedback %+v", o.Feedback)
				}
			}
			if tc.timeout > 0 {
				if el := time.Since(start); el > tc.timeout+5*time.Second {
					t.Errorf("took %s with a %s timeout", el, tc.timeout)
				}
				if !errors.Is(err, process.ErrTimeout) {
					t.Errorf("error does not wrap process.ErrTimeout: %v", err)
				}
				drivertest.AssertGone(t, filepath.Join(stateDir, "child"))
			}
			if tc.check != nil {
				tc.check(t, o)
			}
		})
	}
}

// TestScriptedDestroyPolls: a destroy that first reports converging is
// finished by health checks until every flag is false.
func TestScriptedDestroyPolls(t *testing.T) {
	root := t.TempDir()
	testutil.WriteScript(t, root, "c/destroy.sh", `cat >/dev/null; printf 'instances:\n  n-1:\n    $set: {status.flags.active: false, status.flags.converging: true}\n'`)
	testutil.WriteScript(t, root, "c/health.sh", `cat >/dev/null
n=$(cat "$XOSPLAN_STATE_DIR/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$XOSPLAN_STATE_DIR/n"
if [ $n -ge 3 ]; then printf 'instances:\n  n-1:\n    status: {flags: {active: false, converging: false, failed: false}}\n'
else printf 'instances:\n  n-1:\n    $set: {status.flags.converging: true}\n'; fi`)
	opts := drivertest.Options(root)
	opts.StateDir = t.TempDir()
	d := New(opts)
	r := scriptedResource("A.c", map[string]string{graph.OpLaunch: "/c/launch.sh", graph.OpDestroy: "/c/destroy.sh", graph.OpHealthCheck: "/c/health.sh"}, nil)
	prior := drivertest.Recorded(r, driver.Outcome{Feedback: state.Feedback{InstanceID: "n-1", Status: state.Status{Active: true}}})
	var out drivertest.Lines
	o, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionDelete, Address: r.Address, Prior: prior, Output: out.Add})
	if err != nil || !o.Gone {
		t.Fatalf("destroy: %v gone=%v\n%s", err, o.Gone, out.Text())
	}
	if n, _ := os.ReadFile(filepath.Join(opts.StateDir, "n")); strings.TrimSpace(string(n)) != "3" {
		t.Errorf("health checks run: %s, want 3", n)
	}
}

// TestScriptedDestroyFails: a destroy that reports failed ends at once
// with the script's message; a batch-mate that is gone is still gone.
func TestScriptedDestroyFails(t *testing.T) {
	root := t.TempDir()
	testutil.WriteScript(t, root, "c/destroy.sh", `cat >/dev/null; printf 'instances:\n  n-1:\n    status: {flags: {failed: true}, message: volume busy}\n  n-2:\n    status: {flags: {active: false}}\n'`)
	opts := drivertest.Options(root)
	opts.PollInterval = time.Hour
	d := New(opts)
	r := scriptedResource("A.c", map[string]string{graph.OpLaunch: "/c/destroy.sh", graph.OpDestroy: "/c/destroy.sh"}, nil)
	var reqs []driver.Request
	for _, id := range []string{"n-1", "n-2"} {
		prior := drivertest.Recorded(r, driver.Outcome{Feedback: state.Feedback{InstanceID: id, Status: state.Status{Active: true}}})
		prior.Address = "A." + id
		reqs = append(reqs, driver.Request{Action: driver.ActionDelete, Address: prior.Address, Prior: prior})
	}
	res := d.LaunchBatch(context.Background(), reqs)
	if err := res[0].Err; err == nil || !strings.Contains(err.Error(), "failed while being destroyed: volume busy") || res[0].Outcome.Gone {
		t.Errorf("n-1: %v gone=%v", err, res[0].Outcome.Gone)
	}
	if res[1].Err != nil || !res[1].Outcome.Gone {
		t.Errorf("n-2: %v gone=%v", res[1].Err, res[1].Outcome.Gone)
	}
}

func TestScriptPathEscapes(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	testutil.WriteScript(t, outside, "evil.sh", "echo pwned")
	if err := os.Symlink(filepath.Join(outside, "evil.sh"), filepath.Join(root, "link.sh")); err != nil {
		t.Fatal(err)
	}
	testutil.WriteScript(t, root, "vm/ok.sh", "true")
	for _, p := range []string{"/../" + filepath.Base(outside) + "/evil.sh", "../x.sh", "/vm/../../x.sh", "/link.sh"} {
		if _, err := driver.ResolveScript(root, p); !errors.Is(err, driver.ErrScriptPath) {
			t.Errorf("%s: %v, want ErrScriptPath", p, err)
		}
	}
	for _, p := range []string{"/vm/ok.sh", "vm/ok.sh", "/vm/../vm/ok.sh"} {
		if _, err := driver.ResolveScript(root, p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := driver.ResolveScript(root, "/vm/missing.sh"); err == nil {
		t.Error("a missing script resolved")
	}
}

// TestScriptedCancel: cancelling the context stops a running script at
// once.
func TestScriptedCancel(t *testing.T) {
	root := t.TempDir()
	testutil.WriteScript(t, root, "c/launch.sh", "sleep 30")
	d := New(drivertest.Options(root))
	r := scriptedResource("A.c", map[string]string{graph.OpLaunch: "/c/launch.sh", graph.OpDestroy: "/c/launch.sh"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := d.Apply(ctx, driver.Request{Action: driver.ActionCreate, Address: r.Address, Resource: r})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, process.ErrTimeout) {
		t.Errorf("error %v: want the caller's context error", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("cancel took %s", el)
	}
}

// TestScriptedFlaky: a launch that fails twice then succeeds fails
// cleanly twice (retrying is the walk's job) and then records the instance.
func TestScriptedFlaky(t *testing.T) {
	root := t.TempDir()
	testutil.WriteScript(t, root, "c/launch.sh", `cat >/dev/null
n=$(cat "$XOSPLAN_STATE_DIR/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$XOSPLAN_STATE_DIR/n"
[ $n -ge 3 ] || { echo "attempt $n: cloud busy" >&2; exit 1; }
printf 'instances:\n  n-1:\n    instanceId: %s\n    $set: {status.flags.active: true}\n' "$ID"`)
	opts := drivertest.Options(root)
	opts.StateDir = t.TempDir()
	opts.Env = []string{"ID=" + driver.InstanceID("A.c")}
	d := New(opts)
	r := scriptedResource("A.c", map[string]string{graph.OpLaunch: "/c/launch.sh", graph.OpDestroy: "/c/launch.sh"}, nil)
	for i := 1; i <= 3; i++ {
		o, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: r.Address, Resource: r})
		if i < 3 {
			if err == nil || !strings.Contains(err.Error(), "cloud busy") || o.Feedback.BackendCode != state.BackendError {
				t.Fatalf("attempt %d: %v %+v", i, err, o.Feedback)
			}
			continue
		}
		if err != nil || o.Feedback.InstanceID != "n-1" {
			t.Fatalf("attempt 3: %v %+v", err, o.Feedback)
		}
	}
}

func TestScriptedBatchGroups(t *testing.T) {
	root := t.TempDir()
	// Each script records how often it ran and answers for every
	// instance it was asked to launch (natural id = instance id).
	body := `doc=$(cat); echo run >> "$XOSPLAN_STATE_DIR/runs-$(basename $0)"
echo instances:
echo "$doc" | sed -n 's/^ *"\{0,1\}\([0-9a-f]\{24\}\)"\{0,1\}:.*/\1/p' | while read id; do printf '  %s:\n    instanceId: %s\n    $set: {status.flags.active: true}\n' "$id" "$id"; done`
	testutil.WriteScript(t, root, "a/launch.sh", body)
	testutil.WriteScript(t, root, "b/launch.sh", body)
	opts := drivertest.Options(root)
	opts.StateDir = t.TempDir()
	d := New(opts)
	var reqs []driver.Request
	for i, script := range []string{"/a/launch.sh", "/b/launch.sh", "/a/launch.sh", "/a/launch.sh"} {
		r := scriptedResource(fmt.Sprintf("R%d.c", i), map[string]string{graph.OpLaunch: script, graph.OpDestroy: script}, nil)
		reqs = append(reqs, driver.Request{Action: driver.ActionCreate, Address: r.Address, Resource: r})
	}
	res := d.LaunchBatch(context.Background(), reqs)
	for i, r := range res {
		if r.Err != nil || r.Outcome.Feedback.InstanceID != driver.InstanceID(reqs[i].Address) {
			t.Fatalf("%d: %v %+v", i, r.Err, r.Outcome.Feedback)
		}
	}
	for name, want := range map[string]string{"runs-launch.sh": "run\nrun\n"} {
		if b, _ := os.ReadFile(filepath.Join(opts.StateDir, name)); string(b) != want {
			t.Errorf("%s: %q, want %q (one run per script)", name, b, want)
		}
	}
	disc := driver.Request{Action: driver.ActionDiscover, Address: "F", Resource: &graph.Resource{Address: "F", Driver: graph.Driver{Name: graph.DriverScripted, Operations: map[string]graph.Operation{graph.OpDiscovery: {Implementation: "/a/launch.sh"}}}}}
	if k := d.BatchKey(disc); k != "" {
		t.Errorf("discovery batch key %q", k)
	}
}

func TestScriptedDiscoveryAndInvokeErrors(t *testing.T) {
	root := t.TempDir()
	testutil.WriteScript(t, root, "f/discover.sh", `cat >/dev/null; printf 'instances:\n  b:\n    name: Bee\n  a:\n  c:\n    $pushAll: {activityLog: [{severity: x}]}\n'`)
	testutil.WriteScript(t, root, "f/discover-ok.sh", `cat >/dev/null; printf 'instances:\n  b:\n    name: Bee\n    $set: {status.flags.active: true}\n  a:\n'`)
	testutil.WriteScript(t, root, "c/cmd.sh", `cat >/dev/null; echo '{{{'`)
	d := New(drivertest.Options(root))
	factory := func(script string) driver.Request {
		return driver.Request{Action: driver.ActionDiscover, Address: "F", Resource: &graph.Resource{Address: "F", Driver: graph.Driver{Name: graph.DriverScripted, Operations: map[string]graph.Operation{graph.OpDiscovery: {Implementation: script}}}}}
	}
	_, err := d.Apply(context.Background(), factory("/f/discover.sh"))
	if err == nil || !strings.Contains(err.Error(), `instance c:`) || !strings.Contains(err.Error(), `"message" is required`) {
		t.Errorf("discovery with a bad entry: %v", err)
	}
	o, err := d.Apply(context.Background(), factory("/f/discover-ok.sh"))
	if err != nil || len(o.Discovered) != 2 || o.Discovered[0].NaturalID != "a" || o.Discovered[0].Name != "a" || o.Discovered[1].Name != "Bee" || !o.Discovered[1].Feedback.Status.Active {
		t.Errorf("discovery: %v %+v", err, o.Discovered)
	}

	r := scriptedResource("A.c", map[string]string{graph.OpLaunch: "/c/cmd.sh", graph.OpDestroy: "/c/cmd.sh", graph.OpCommandPrefix + "control.go": "/c/cmd.sh"}, nil)
	prior := drivertest.Recorded(r, driver.Outcome{Feedback: state.Feedback{InstanceID: "n-1"}})
	for _, tc := range []struct {
		cmd   string
		prior *state.Resource
		want  string
	}{
		{"control", prior, "must be <interface>.<pin>"},
		{"control.stop", prior, "no command script for control.stop"},
		{"control.go", nil, "no recorded instance"},
		{"control.go", prior, "malformed reply"},
	} {
		_, err := d.Invoke(context.Background(), driver.Request{Address: r.Address, Resource: r, Prior: tc.prior}, tc.cmd, map[string]graph.Value{"k": "v"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("invoke %s: %v, want %q", tc.cmd, err, tc.want)
		}
	}
}

// TestCommandResultsStreamBeforeTheScriptEnds: a command script that
// reports an intermediate result and then works on before it starts its
// next document has that result shown while it works, once, not when it
// ends. The script waits (up to 10 s) for the test to see the result; a
// result held back until the end would be seen only after that wait.
func TestCommandResultsStreamBeforeTheScriptEnds(t *testing.T) {
	root := t.TempDir()
	seen := filepath.Join(t.TempDir(), "seen")
	testutil.WriteScript(t, root, "c/cmd.sh", `in=$(cat)
cid=$(printf '%s\n' "$in" | awk '/commands:/ { getline; sub(/^ */, ""); sub(/:.*/, ""); gsub(/"/, ""); print; exit }')
printf 'instances:\n  n-1:\n    $pushAll:\n      commands.%s:\n        - {"$intermediate": true, "state": "rebooting"}\n' "$cid"
i=0
while [ ! -e "$SEEN" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
printf -- '---\ninstances:\n  n-1:\n    $pushAll:\n      commands.%s:\n        - {"state": "rebooted", "waited": %s}\n' "$cid" "$i"
`)
	opts := drivertest.Options(root)
	opts.Env = []string{"SEEN=" + seen}
	d := New(opts)
	r := scriptedResource("A.c", map[string]string{graph.OpLaunch: "/c/cmd.sh", graph.OpCommandPrefix + "control.reboot": "/c/cmd.sh"}, nil)
	prior := drivertest.Recorded(r, driver.Outcome{Feedback: state.Feedback{InstanceID: "n-1"}})
	var mu sync.Mutex
	var shown []string
	output := func(l string) {
		mu.Lock()
		defer mu.Unlock()
		shown = append(shown, l)
		if strings.HasPrefix(l, "intermediate ") {
			if err := os.WriteFile(seen, nil, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	out, err := d.Invoke(context.Background(), driver.Request{Address: r.Address, Resource: r, Prior: prior, Output: output}, "control.reboot", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 2 || !out.Results[0].Intermediate || out.Results[1].Values["waited"] == int64(200) {
		t.Errorf("results %+v: the intermediate one was not shown before the script's next document", out.Results)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{`intermediate {"state":"rebooting"}`, `result {"state":"rebooted","waited":`}
	if len(shown) != 2 || shown[0] != want[0] || !strings.HasPrefix(shown[1], want[1]) {
		t.Errorf("shown %q, want each result once: %q", shown, want)
	}
}

// TestMissingScriptNeedsAChangeAndAFailingOneDoesNot: a launch script
// that is not there, or that escapes the root, fails with ErrNeedsChange
// (a synchronizer waits for a change rather than retrying it); a script
// that runs and fails does not.
func TestMissingScriptNeedsAChangeAndAFailingOneDoesNot(t *testing.T) {
	root := t.TempDir()
	testutil.WriteScript(t, root, "c/fail.sh", "exit 3")
	d := New(drivertest.Options(root))
	for _, tc := range []struct {
		script string
		needs  bool
	}{{"/c/missing.sh", true}, {"/../x.sh", true}, {"/c/fail.sh", false}} {
		r := scriptedResource("A.c", map[string]string{graph.OpLaunch: tc.script, graph.OpDestroy: tc.script}, nil)
		_, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: r.Address, Resource: r})
		if err == nil || errors.Is(err, driver.ErrNeedsChange) != tc.needs {
			t.Errorf("%s: %v, want ErrNeedsChange %v", tc.script, err, tc.needs)
		}
	}
}

// scriptedResource is a scripted component with the given scripts.
func scriptedResource(addr string, ops map[string]string, spec map[string]graph.Value) *graph.Resource {
	r := &graph.Resource{
		Address:    addr,
		Type:       "scripted.Component",
		Driver:     graph.Driver{Name: graph.DriverScripted, Operations: map[string]graph.Operation{}, Options: map[string]graph.Value{driver.OptionFactoryAddress: "F.factory"}},
		Spec:       spec,
		Management: graph.Managed,
	}
	for k, v := range ops {
		r.Driver.Operations[k] = graph.Operation{Implementation: v}
	}
	return r
}
