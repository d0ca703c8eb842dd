//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// driftClusterStack is a node whose Standard.configure is a playbook that
// writes work/app.conf.
const driftClusterStack = `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    app:
      type: tosca.nodes.Root
      interfaces:
        Standard:
          configure:
            implementation: configure.yml
            inputs:
              path: PATH
`

const driftClusterPlaybook = `- hosts: all
  gather_facts: false
  tasks:
    - name: write the configuration
      copy:
        dest: "{{ path }}"
        content: "setting=1\n"
`

// driftClusterDir makes the folder of a cluster test of the drift check
// (driftClusterStack, its playbook writing work/app.conf) and a database
// for its syncs; it skips the test without ansible-playbook.
func driftClusterDir(t *testing.T) (db, dir, conf string) {
	t.Helper()
	if _, err := exec.LookPath("ansible-playbook"); err != nil {
		t.Skip("ansible-playbook is not installed (make test-deps installs ansible-core)")
	}
	db = pgtest.NewDatabase(t)
	dir = clusterDir(t)
	t.Setenv("HOME", t.TempDir()) // Ansible keeps its own files under ~/.ansible
	conf = filepath.Join(dir, "work", "app.conf")
	if err := os.WriteFile(filepath.Join(dir, "configure.yml"), []byte(driftClusterPlaybook), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(strings.Replace(driftClusterStack, "PATH", conf, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return db, dir, conf
}

// appStatus is what m's API says of app; false when it does not answer
// or does not know app.
func appStatus(m *syncMember) (xsync.ResourceStatus, bool) {
	st, ok := m.status()
	if !ok {
		return xsync.ResourceStatus{}, false
	}
	for _, r := range st.Resources {
		if r.Address == "app" {
			return r, true
		}
	}
	return xsync.ResourceStatus{}, false
}

// TestSyncClusterChecksDriftOnTheLeader: in a cluster of syncs sharing a
// PostgreSQL workspace, --check-drift runs where the schedules run, on
// the leader (the member that plans and reconciles, with the checkout
// whose digest every member's actions must match): after the first
// reconcile wrote app.conf, a hand edit of it is found as drift, changing
// nothing, and when the leader is killed the member that leads next goes
// on checking and finds it too. Followers run no schedule of their own:
// they run only the actions the leader hands them, so that the same host
// is not checked once per member.
func TestSyncClusterChecksDriftOnTheLeader(t *testing.T) {
	db, dir, conf := driftClusterDir(t)
	members := map[string]*syncMember{}
	for _, n := range []string{"m1", "m2"} {
		members[n] = startMember(t, dir, db, n, "--check-drift", "2s")
	}
	testutil.WaitFor(t, 60*time.Second, "two live members and a leader", func() bool {
		return liveMembers(members["m1"]) == 2 && leaderOf(members["m1"]) != ""
	})
	leader := leaderOf(members["m1"])
	testutil.WaitFor(t, 90*time.Second, "app.conf written and a drift check of app on the leader finding it in line", func() bool {
		data, _ := os.ReadFile(conf)
		rs, ok := appStatus(members[leader])
		return string(data) == "setting=1\n" && ok && rs.LastDriftCheck != nil && rs.Drift == ""
	})
	if err := os.WriteFile(conf, []byte("setting=2 by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 90*time.Second, "the leader's drift check to find app drifted", func() bool {
		rs, ok := appStatus(members[leader])
		return ok && strings.Contains(rs.Drift, "Standard.configure would change 1 task(s)")
	})
	if data, _ := os.ReadFile(conf); string(data) != "setting=2 by hand\n" {
		t.Fatalf("the drift check changed app.conf: %q", data)
	}

	members[leader].kill()
	survivor := members["m1"]
	if leader == "m1" {
		survivor = members["m2"]
	}
	testutil.WaitFor(t, 10*clusterLease, "the other member to lead", func() bool {
		l := leaderOf(survivor)
		return l != "" && l != leader
	})
	testutil.WaitFor(t, 90*time.Second, "the new leader's drift check to find app drifted", func() bool {
		rs, ok := appStatus(survivor)
		return ok && strings.Contains(rs.Drift, "Standard.configure would change 1 task(s)")
	})
	if data, _ := os.ReadFile(conf); string(data) != "setting=2 by hand\n" {
		t.Fatalf("the drift check changed app.conf: %q", data)
	}
}

// TestSyncClusterRepairsDrift: with --check-drift-repair, the leader's
// drift check records the drifted resource failed, and the reconcile that
// follows hands its repair (the configure again) to a member: the hand
// edit is undone.
func TestSyncClusterRepairsDrift(t *testing.T) {
	db, dir, conf := driftClusterDir(t)
	m1 := startMember(t, dir, db, "m1", "--check-drift", "2s", "--check-drift-repair")
	startMember(t, dir, db, "m2", "--check-drift", "2s", "--check-drift-repair")
	testutil.WaitFor(t, 60*time.Second, "two live members and a leader", func() bool {
		return liveMembers(m1) == 2 && leaderOf(m1) != ""
	})
	testutil.WaitFor(t, 90*time.Second, "app.conf written", func() bool {
		data, _ := os.ReadFile(conf)
		return string(data) == "setting=1\n"
	})
	if err := os.WriteFile(conf, []byte("setting=2 by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 90*time.Second, "the drift repaired", func() bool {
		data, _ := os.ReadFile(conf)
		return string(data) == "setting=1\n"
	})
}
