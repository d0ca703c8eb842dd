package ansible

import (
	"encoding/json"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
)

// Host is where a playbook runs.
type Host struct {
	// Address is the host's name or IP address; "" runs on this machine.
	Address string
	// User and KeyFile are the SSH login; empty leaves Ansible's default
	// (and the playbook's or inputs' ansible_user, which win).
	User, KeyFile string
}

// Local reports whether the playbook runs on this machine, with the
// local connection: no address, or localhost, 127.0.0.1 or ::1.
func (h Host) Local() bool {
	switch strings.ToLower(strings.TrimSpace(h.Address)) {
	case "", "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// HostOf reads the host an operation runs on from the value of its
// graph.InputAnsibleHost input, as pkg/tosca writes it and the walk
// resolves it: a map with "address", a list of candidates of which the
// first non-empty string wins (the Compute's public_address, then its
// private_address), and optionally "user" and "key_file". A missing or
// malformed value is this machine. defaults fills what the value leaves
// empty (the OPERA_SSH_USER / OPERA_SSH_IDENTITY_FILE compatibility).
func HostOf(v graph.Value, defaults Host) Host {
	h := Host{}
	if m, ok := v.(map[string]graph.Value); ok {
		switch a := m["address"].(type) {
		case string:
			h.Address = a
		case []graph.Value:
			for _, c := range a {
				if s, ok := c.(string); ok && strings.TrimSpace(s) != "" {
					h.Address = strings.TrimSpace(s)
					break
				}
			}
		}
		h.User, _ = m["user"].(string)
		h.KeyFile, _ = m["key_file"].(string)
	}
	if h.User == "" {
		h.User = defaults.User
	}
	if h.KeyFile == "" {
		h.KeyFile = defaults.KeyFile
	}
	return h
}

// InventoryHost is the name of the one host of every inventory the
// driver writes: xOpera's, so that playbooks written for it that name the
// host (rather than "all") run unchanged.
const InventoryHost = "opera"

// Inventory returns the inventory of one run, in Ansible's YAML inventory
// format (as JSON, which that format reads): the one host h, with the
// local connection and the playbook's own Python when h is Local,
// otherwise over SSH to h.Address with its user and key. A host key is
// accepted the first time it is seen and checked after (xOpera turned the
// check off altogether).
func Inventory(h Host) []byte {
	vars := map[string]string{}
	if h.Local() {
		vars["ansible_connection"] = "local"
		vars["ansible_host"] = "localhost"
		vars["ansible_python_interpreter"] = "{{ ansible_playbook_python }}"
	} else {
		vars["ansible_connection"] = "ssh"
		vars["ansible_host"] = h.Address
		vars["ansible_ssh_common_args"] = "-o StrictHostKeyChecking=accept-new"
		if h.User != "" {
			vars["ansible_user"] = h.User
		}
		if h.KeyFile != "" {
			vars["ansible_ssh_private_key_file"] = h.KeyFile
		}
	}
	inv := map[string]any{"all": map[string]any{"hosts": map[string]any{InventoryHost: vars}}}
	data, _ := json.MarshalIndent(inv, "", "  ")
	return append(data, '\n')
}
