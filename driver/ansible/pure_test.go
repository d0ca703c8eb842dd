package ansible

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

func TestHostOf(t *testing.T) {
	defaults := Host{User: "centos", KeyFile: "/k"}
	for _, tc := range []struct {
		name string
		v    graph.Value
		want Host
	}{
		{"none", nil, Host{User: "centos", KeyFile: "/k"}},
		{"first non-empty candidate", map[string]graph.Value{"address": []graph.Value{nil, " ", "10.0.0.5", "10.0.0.6"}},
			Host{Address: "10.0.0.5", User: "centos", KeyFile: "/k"}},
		{"user of the Compute wins", map[string]graph.Value{"address": "h", "user": "ubuntu"}, Host{Address: "h", User: "ubuntu", KeyFile: "/k"}},
		{"malformed", "10.0.0.5", Host{User: "centos", KeyFile: "/k"}},
	} {
		if got := HostOf(tc.v, defaults); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestInventory(t *testing.T) {
	for _, tc := range []struct {
		host Host
		want map[string]string
	}{
		{Host{}, map[string]string{"ansible_connection": "local", "ansible_host": "localhost", "ansible_python_interpreter": "{{ ansible_playbook_python }}"}},
		{Host{Address: "127.0.0.1", User: "x"}, map[string]string{"ansible_connection": "local", "ansible_host": "localhost", "ansible_python_interpreter": "{{ ansible_playbook_python }}"}},
		{Host{Address: "LocalHost"}, map[string]string{"ansible_connection": "local", "ansible_host": "localhost", "ansible_python_interpreter": "{{ ansible_playbook_python }}"}},
		{Host{Address: "10.0.0.5", User: "ubuntu", KeyFile: "/keys/id"}, map[string]string{"ansible_connection": "ssh", "ansible_host": "10.0.0.5",
			"ansible_user": "ubuntu", "ansible_ssh_private_key_file": "/keys/id", "ansible_ssh_common_args": "-o StrictHostKeyChecking=accept-new"}},
		{Host{Address: "vm.example"}, map[string]string{"ansible_connection": "ssh", "ansible_host": "vm.example",
			"ansible_ssh_common_args": "-o StrictHostKeyChecking=accept-new"}},
	} {
		var inv struct {
			All struct {
				Hosts map[string]map[string]string `json:"hosts"`
			} `json:"all"`
		}
		if err := json.Unmarshal(Inventory(tc.host), &inv); err != nil {
			t.Fatal(err)
		}
		if got := inv.All.Hosts[InventoryHost]; !reflect.DeepEqual(got, tc.want) || len(inv.All.Hosts) != 1 {
			t.Errorf("%+v: %v, want %v", tc.host, inv.All.Hosts, tc.want)
		}
	}
}

func TestParseStats(t *testing.T) {
	got, err := ParseStats([]byte(`{"global": {"url": "http://x", "port": 8080, "ratio": 0.5, "tags": ["a", 1], "m": {"$unknown": {"func": "attribute", "args": ["db", "pw"]}}},
		"hosts": {"opera": {"url": "http://y", "ready": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]graph.Value{"url": "http://y", "port": int64(8080), "ratio": 0.5, "tags": []graph.Value{"a", int64(1)},
		"m": map[string]graph.Value{"$unknown": map[string]graph.Value{"func": "attribute", "args": []graph.Value{"db", "pw"}}}, "ready": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	if got, err := ParseStats(nil); got != nil || err != nil {
		t.Errorf("empty: %v, %v", got, err)
	}
	if got, err := ParseStats([]byte(`{"global": {}, "hosts": {}}`)); got != nil || err != nil {
		t.Errorf("no stats: %v, %v", got, err)
	}
	if _, err := ParseStats([]byte(`{"global": [`)); err == nil {
		t.Error("broken JSON: no error")
	}
}

func TestVars(t *testing.T) {
	got, err := Vars(map[string]graph.Value{"port": int64(1), graph.InputAnsibleHost: map[string]graph.Value{}, "_x9": "y"})
	if err != nil || !reflect.DeepEqual(got, map[string]graph.Value{"port": int64(1), "_x9": "y"}) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"9lives", "a-b", "a.b", ""} {
		if _, err := Vars(map[string]graph.Value{bad: "v"}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := Vars(map[string]graph.Value{"x": graph.Unknown{Func: "attribute", Args: []graph.Value{"db", "a"}}}); err == nil {
		t.Error("an unresolved input: no error")
	}
}

func TestWriteVarsIsPrivate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "vars.json")
	if err := writeVars(p, map[string]graph.Value{"pw": "s"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	if err := writeVars(p, nil); err == nil {
		t.Error("an existing file was overwritten")
	}
}

func TestIncludes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"play/site.yml": `- import_playbook: other.yml
- hosts: all
  vars_files: [vars/common.yml, "{{ env }}.yml"]
  roles:
    - web
    - role: db
  tasks:
    - include_tasks: tasks/a.yml
    - block:
        - ansible.builtin.import_tasks:
            file: tasks/b.yml
    - template: src=conf.j2 dest=/etc/conf
    - copy:
        src: data.txt
        dest: /tmp/data.txt
    - include_vars: extra.yml
    - include_tasks: /abs/path.yml
    - include_tasks: missing.yml
    - include_vars: secret.yml
`,
		"play/other.yml":                  "- hosts: all\n  tasks:\n    - import_tasks: tasks/c.yml\n",
		"play/vars/common.yml":            "a: 1\n",
		"play/tasks/a.yml":                "- include_tasks: a2.yml\n",
		"play/tasks/a2.yml":               "- debug: msg=x\n",
		"play/tasks/b.yml":                "- debug: msg=x\n",
		"play/tasks/c.yml":                "- debug: msg=x\n",
		"play/templates/conf.j2":          "x\n",
		"play/files/data.txt":             "x\n",
		"play/vars/extra.yml":             "b: 2\n",
		"play/roles/web/tasks/main.yml":   "- debug: msg=x\n",
		"play/roles/web/templates/x.j2":   "x\n",
		"play/roles/db/defaults/main.yml": "c: 3\n",
		"play/secret.yml":                 "never read\n",
	})
	var reads []string
	read := func(p string) ([]byte, error) {
		reads = append(reads, p)
		if filepath.Base(p) == "secret.yml" {
			return nil, errors.New("outside the root")
		}
		return os.ReadFile(p)
	}
	got := Includes(context.Background(), filepath.Join(dir, "play", "site.yml"), read)
	var rel []string
	for _, f := range got {
		r, _ := filepath.Rel(filepath.Join(dir, "play"), f)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{"files/data.txt", "other.yml", "roles/db/defaults/main.yml", "roles/web/tasks/main.yml", "roles/web/templates/x.j2",
		"tasks/a.yml", "tasks/a2.yml", "tasks/b.yml", "tasks/c.yml", "templates/conf.j2", "vars/common.yml", "vars/extra.yml"}
	if !slices.Equal(rel, want) {
		t.Errorf("got  %v\nwant %v", rel, want)
	}
	if !slices.ContainsFunc(reads, func(p string) bool { return filepath.Base(p) == "secret.yml" }) {
		t.Error("secret.yml was not asked for: the test proves nothing")
	}
	if !slices.IsSorted(got) {
		t.Error("not sorted")
	}
}

func TestIncludesBoundsACycle(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.yml": "- hosts: all\n  tasks:\n    - include_tasks: t.yml\n",
		"t.yml": "- include_tasks: t.yml\n- include_tasks: u.yml\n",
		"u.yml": "- include_tasks: t.yml\n",
	})
	got := Includes(context.Background(), filepath.Join(dir, "a.yml"), os.ReadFile)
	if len(got) != 2 {
		t.Errorf("got %v, want t.yml and u.yml once", got)
	}
}

func TestForcesRealRun(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"plain.yml":  "- hosts: all\n  tasks:\n    - debug: msg=x\n      check_mode: true\n",
		"forced.yml": "- hosts: all\n  tasks:\n    - block:\n        - command: rm -rf /x\n          check_mode: no\n",
		"play.yml":   "- hosts: all\n  check_mode: false\n",
	})
	for name, want := range map[string]bool{"plain.yml": false, "forced.yml": true, "play.yml": true, "missing.yml": false} {
		if got := ForcesRealRun(context.Background(), []string{filepath.Join(dir, name)}, os.ReadFile); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
