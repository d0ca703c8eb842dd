package manifest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

const petclinic = "../../examples/petclinic"

// TestPetClinicEnvironment: the example validates without any diagnostic
// and every script its manifests name exists under scripts/.
func TestPetClinicEnvironment(t *testing.T) {
	g, diags := CompileEnvironment(context.Background(), []string{petclinic}, Options{})
	for _, d := range diags {
		t.Errorf("%s [%s]", d.Error(), d.Code)
	}
	if g == nil {
		t.Fatal("no graph")
	}
	n := 0
	for _, r := range g.Resources() {
		for key, op := range r.Driver.Operations {
			n++
			if _, err := os.Stat(filepath.Join(petclinic, "scripts", filepath.FromSlash(op.Implementation))); err != nil {
				t.Errorf("%s %s: %v", r.Address, key, err)
			}
		}
	}
	if n != 10 {
		t.Errorf("found %d script operations, want 10", n)
	}
}

// runScript feeds a document to one example script and parses what it
// prints as a YAML map.
func runScript(t *testing.T, registry, script, input string) *yamlsrc.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", filepath.Join(petclinic, "scripts", script))
	cmd.Env = append(os.Environ(), "XOSPLAN_REGISTRY="+registry)
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	doc, diags := yamlsrc.Parse(script, stdout.Bytes(), yamlsrc.Limits{})
	if diags.HasErrors() || doc == nil || doc.Kind != yamlsrc.Mapping {
		t.Fatalf("%s printed no YAML map: %v\n%s", script, diags.Err(), stdout.String())
	}
	return doc
}

// updates returns the update commands for the one instance of a script's
// output, checking that every key is a field or a known operator.
func updates(t *testing.T, doc *yamlsrc.Node) (string, *yamlsrc.Node) {
	t.Helper()
	inst := doc.Get("instances").Pairs()
	if len(inst) != 1 {
		t.Fatalf("want one instance, got %d", len(inst))
	}
	for _, p := range inst[0].Value.Pairs() {
		if strings.HasPrefix(p.Key.Value, "$") && !strings.Contains(" $set $unset $pushAll ", " "+p.Key.Value+" ") {
			t.Errorf("unknown update operator %s", p.Key.Value)
		}
	}
	return inst[0].Key.Value, inst[0].Value
}

func statusFlag(t *testing.T, u *yamlsrc.Node, name string) bool {
	t.Helper()
	v := u.Get("$set").Get("status.flags." + name)
	if v == nil {
		v = u.Get("status").Get("flags").Get(name)
	}
	b, ok := v.Bool()
	if !ok {
		t.Fatalf("no status flag %s in the update", name)
	}
	return b
}

// TestPetClinicScripts runs the VM and PetClinic scripts through a whole
// life cycle against a temporary registry.
func TestPetClinicScripts(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	reg := t.TempDir()
	launch := "configuration:\n  configuration.awsAccessKey: XXX\nlaunch:\n  56e6e3c8b171d3b57dd3f348:\n    configuration:\n      configuration.instanceType: m1.small\n"
	id, u := updates(t, runScript(t, reg, "vm/launch.py", launch))
	if got, _ := u.Get("instanceId").String(); got != "56e6e3c8b171d3b57dd3f348" {
		t.Errorf("instanceId = %q", got)
	}
	if !statusFlag(t, u, "active") {
		t.Error("launched VM is not active")
	}
	ip, _ := u.Get("interfaces").Get("compute").Get("signals").Get("ip").String()
	if ip == "" {
		t.Error("no compute.ip signal")
	}
	if _, err := os.Stat(filepath.Join(reg, "vm", id+".json")); err != nil {
		t.Fatalf("launch left no registry record: %v", err)
	}
	if again, _ := updates(t, runScript(t, reg, "vm/launch.py", launch)); again != id {
		t.Errorf("a repeated launch made %s, want the same %s", again, id)
	}

	ref := "configuration: {}\ninstances:\n  " + id + ":\n"
	if _, u := updates(t, runScript(t, reg, "vm/healthCheck.py", ref)); !statusFlag(t, u, "active") {
		t.Error("health check does not report the VM active")
	}
	if _, u := updates(t, runScript(t, reg, "vm/reconfigure.py", "configuration: {}\ninstances:\n  "+id+":\n    configuration:\n      configuration.instanceType: m3.large\n")); !statusFlag(t, u, "active") {
		t.Error("reconfigured VM is not active")
	}
	_, u = updates(t, runScript(t, reg, "vm/reboot.py", "configuration: {}\ninstances:\n  "+id+":\n    commands:\n      cmd-1:\n        control:\n          reboot: {}\n"))
	if res := u.Get("$pushAll").Get("commands.cmd-1").Items(); len(res) != 2 {
		t.Errorf("reboot pushed %d command results, want an intermediate and a final one", len(res))
	}
	if d, _ := updates(t, runScript(t, reg, "vm/discover.py", "configuration: {}\n")); d != id {
		t.Errorf("discovery found %s, want %s", d, id)
	}

	pid, pu := updates(t, runScript(t, reg, "petclinic/launch.py", "configuration:\n  configuration.registry: local\nlaunch:\n  56e79f37954cc4440350814e:\n    configuration: {}\n"))
	if key, _ := pu.Get("components").Get("haproxy-vm").Get("reference").Get("key").String(); key != id {
		t.Errorf("PetClinic refers to VM %q, want %q", key, id)
	}
	if e, _ := pu.Get("interfaces").Get("petclinic").Get("signals").Get("entrypoint").String(); e != "http://"+ip+"/" {
		t.Errorf("entrypoint = %q", e)
	}
	if d, _ := updates(t, runScript(t, reg, "petclinic/discover.py", "configuration:\n  configuration.registry: local\n")); d != pid {
		t.Errorf("PetClinic discovery found %s, want %s", d, pid)
	}
	pref := "configuration: {}\ninstances:\n  " + pid + ":\n"
	if _, u := updates(t, runScript(t, reg, "petclinic/healthCheck.py", pref)); !statusFlag(t, u, "active") {
		t.Error("PetClinic health check is not active")
	}

	for _, tc := range []struct{ script, input, kind, id string }{
		{"petclinic/destroy.py", pref, "petclinic", pid},
		{"vm/destroy.py", ref, "vm", id},
	} {
		_, u := updates(t, runScript(t, reg, tc.script, tc.input))
		for _, f := range []string{"active", "converging", "failed"} {
			if statusFlag(t, u, f) {
				t.Errorf("%s left %s set", tc.script, f)
			}
		}
		if _, err := os.Stat(filepath.Join(reg, tc.kind, tc.id+".json")); !os.IsNotExist(err) {
			t.Errorf("%s left the registry record (%v)", tc.script, err)
		}
	}
	if _, u := updates(t, runScript(t, reg, "vm/healthCheck.py", ref)); !statusFlag(t, u, "failed") {
		t.Error("health check of a destroyed VM does not report failed")
	}
}
