package ansible

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/xosplan/xosplan/pkg/graph"
)

// statsPlugin is the callback plugin the driver enables for every run
// (ANSIBLE_CALLBACK_PLUGINS): at the end of the playbook it writes what
// set_stats gathered to the file $XOSPLAN_ANSIBLE_STATS names, as JSON:
// {"global": {...}, "hosts": {host: {...}}}. xOpera reads the same data
// (global_custom_stats) from the json stdout callback; a plugin of our own
// keeps Ansible's default output, which streams a line per task.
const statsPlugin = `# Written by xosplan for one ansible-playbook run.
import json
import os

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "xosplan_stats"
    CALLBACK_NEEDS_ENABLED = True

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get("XOSPLAN_ANSIBLE_STATS")
        if not path:
            return
        custom = getattr(stats, "custom", None) or {}
        data = {
            "global": custom.get("_run", {}),
            "hosts": {h: v for h, v in custom.items() if h != "_run"},
        }
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, default=str)
`

// ParseStats returns the outputs of a run from what statsPlugin wrote:
// the global set_stats data (set_stats with per_host: false, the
// default, as xOpera reads it), over which the per-host data of the one
// host is laid (set_stats with per_host: true). Values are canonical
// graph values. Empty data is no outputs.
func ParseStats(data []byte) (map[string]graph.Value, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var doc struct {
		Global map[string]any            `json:"global"`
		Hosts  map[string]map[string]any `json:"hosts"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("reading the set_stats data: %w", err)
	}
	out := map[string]graph.Value{}
	add := func(m map[string]any) {
		for k, v := range m {
			out[k] = graph.DecodePlain(v)
		}
	}
	add(doc.Global)
	for _, h := range slices.Sorted(maps.Keys(doc.Hosts)) {
		add(doc.Hosts[h])
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
