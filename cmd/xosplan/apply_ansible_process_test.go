package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestAnsibleKill9ConvergesOnNextApply kills xosplan with SIGKILL while a
// playbook runs: the playbook's processes end with it, and the next apply
// removes the run folder (and its variables file) the killed one left,
// runs the create again and converges (nothing left to do after).
func TestAnsibleKill9ConvergesOnNextApply(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the supervisor that ends a run with xosplan needs Linux")
	}
	if _, err := exec.LookPath("ansible-playbook"); err != nil {
		t.Skip("ansible-playbook is not installed (make test-deps installs ansible-core)")
	}
	dir := testutil.Tree(t, map[string]string{
		"create.yml": `- hosts: all
  gather_facts: false
  tasks:
    - shell: 'echo $$ > "{{ work }}/pid"; exec sleep {{ lookup("env", "NAP") }}'
    - copy:
        dest: "{{ work }}/done"
        content: "done\n"
`,
		"stack.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  inputs:
    work: { type: string }
  node_templates:
    n:
      type: tosca.nodes.Root
      interfaces:
        Standard:
          create:
            implementation: create.yml
            inputs:
              work: { get_input: work }
`,
	})
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"NAP=60", "HOME=" + dir}
	cmd := xosplanCmd(dir, env, "apply", "--auto-approve", "--var", "work="+work, "stack.yaml")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, state.DefaultPath+state.JournalSuffix)
	deadline := time.Now().Add(90 * time.Second)
	for {
		j, _ := os.ReadFile(journal)
		if _, err := os.Stat(filepath.Join(work, "pid")); err == nil && bytes.Contains(j, []byte(`"process":`)) {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the playbook did not start its task, or its process group was not recorded:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	task := pidIn(t, filepath.Join(work, "pid"))
	t.Cleanup(func() { endOurSleep(task) })
	killed := cmd.Process.Pid
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), "xosplan-ansible-"+strconv.Itoa(killed)+"-*"))
	if len(left) == 0 {
		t.Fatal("the killed run left no run folder: the sweep below proves nothing")
	}
	if !gone(task, 20*time.Second) {
		t.Fatalf("the playbook's task (pid %d) outlived the xosplan that ran it", task)
	}

	code, text := runXosplan(t, dir, []string{"NAP=0", "HOME=" + dir}, "apply", "--auto-approve", "--var", "work="+work, "stack.yaml")
	if code != 0 || !strings.Contains(text, "Apply complete!") {
		t.Fatalf("apply after kill -9: exit %d\n%s", code, text)
	}
	if _, err := os.Stat(filepath.Join(work, "done")); err != nil {
		t.Errorf("the create did not run again to its end: %v", err)
	}
	// The next run removed the folder (with its variables) the killed one
	// left.
	for _, d := range left {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s is still there", d)
			_ = os.RemoveAll(d)
		}
	}
	code, text = runXosplan(t, dir, []string{"HOME=" + dir}, "plan", "--detailed-exitcode", "--var", "work="+work, "stack.yaml")
	if code != 0 {
		t.Errorf("plan after recovery: exit %d (want 0, no changes)\n%s", code, text)
	}
}
