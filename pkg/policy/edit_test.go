package policy

import (
	"context"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
)

// mtuOf returns the properties.mtu of the resource at addr in g.
func mtuOf(t *testing.T, g *graph.Graph, addr string) graph.Value {
	t.Helper()
	r, ok := g.Resource(addr)
	if !ok {
		t.Fatalf("%s is not in the graph", addr)
	}
	props, _ := r.Spec["properties"].(map[string]graph.Value)
	return props["mtu"]
}

// TestPolicySetsValuesOnDeclaredResources: a policy sets a default on the
// networks it reads; the value the configuration gives wins, unless the
// policy overrides it; what it set is named (SetByPolicy), the
// configuration's own graph is left alone, and Derive of the result
// gives the same (the fixed point: the policy sees its values and sets
// the same).
func TestPolicySetsValuesOnDeclaredResources(t *testing.T) {
	dir := t.TempDir()
	g := networks(t, "n1", "n2", "n3")
	n2, _ := g.Resource("n2")
	n2.Spec["properties"].(map[string]graph.Value)["mtu"] = int64(9000)
	n3, _ := g.Resource("n3")
	n3.Spec["properties"].(map[string]graph.Value)["mtu"] = int64(100)
	body := `cat >/dev/null
echo '{"set":[{"address":"n1","path":"properties.mtu","value":1500},{"address":"n2","path":"properties.mtu","value":1500},
 {"address":"n3","path":"properties.mtu","value":1400,"override":true},{"address":"n1","path":"tags.zone","value":"a"}]}'`
	addPolicy(t, g, graph.Policy{Name: "defaults", Implementation: writePolicy(t, dir, "defaults", body), Targets: []string{"n1", "n2", "n3"}})
	out, diags := Derive(context.Background(), g, Options{Root: []string{dir}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for addr, want := range map[string]graph.Value{"n1": int64(1500), "n2": int64(9000), "n3": int64(1400)} {
		if got := mtuOf(t, out, addr); got != want {
			t.Errorf("%s: mtu %v, want %v", addr, got, want)
		}
	}
	n1, _ := out.Resource("n1")
	if want := map[string]string{"properties.mtu": "defaults", "tags.zone": "defaults"}; !maps.Equal(n1.SetByPolicy, want) {
		t.Errorf("n1 set by %v, want %v", n1.SetByPolicy, want)
	}
	if zone := n1.Spec["tags"].(map[string]graph.Value)["zone"]; zone != "a" {
		t.Errorf("n1 tags.zone %v", zone)
	}
	if got, _ := out.Resource("n2"); got.SetByPolicy != nil {
		t.Errorf("n2, whose value the configuration gives, is set by %v", got.SetByPolicy)
	}
	if got, _ := out.Resource("n3"); got.SetByPolicy["properties.mtu"] != "defaults" {
		t.Errorf("n3, overridden, is set by %v", got.SetByPolicy)
	}
	if got := mtuOf(t, g, "n1"); got != nil {
		t.Errorf("the configuration's graph was changed: n1 mtu %v", got)
	}
	again, diags := Derive(context.Background(), out, Options{Root: []string{dir}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := mtuOf(t, again, "n1"); got != int64(1500) {
		t.Errorf("Derive of its result: n1 mtu %v", got)
	}
}

func TestPoliciesSettingOneValueConflict(t *testing.T) {
	dir := t.TempDir()
	g := networks(t, "n1")
	addPolicy(t, g, graph.Policy{Name: "a", Implementation: writePolicy(t, dir, "a", `cat >/dev/null; echo '{"set":[{"address":"n1","path":"properties.mtu","value":1500}]}'`), Targets: []string{"n1"}})
	addPolicy(t, g, graph.Policy{Name: "b", Implementation: writePolicy(t, dir, "b", `cat >/dev/null; echo '{"set":[{"address":"n1","path":"properties","value":{"mtu":9000}, "override":true}]}'`), Targets: []string{"n1"}})
	_, diags := Derive(context.Background(), g, Options{Root: []string{dir}})
	assertCode(t, diags, CodeSetConflict, "model policies a and b both set properties of n1")
}

// TestPolicyReadsFeedbackWhenItAsks: a policy whose feedback property is
// true reads, with each resource, what the state records of it (secrets
// masked), so that a step's result can trigger it; one that does not ask
// reads declarative state only. The result says what the policies read
// (Graph.Policed): the changed_by_step version they saw.
func TestPolicyReadsFeedbackWhenItAsks(t *testing.T) {
	dir := t.TempDir()
	step := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	// The caller masks secrets (workflow.PolicyFeedback); what it gives
	// is what the policy reads.
	recorded := map[string]Feedback{"n1": {BackendCode: 1, InstanceID: "i-1", ChangedByStep: step,
		Attributes: map[string]graph.Value{"gateway": "10.0.0.1", "token": "(sensitive value)"}}}
	// The policy sets the gateway it reads as the network's route.
	body := `in=$(cat)
printf '%s' "$in" > "$0.in"
gw=$(printf '%s' "$in" | grep -o '"gateway":"[^"]*"' | sed 's/"gateway":"\([^"]*\)"/\1/')
if [ -n "$gw" ]; then echo '{"set":[{"address":"n1","path":"properties.route","value":"'"$gw"'"}]}'; else echo '{}'; fi`
	for _, feedback := range []bool{false, true} {
		g := networks(t, "n1")
		props := map[string]graph.Value{}
		if feedback {
			props["feedback"] = true
		}
		exe := writePolicy(t, dir, "route", body)
		addPolicy(t, g, graph.Policy{Name: "route", Implementation: exe, Targets: []string{"n1"}, Properties: props})
		out, diags := Derive(context.Background(), g, Options{Root: []string{dir}, Feedback: recorded})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		n1, _ := out.Resource("n1")
		route := n1.Spec["properties"].(map[string]graph.Value)["route"]
		raw, err := os.ReadFile(exe + ".in")
		if err != nil {
			t.Fatal(err)
		}
		in := string(raw)
		switch {
		case feedback && route != "10.0.0.1":
			t.Errorf("with feedback: route %v, want the gateway the state records; input %s", route, in)
		case !feedback && (route != nil || strings.Contains(in, "feedback")):
			t.Errorf("without feedback: route %v, input %s", route, in)
		case feedback && !strings.Contains(in, `"changed_by_step":"2026-03-04T05:06:07Z"`):
			t.Errorf("the input does not carry changed_by_step: %s", in)
		}
		if pr := out.Policed["n1"]; !pr.Step.Equal(step) || pr.Feedback != feedback {
			t.Errorf("feedback %v: policed %+v", feedback, pr)
		}
	}
}
