package executor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	execdriver "github.com/xosplan/xosplan/driver/exec"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/process"
	"github.com/xosplan/xosplan/pkg/state"
)

func TestResolve(t *testing.T) {
	recs := map[string]*state.Resource{
		"host": {Address: "host", Feedback: state.Feedback{
			Attributes: map[string]graph.Value{"ip": "10.0.0.5", "nics": []graph.Value{"eth0", "eth1"}},
			Resolved: map[string]graph.Value{
				"properties":   map[string]graph.Value{"port": int64(8080)},
				"capabilities": map[string]graph.Value{"endpoint": map[string]graph.Value{"properties": map[string]graph.Value{"protocol": "http"}}},
			},
			Signals: map[string]graph.Value{"vms.address": "192.168.0.9"},
		}},
		"vm": {Address: "vm", Spec: map[string]graph.Value{"configuration.size": "m1"}},
	}
	lookup := func(a string) (*state.Resource, bool) {
		r, ok := recs[a]
		return r, ok
	}
	u := func(fn string, args ...graph.Value) graph.Unknown { return graph.Unknown{Func: fn, Args: args} }
	tests := []struct {
		name    string
		in      graph.Value
		want    graph.Value
		wantErr bool
	}{
		{"known value", "x", "x", false},
		{"attribute", u("attribute", "host", "ip"), "10.0.0.5", false},
		{"attribute list index", u("attribute", "host", "nics", int64(1)), "eth1", false},
		{"attribute from a property", u("attribute", "host", "port"), int64(8080), false},
		{"attribute from a capability", u("attribute", "host", "endpoint", "protocol"), "http", false},
		{"flat key of a component", u("attribute", "vm", "configuration.size"), "m1", false},
		{"attribute nobody reported is null", u("attribute", "host", "public_address"), nil, false},
		{"unknown address", u("attribute", "gone", "ip"), nil, true},
		{"operation output", u("operation_output", "host", "Standard", "create", "ip"), "10.0.0.5", false},
		{"signal", u("signal", "host", "vms", "address"), "192.168.0.9", false},
		{"missing signal is null", u("signal", "host", "vms", "other"), nil, false},
		{"concat", u("concat", "http://", u("attribute", "host", "ip"), ":", int64(80)), "http://10.0.0.5:80", false},
		{"join", u("join", []graph.Value{"a", u("attribute", "host", "ip"), int64(3)}, "/"), "a/10.0.0.5/3", false},
		{"join without delimiter", u("join", []graph.Value{"a", "b"}), "ab", false},
		{"token", u("token", "a.b-c", ".-", int64(2)), "c", false},
		{"token out of range", u("token", "a.b", ".", int64(5)), nil, true},
		{"token negative", u("token", "a.b", ".", int64(-1)), nil, true},
		{"unknown function", u("frobnicate"), nil, true},
		{"nested in maps and lists", map[string]graph.Value{"l": []graph.Value{u("attribute", "host", "ip")}},
			map[string]graph.Value{"l": []graph.Value{"10.0.0.5"}}, false},
		{"attribute without a name", u("attribute", "host"), nil, true},
		{"address not a string", u("attribute", int64(1), "ip"), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.in, lookup)
			if tt.wantErr {
				if !errors.Is(err, ErrUnresolved) {
					t.Fatalf("err = %v, want ErrUnresolved", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !graph.Equal(got, tt.want) {
				t.Errorf("got %s, want %s", graph.Render(got), graph.Render(tt.want))
			}
		})
	}
}

func TestResolveMapLeavesInputAlone(t *testing.T) {
	ref := graph.Unknown{Func: "concat", Args: []graph.Value{"a", "b"}}
	in := map[string]graph.Value{"x": ref}
	out, err := ResolveMap(in, func(string) (*state.Resource, bool) { return nil, false })
	if err != nil || out["x"] != "ab" {
		t.Fatalf("got %v, %v", out, err)
	}
	if !graph.Equal(in["x"], ref) {
		t.Errorf("the input was modified")
	}
	if m, _ := ResolveMap(nil, nil); m != nil {
		t.Errorf("nil map resolved to %v", m)
	}
}

func TestResolveOutputs(t *testing.T) {
	st := &state.State{Resources: []state.Resource{{Address: "host", Feedback: state.Feedback{Attributes: map[string]graph.Value{"ip": "10.0.0.9"}}}}}
	g := graph.New()
	g.Outputs = map[string]graph.Value{
		"url":   graph.Unknown{Func: "concat", Args: []graph.Value{"http://", graph.Unknown{Func: "attribute", Args: []graph.Value{"host", "ip"}}}},
		"plain": int64(3),
		"gone":  graph.Unknown{Func: "attribute", Args: []graph.Value{"nosuch", "ip"}},
	}
	got, missing := ResolveOutputs(g, st)
	if got["url"].Value != "http://10.0.0.9" || got["plain"].Value != int64(3) || len(got) != 2 || got["url"].Sensitive || got["plain"].Sensitive {
		t.Errorf("outputs %v", got)
	}
	if len(missing) != 1 || missing[0] != "gone" {
		t.Errorf("missing %v", missing)
	}
}

// TestOutputsDerivedFromSecretsAreSensitive checks every way an output
// becomes sensitive: the configuration says so, it reads a sensitive
// path of a recorded resource (a property, a capability property, a
// Tonomi configuration key, a map holding a secret), or its value holds a
// secret of the state or of the configuration.
func TestOutputsDerivedFromSecretsAreSensitive(t *testing.T) {
	attr := func(args ...graph.Value) graph.Unknown { return graph.Unknown{Func: "attribute", Args: args} }
	st := &state.State{Resources: []state.Resource{
		{Address: "db", Spec: map[string]graph.Value{
			"properties":   map[string]graph.Value{"password": "pw-in-state", "name": "shop", "creds": map[string]graph.Value{"user": "u", "token": "tok-in-state"}},
			"capabilities": map[string]graph.Value{"endpoint": map[string]graph.Value{"properties": map[string]graph.Value{"path": "/p4th-secret"}}},
		}, Sensitive: []string{"capabilities.endpoint.properties.path", "properties.creds.token", "properties.password"},
			Feedback: state.Feedback{Attributes: map[string]graph.Value{"copy": "pw-in-state", "ip": "10.0.0.1", "pin": "12"}}},
		{Address: "app.factory", Spec: map[string]graph.Value{"configuration.dbPassword": "zz-tonomi"}, Sensitive: []string{"configuration.dbPassword"}},
	}}
	g := graph.New()
	g.Outputs = map[string]graph.Value{
		"declared":   attr("db", "ip"),
		"password":   attr("db", "password"),
		"capability": attr("db", "endpoint", "path"),
		"creds":      attr("db", "creds"),
		"token":      attr("db", "creds", "token"),
		"tonomi":     attr("app.factory", "configuration.dbPassword"),
		"copied":     attr("db", "copy"),
		"joined":     graph.Unknown{Func: "concat", Args: []graph.Value{"pg://u:", "from-graph-secrets", "@", attr("db", "ip")}},
		"name":       attr("db", "name"),
		"user":       attr("db", "creds", "user"),
		"short":      attr("db", "pin"),
	}
	g.SensitiveOutputs = []string{"declared"}
	g.Secrets = []graph.Value{"from-graph-secrets", "12"}
	got, _ := ResolveOutputs(g, st)
	for name, want := range map[string]bool{"declared": true, "password": true, "capability": true, "creds": true, "token": true,
		"tonomi": true, "copied": true, "joined": true, "name": false, "user": false, "short": false} {
		if got[name].Sensitive != want {
			t.Errorf("%s (%v): sensitive = %v, want %v", name, got[name].Value, got[name].Sensitive, want)
		}
	}
}

func TestConcatWritesValuesAsTheCompilerDoes(t *testing.T) {
	u := graph.Unknown{Func: "concat", Args: []graph.Value{1000000.5, ":", int64(7), true, nil}}
	got, err := Resolve(u, func(string) (*state.Resource, bool) { return nil, false })
	if err != nil {
		t.Fatal(err)
	}
	if want := graph.Text(1000000.5) + ":7true"; got != want {
		t.Errorf("concat gave %q, want %q (graph.Text, as at compile time)", got, want)
	}
}

// TestResolveCustomFunctions runs the implementations of TOSCA 2.0
// custom function calls: the arguments (Unknowns resolved first, inner
// calls before outer ones) as a JSON array on stdin, the result as JSON on
// stdout, checked against the declared kind; every failure names the
// function.
func TestResolveCustomFunctions(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	root := t.TempDir()
	work := filepath.Join(root, "svc")
	scripts := map[string]string{
		// Doubles the one number it is given, written as a number or a string.
		"double.sh":  "read -r args\nn=$(printf '%s' \"$args\" | tr -d '[]\" ')\necho $((n * 2))\n",
		"echo.sh":    "cat; echo\n",
		"env.sh":     "printf '\"%s@%s\"' \"$XOSPLAN_FUNCTION\" \"$XOSPLAN_ADDRESS\"\n",
		"fail.sh":    "echo 'no quota left' >&2\nexit 3\n",
		"garbage.sh": "echo 'not json'\n",
		"two.sh":     "echo '1 2'\n",
		"slow.sh":    "sleep 30\n",
		"unknown.sh": "echo '{\"$unknown\": {\"func\": \"attribute\", \"args\": [\"a\", \"b\"]}}'\n",
	}
	for name, body := range scripts {
		if err := os.MkdirAll(work, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "outside.sh"), []byte("echo 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs := map[string]*state.Resource{"host": {Address: "host", Feedback: state.Feedback{Attributes: map[string]graph.Value{"n": "21"}}}}
	rv := Resolver{
		Lookup: func(a string) (*state.Resource, bool) {
			r, ok := recs[a]
			return r, ok
		},
		Functions: execdriver.New(DriverOptions{Root: []string{work}}),
		WorkDir:   work,
		Address:   "app",
	}
	fn := func(name, impl, result string, args ...graph.Value) graph.Unknown {
		decl := map[string]graph.Value{}
		if impl != "" {
			decl["implementation"] = impl
		}
		if result != "" {
			decl["result"] = result
		}
		if args == nil {
			args = []graph.Value{}
		}
		return graph.Unknown{Func: "function", Args: []graph.Value{name, decl, args}}
	}
	attr := graph.Unknown{Func: "attribute", Args: []graph.Value{"host", "n"}}
	slow := fn("slow", "slow.sh", "")
	slow.Args[1].(map[string]graph.Value)["timeout"] = int64(1)
	tests := []struct {
		name    string
		in      graph.Value
		want    graph.Value
		wantErr []string // substrings of the error
		is      error
	}{
		{name: "an unknown argument is resolved first", in: fn("double", "double.sh", "integer", attr), want: int64(42)},
		{name: "inner calls first", in: fn("double", "double.sh", "integer", fn("double", "double.sh", "integer", int64(5))), want: int64(20)},
		{name: "arguments as a JSON array", in: fn("echo", "echo.sh", "list", "a", int64(1), map[string]graph.Value{"k": true}),
			want: []graph.Value{"a", int64(1), map[string]graph.Value{"k": true}}},
		{name: "no arguments", in: fn("echo", "echo.sh", "list"), want: []graph.Value{}},
		{name: "name and address in the environment", in: fn("env", "env.sh", "string"), want: "env@app"},
		{name: "in a map", in: map[string]graph.Value{"port": fn("double", "double.sh", "", int64(4))}, want: map[string]graph.Value{"port": int64(8)}},
		{name: "exit status", in: fn("fail", "fail.sh", ""), wantErr: []string{"custom function $fail (fail.sh)", "exit status 3", "no quota left"}},
		{name: "not JSON", in: fn("garbage", "garbage.sh", ""), wantErr: []string{"$garbage", "did not print one JSON value"}, is: execdriver.ErrFunctionResult},
		{name: "two values", in: fn("two", "two.sh", ""), wantErr: []string{"$two", "more follows"}, is: execdriver.ErrFunctionResult},
		{name: "an unknown is no result", in: fn("unknown", "unknown.sh", ""), wantErr: []string{"$unknown"}, is: execdriver.ErrFunctionResult},
		{name: "result of the wrong kind", in: fn("echo", "echo.sh", "integer", "x"), wantErr: []string{"$echo (echo.sh) returned [\"x\"], and its signature's result is of kind integer"}},
		{name: "no implementation", in: fn("myfn", "", "integer", int64(1)), wantErr: []string{"custom function $myfn has no implementation"}},
		{name: "missing implementation", in: fn("gone", "gone.sh", ""), wantErr: []string{"$gone (gone.sh)", "does not exist"}, is: ErrNeedsChange},
		{name: "outside the root", in: fn("out", "../outside.sh", ""), wantErr: []string{"$out (../outside.sh)"}, is: execdriver.ErrImplementationPath},
		{name: "a URL", in: fn("remote", "https://example.org/f.sh", ""), wantErr: []string{"$remote", "is a URL"}},
		{name: "timeout", in: slow, wantErr: []string{"$slow (slow.sh)"}, is: process.ErrTimeout},
		{name: "argument unresolved", in: fn("double", "double.sh", "", graph.Unknown{Func: "attribute", Args: []graph.Value{"nosuch", "n"}}), wantErr: []string{"nosuch has no recorded state"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rv.Resolve(context.Background(), tt.in)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if !graph.Equal(got, tt.want) {
					t.Errorf("got %s, want %s", graph.Render(got), graph.Render(tt.want))
				}
				return
			}
			if !errors.Is(err, ErrUnresolved) {
				t.Fatalf("err = %v, want ErrUnresolved", err)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to say %q", err, w)
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want %v", err, tt.is)
			}
		})
	}
	// Without a runner (Resolve, as outputs are resolved) a custom
	// function is an error that names it.
	_, err := Resolve(fn("double", "double.sh", "", int64(1)), rv.Lookup)
	if !errors.Is(err, ErrUnresolved) || !strings.Contains(err.Error(), "custom function $double (double.sh) runs only while resources are applied") {
		t.Errorf("err = %v", err)
	}
}

// TestResolveSaysWhatTOSCA2LeavesUnknown: the TOSCA 2.0 functions the
// compiler leaves to the orchestrator fail with a message that says why,
// not "unknown function".
func TestResolveSaysWhatTOSCA2LeavesUnknown(t *testing.T) {
	for _, tt := range []struct {
		u    graph.Unknown
		want string
	}{
		{graph.Unknown{Func: "available_allocation", Args: []graph.Value{"pool[1]", "host", "num-cpus"}}, "available_allocation(pool[1], host, num-cpus): TOSCA 2.0's $available_allocation"},
		{graph.Unknown{Func: "relationship_index"}, "TOSCA 2.0's $relationship_index has no value here"},
		{graph.Unknown{Func: "get_attribute", Args: []graph.Value{"a", "RELATIONSHIP", "uses", "ALL", "state"}}, "get_attribute(a, RELATIONSHIP, uses, ALL, state): this TOSCA 2.0 path leads where xosplan records no state"},
		{graph.Unknown{Func: "get_attribute", Args: []graph.Value{"a", "CAPABILITY", "c", "RELATIONSHIP", int64(0), "state"}}, "this TOSCA 2.0 path leads where xosplan records no state"},
	} {
		_, err := Resolve(tt.u, func(string) (*state.Resource, bool) { return nil, false })
		if !errors.Is(err, ErrUnresolved) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to say %q", tt.u, err, tt.want)
		}
	}
}

// TestResolveTOSCA2Builtins: a TOSCA 2.0 built-in function whose
// arguments read attributes is evaluated once they are read, as the
// compiler evaluates it (internal/funceval); arguments that do not fit
// fail naming the function and the resource.
func TestResolveTOSCA2Builtins(t *testing.T) {
	recs := map[string]*state.Resource{
		"db": {Address: "db", Feedback: state.Feedback{Attributes: map[string]graph.Value{
			"port": int64(5432), "host": "db.internal", "replicas": []graph.Value{"r1", "r2"}, "ratio": 2.5,
		}}},
	}
	lookup := func(a string) (*state.Resource, bool) {
		r, ok := recs[a]
		return r, ok
	}
	attr := func(name string) graph.Unknown {
		return graph.Unknown{Func: "attribute", Args: []graph.Value{"db", name}}
	}
	call := func(name string, args ...graph.Value) graph.Unknown {
		return graph.Unknown{Func: "tosca2", Args: append([]graph.Value{name}, args...)}
	}
	tests := []struct {
		name string
		in   graph.Value
		want graph.Value
		// err is part of the message; the error wraps ErrUnresolved.
		err string
	}{
		{"sum", call("sum", attr("port"), int64(1)), int64(5433), ""},
		{"sum of a float", call("sum", attr("port"), attr("ratio")), 5434.5, ""},
		{"concat of text", call("concat", "postgres://", attr("host"), ":", attr("port")), "postgres://db.internal:5432", ""},
		{"concat of lists", call("concat", attr("replicas"), []graph.Value{"r3"}), []graph.Value{"r1", "r2", "r3"}, ""},
		{"equal", call("equal", attr("port"), int64(5432)), true, ""},
		{"has_suffix", call("has_suffix", attr("host"), ".internal"), true, ""},
		{"length", call("length", attr("replicas")), int64(2), ""},
		{"matches", call("matches", attr("host"), `[a-z.]+`), true, ""},
		{"nested", call("and", call("greater_than", attr("port"), int64(1024)), call("not", call("has_prefix", attr("host"), "web"))), true, ""},
		{"inside a list", []graph.Value{call("length", attr("host"))}, []graph.Value{int64(11)}, ""},
		{"arguments that do not fit", call("sum", attr("host"), int64(1)), nil, `app[1]: $sum cannot be applied to [db.internal 1]`},
		{"a division by zero", call("quotient", attr("port"), int64(0)), nil, `app[1]: $quotient cannot be applied to [5432 0]`},
		{"a wrong number of arguments", call("not"), nil, `app[1]: $not takes 1 argument(s), found 0`},
		{"a function it does not know", call("get_input", "x"), nil, `app[1]: $get_input is not a TOSCA 2.0 function evaluated from its arguments alone`},
		{"no name", graph.Unknown{Func: "tosca2"}, nil, `tosca2() names no function`},
		{"an attribute of no resource", call("sum", graph.Unknown{Func: "attribute", Args: []graph.Value{"gone", "x"}}), nil, "gone has no recorded state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolver{Lookup: lookup, Address: "app[1]"}.Resolve(context.Background(), tt.in)
			if tt.err != "" {
				if !errors.Is(err, ErrUnresolved) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want ErrUnresolved saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !graph.Equal(got, tt.want) {
				t.Errorf("got %s, want %s", graph.Render(got), graph.Render(tt.want))
			}
		})
	}
}

// TestResolveReadsReportedTextAsDeclared: as(kind, value) reads the text
// an operation reported as the kind its TOSCA 2.0 definition declares;
// other values are left alone, text that does not read as the kind fails.
func TestResolveReadsReportedTextAsDeclared(t *testing.T) {
	as := func(kind string, v graph.Value) graph.Unknown {
		return graph.Unknown{Func: "as", Args: []graph.Value{kind, v}}
	}
	tests := []struct {
		in   graph.Unknown
		want graph.Value
		err  string
	}{
		{as("integer", "5432"), int64(5432), ""},
		{as("integer", " 7\n"), int64(7), ""},
		{as("float", "2.5"), 2.5, ""},
		{as("float", "3"), 3.0, ""},
		{as("boolean", "true"), true, ""},
		{as("boolean", "false"), false, ""},
		{as("list", `["r1", 2]`), []graph.Value{"r1", int64(2)}, ""},
		{as("map", `{"a": {"b": 1.5}}`), map[string]graph.Value{"a": map[string]graph.Value{"b": 1.5}}, ""},
		{as("integer", ""), nil, ""},
		{as("integer", int64(3)), int64(3), ""},
		{as("list", []graph.Value{"x"}), []graph.Value{"x"}, ""},
		{as("integer", nil), nil, ""},
		{as("integer", "n/a"), nil, `"n/a", which does not read as the integer`},
		{as("integer", "2.5"), nil, "does not read as the integer"},
		{as("float", "NaN"), nil, "does not read as the float"},
		{as("boolean", "yes"), nil, "does not read as the boolean"},
		{as("list", `{"a": 1}`), nil, "does not read as the list"},
		{as("map", `[1]`), nil, "does not read as the map"},
		{as("map", `5`), nil, "does not read as the map"},
		{as("list", `[1] [2]`), nil, "does not read as the list"},
		{graph.Unknown{Func: "as", Args: []graph.Value{"integer"}}, nil, "needs a kind and a value"},
	}
	for _, tt := range tests {
		got, err := Resolve(tt.in, func(string) (*state.Resource, bool) { return nil, false })
		if tt.err != "" {
			if !errors.Is(err, ErrUnresolved) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want ErrUnresolved saying %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !graph.Equal(got, tt.want) {
			t.Errorf("%s = %s, %v, want %s", tt.in, graph.Render(got), err, graph.Render(tt.want))
		}
	}
}
