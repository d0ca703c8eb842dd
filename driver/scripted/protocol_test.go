package scripted

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// applyReply parses reply and applies the updates of instance id to m.
func applyReply(t *testing.T, m instanceModel, reply string) error {
	t.Helper()
	docs, diags := parseReplyDocs("reply", []byte(reply))
	if diags.HasErrors() {
		t.Fatalf("parse: %v", diags.Err())
	}
	for _, d := range docs {
		for _, iu := range d.instances {
			for _, u := range iu.updates {
				if _, err := m.apply(u); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func TestUpdateCommands(t *testing.T) {
	base := `{"instanceId":"x","status":{"flags":{"active":true,"converging":false,"failed":false},"message":"up"},` +
		`"interfaces":{"compute":{"signals":{"ip":"10.0.0.1","port":22}}},"activityLog":[{"severity":"INFO","message":"old"}]}`
	cases := []struct {
		name  string
		reply string
		want  string // JSON of the model after, or "" when err is set
		err   string
	}{
		{"replace field", "instances:\n  i:\n    status: {flags: {active: false}}\n",
			`{"activityLog":[{"message":"old","severity":"INFO"}],"instanceId":"x","interfaces":{"compute":{"signals":{"ip":"10.0.0.1","port":22}}},"status":{"flags":{"active":false}}}`, ""},
		{"dotted field is a path", "instances:\n  i:\n    status.message: down\n",
			`{"activityLog":[{"message":"old","severity":"INFO"}],"instanceId":"x","interfaces":{"compute":{"signals":{"ip":"10.0.0.1","port":22}}},"status":{"flags":{"active":true,"converging":false,"failed":false},"message":"down"}}`, ""},
		{"$set nested", "instances:\n  i:\n    $set:\n      interfaces.compute.signals.ip: 10.0.0.2\n      interfaces.web.signals.url: http://x/\n",
			`{"activityLog":[{"message":"old","severity":"INFO"}],"instanceId":"x","interfaces":{"compute":{"signals":{"ip":"10.0.0.2","port":22}},"web":{"signals":{"url":"http://x/"}}},"status":{"flags":{"active":true,"converging":false,"failed":false},"message":"up"}}`, ""},
		{"$unset", "instances:\n  i:\n    $unset:\n      interfaces.compute.signals.port:\n      status.message:\n      nothing.here:\n",
			`{"activityLog":[{"message":"old","severity":"INFO"}],"instanceId":"x","interfaces":{"compute":{"signals":{"ip":"10.0.0.1"}}},"status":{"flags":{"active":true,"converging":false,"failed":false}}}`, ""},
		{"$pushAll activityLog", "instances:\n  i:\n    $pushAll:\n      activityLog:\n      - {severity: eRRor, message: \"two\\nlines\"}\n      - {message: no severity}\n      - {severity: LOUD, message: bad severity}\n",
			`{"activityLog":[{"message":"old","severity":"INFO"},{"message":"two\nlines","severity":"ERROR"},{"message":"no severity","severity":"INFO"},{"message":"bad severity","severity":"INFO"}],"instanceId":"x","interfaces":{"compute":{"signals":{"ip":"10.0.0.1","port":22}}},"status":{"flags":{"active":true,"converging":false,"failed":false},"message":"up"}}`, ""},
		{"$pushAll commands", "instances:\n  i:\n    $pushAll:\n      commands.c.1:\n      - {$intermediate: true, p: 50}\n      - {p: 100}\n",
			`{"activityLog":[{"message":"old","severity":"INFO"}],"commands":{"c.1":[{"$intermediate":true,"p":50},{"p":100}]},"instanceId":"x","interfaces":{"compute":{"signals":{"ip":"10.0.0.1","port":22}}},"status":{"flags":{"active":true,"converging":false,"failed":false},"message":"up"}}`, ""},
		{"$set interface flag", "instances:\n  i:\n    $set: {interfaces.compute.status.flags.failed: true}\n",
			`{"activityLog":[{"message":"old","severity":"INFO"}],"instanceId":"x","interfaces":{"compute":{"signals":{"ip":"10.0.0.1","port":22},"status":{"flags":{"failed":true}}}},"status":{"flags":{"active":true,"converging":false,"failed":false},"message":"up"}}`, ""},
		{"message required", "instances:\n  i:\n    $pushAll:\n      activityLog:\n      - {severity: INFO}\n", "", `"message" is required`},
		{"message must be a string", "instances:\n  i:\n    $pushAll:\n      activityLog:\n      - {message: [a]}\n", "", `"message" is required and must be a string`},
		{"log entry not a map", "instances:\n  i:\n    $pushAll:\n      activityLog: [hello]\n", "", "must be a map with a message"},
		{"$pushAll elsewhere", "instances:\n  i:\n    $pushAll:\n      interfaces.compute.signals.ip: [a]\n", "", "activityLog and commands"},
		{"$unset a flag", "instances:\n  i:\n    $unset: {status.flags.active: }\n", "", "cannot $unset the status flag"},
		{"flag not boolean", "instances:\n  i:\n    $set: {status.flags.converging: 1}\n", "", "must be a boolean"},
		{"set through a scalar", "instances:\n  i:\n    $set: {instanceId.x: 1}\n", "", "is a string, not a map"},
		{"command result not a map", "instances:\n  i:\n    $pushAll:\n      commands.c: [1]\n", "", "must be a map"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal([]byte(base), &m); err != nil {
				t.Fatal(err)
			}
			c, err := graph.Canonicalize(m)
			if err != nil {
				t.Fatal(err)
			}
			model := instanceModel(c.(map[string]graph.Value))
			err = applyReply(t, model, tc.reply)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if probs := model.check(); len(probs) > 0 {
				t.Fatalf("model problems: %v", probs)
			}
			got, _ := json.Marshal(map[string]graph.Value(model))
			if string(got) != tc.want {
				t.Errorf("model\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestSeverity(t *testing.T) {
	for in, want := range map[any]string{
		"TRACE": "TRACE", "debug": "DEBUG", "Info": "INFO", "WaRnInG": "WARNING", "ERrOr": "ERROR",
		nil: "INFO", "": "INFO", "warn": "INFO", "FATAL": "INFO", int64(3): "INFO", " error ": "ERROR",
	} {
		if got := normalizeSeverity(in); got != want {
			t.Errorf("normalizeSeverity(%v) = %s, want %s", in, got, want)
		}
	}
}

func TestModelCheck(t *testing.T) {
	cases := map[string]string{
		`{"status":"up"}`:                                                                     "status must be a map",
		`{"status":{"flags":{"active":"yes"}}}`:                                               "status.flags.active must be a boolean",
		`{"status":{"flags":{"happy":true}}}`:                                                 "is not a status flag",
		`{"status":{"message":3}}`:                                                            "status.message must be a string",
		`{"name":["a"]}`:                                                                      "name must be a string",
		`{"interfaces":{"a":{"signals":[1]}}}`:                                                "interfaces.a.signals must be a map",
		`{"interfaces":{"a":{"status":{"flags":[]}}}}`:                                        "interfaces.a.status.flags must be a map",
		`{"components":{"db":{"reference":{"mapping":"nodot","key":"k"}}}}`:                   "reference.mapping must be",
		`{"components":{"db":{"reference":{"mapping":"a.b"}}}}`:                               "reference.key must be",
		`{"components":{"x":{"components":{"y":{"reference":{"mapping":"a.b","key":[1]}}}}}}`: "components.x.components.y.reference.key",
		`{"activityLog":{"a":1}}`:                                                             "activityLog must be a list",
		`{"commands":[1]}`:                                                                    "commands must be a map",
	}
	for in, want := range cases {
		var m map[string]any
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatal(err)
		}
		c, _ := graph.Canonicalize(m)
		probs := instanceModel(c.(map[string]graph.Value)).check()
		if !strings.Contains(strings.Join(probs, "; "), want) {
			t.Errorf("%s: problems %v, want %q", in, probs, want)
		}
	}
	ok := `{"instanceId":"a","name":"n","status":{"flags":{"active":true},"message":"m"},"components":{"x":{"reference":{"mapping":"vms.vm-by-id","key":"i-1"},"components":{"y":{"reference":{"mapping":"a.b","key":2}}}}}}`
	var m map[string]any
	_ = json.Unmarshal([]byte(ok), &m)
	c, _ := graph.Canonicalize(m)
	if probs := instanceModel(c.(map[string]graph.Value)).check(); len(probs) > 0 {
		t.Errorf("valid model: %v", probs)
	}
}

// TestMalformedReplies parses every reply under testdata/replies:
// each "# ERROR: text" comment expects an error on its line containing
// text; a file without one must parse cleanly.
func TestMalformedReplies(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "replies", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reply fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want := testutil.ErrorLines(data)
			// The reply is streamed line by line, as from a script.
			var got []string
			rs := &replyStream{file: "reply", onDoc: func(d replyDoc) {
				m := instanceModel{}
				for _, iu := range d.instances {
					for _, u := range iu.updates {
						if _, err := m.apply(u); err != nil {
							got = append(got, strings.Join([]string{itoa(u.rng.Start.Line), err.Error()}, ": "))
						}
					}
				}
			}}
			for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				rs.line(l)
			}
			rs.finish()
			for _, d := range rs.diags {
				got = append(got, itoa(d.Range.Start.Line)+": "+d.Summary)
			}
			for line, text := range want {
				if !slices.ContainsFunc(got, func(g string) bool {
					return strings.HasPrefix(g, itoa(line)+": ") && strings.Contains(g, text)
				}) {
					t.Errorf("line %d: no error containing %q; got %q", line, text, got)
				}
			}
			if len(want) == 0 && len(got) > 0 {
				t.Errorf("unexpected errors: %q", got)
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// FuzzProtocol feeds arbitrary script output through the streaming reply
// parser and the model updates: never a panic, and every document that
// parses leaves a model that check can describe.
func FuzzProtocol(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "replies", "*.yaml"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := instanceModel{}
		rs := &replyStream{file: "fuzz", onDoc: func(d replyDoc) {
			for _, iu := range d.instances {
				for _, u := range iu.updates {
					if _, err := m.apply(u); err != nil {
						return
					}
				}
			}
			_ = m.check()
			_ = m.feedback("id", nil)
		}}
		for _, l := range strings.Split(string(data), "\n") {
			rs.line(l)
		}
		rs.finish()
	})
}

func TestModelFeedback(t *testing.T) {
	m := instanceModel{}
	reply := `instances:
  i:
    instanceId: abc
    name: Web 1
    status: {flags: {active: true, failed: true}, message: degraded}
    interfaces:
      web:
        signals: {url: "http://x/", port: 80}
        status: {flags: {converging: true}, message: reloading}
      db:
        signals: {dsn: "db://x"}
    components:
      lb:
        reference: {mapping: vms.vm-by-id, key: i-1}
      pool:
        components:
          first:
            reference: {mapping: vms.vm-by-id, key: i-2}
          second:
            reference: {mapping: other.map, key: 7}
`
	if err := applyReply(t, m, reply); err != nil {
		t.Fatal(err)
	}
	var log []graph.Value
	for i := range maxLogEntries + 5 {
		log = append(log, map[string]graph.Value{"severity": "INFO", "message": strconv.Itoa(i)})
	}
	m["activityLog"] = log
	cmds := map[string]graph.Value{}
	for i := range maxCommands + 3 {
		cmds[fmt.Sprintf("c%03d", i)] = []graph.Value{}
	}
	m["commands"] = cmds
	fb := m.feedback("i", map[string]map[string]string{"vms.vm-by-id": {"i-1": "VM1", "i-2": "VM2"}})
	if fb.InstanceID != "i" || fb.Extra[driver.ExtraInstanceID] != "abc" || fb.Attributes[AttrName] != "Web 1" {
		t.Errorf("ids: %+v", fb)
	}
	if !fb.Status.Active || !fb.Status.Failed || fb.Status.Converging || fb.Status.Message != "degraded" {
		t.Errorf("status %+v", fb.Status)
	}
	wantSignals := map[string]graph.Value{"web.url": "http://x/", "web.port": int64(80), "db.dsn": "db://x"}
	if !graph.Equal(map[string]graph.Value(fb.Signals), map[string]graph.Value(wantSignals)) {
		t.Errorf("signals %v", fb.Signals)
	}
	wantIf := map[string]graph.Value{"web": map[string]graph.Value{"active": false, "converging": true, "failed": false, "message": "reloading"}}
	if !graph.Equal(fb.Attributes[AttrInterfaceStatus], graph.Value(wantIf)) {
		t.Errorf("interface status %v", fb.Attributes[AttrInterfaceStatus])
	}
	wantRefs := map[string]graph.Value{
		"lb":          map[string]graph.Value{"mapping": "vms.vm-by-id", "key": "i-1", "instance": "VM1"},
		"pool.first":  map[string]graph.Value{"mapping": "vms.vm-by-id", "key": "i-2", "instance": "VM2"},
		"pool.second": map[string]graph.Value{"mapping": "other.map", "key": "7"},
	}
	if !graph.Equal(fb.Attributes[AttrComponents], graph.Value(wantRefs)) {
		t.Errorf("components %v", fb.Attributes[AttrComponents])
	}
	model := fb.Extra[ExtraModel].(map[string]graph.Value)
	if l := model["activityLog"].([]graph.Value); len(l) != maxLogEntries || l[0].(map[string]graph.Value)["message"] != "5" {
		t.Errorf("activity log kept %d entries from %v", len(l), l[0])
	}
	if c := model["commands"].(map[string]graph.Value); len(c) != maxCommands || c["c002"] != nil || c["c003"] == nil {
		t.Errorf("commands kept %d", len(c))
	}
	// The recorded model is a copy: changing the live one leaves it alone.
	m["name"] = "changed"
	if model["name"] != "Web 1" {
		t.Error("the recorded model shares the live one")
	}
	if got := priorModel(&state.Resource{Feedback: fb}); got["instanceId"] != "abc" {
		t.Errorf("prior model %v", got)
	}
}
