package tosca1

// Phase 10 — XOS compatibility.
//
// XOS recipes are TOSCA 1.0 with conventions of XOS's own engine
// (opencord/xos-tosca):
//   - custom types are generated at start-up and imported as
//     custom_types/<model>.yaml; when not on disk the embedded copies in
//     custom_definitions are used (phase 2);
//   - relationship and capability types are declared inside node_types, and
//     tosca.relationships.BelongsToOne is repeated there once per link field;
//     they are classified by what they derive from and the repeats load with a
//     tosca.duplicate_key warning, the last one winning as in PyYAML (phases 1, 3);
//   - node types declare no requirements; a recipe's long-form requirement
//     with any name is accepted (tosca-parser's rule) and becomes a
//     depends_on edge (phase 5, 6); a relationship name no file declares
//     (XOS 3.x's SameHost) is a warning in XOS recipes, as XOS's engine
//     interprets relationship names itself (phase 6);
//   - the property must-exist: true (XOS 3.x: no-create: true) marks a model
//     that must already exist: the resource is Unmanaged;
//   - each model has lookup keys (fields marked tosca_key in xproto, "name"
//     by default; link fields named <link>_id come from the requirement of
//     that name): they go into Resource.Lookup.
//
// No errors are detected here.

import (
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
)

// isXOSType reports whether a node type is an XOS model: XOS's generator
// gives every model the must-exist property; XOS 3.x's hand-written types
// have no-create instead.
func isXOSType(t *typeDef) bool {
	return t != nil && (t.props["must-exist"] != nil || t.props["no-create"] != nil)
}

// xosTopology reports (memoized) whether the topology is an XOS recipe: one
// of its node templates is of an XOS model type.
func (c *compiler) xosTopology() bool {
	if c.xos == 0 {
		c.xos = 2
		for _, nt := range c.topo.nodeList {
			if isXOSType(nt.typ) {
				c.xos = 1
				break
			}
		}
	}
	return c.xos == 1
}

// xosLookupKeys returns the lookup keys of an XOS model (from the xproto
// tosca_key options of the XOS core and service models). Nested lists are
// "one of" groups. Models not listed use "name".
func xosLookupKeys(model string) []any {
	switch model {
	case "AttWorkflowDriverServiceInstance":
		return []any{"serial_number"}
	case "AttWorkflowDriverWhiteListEntry":
		return []any{"owner_id", "serial_number"}
	case "User":
		return []any{"email"}
	case "Privilege":
		return []any{"permission"}
	case "BackupOperation", "NetworkParameter", "Port", "Role", "KubernetesSecretVolumeMount",
		"KubernetesConfigVolumeMount", "RCORDIpAddress":
		return nil
	case "NetworkSlice":
		return []any{"network_id", "slice_id"}
	case "ServiceDependency":
		return []any{"provider_service_id", "subscriber_service_id"}
	case "ServiceInterface":
		return []any{"service_id", "interface_type_id"}
	case "ServiceInstanceLink":
		return []any{"provider_service_instance_id", []string{"subscriber_network_id", "subscriber_service_id", "subscriber_service_instance_id"}}
	case "XOSCore":
		return []any{"maintenance_mode"}
	case "ServiceGraphConstraint":
		return []any{"constraints"}
	case "RCORDSubscriber":
		return []any{"onu_device"}
	case "ONUDevice":
		return []any{"serial_number"}
	case "TechnologyProfile":
		return []any{"technology", "profile_id"}
	}
	return []any{"name"}
}

// applyXOS sets Management and Lookup for XOS models.
func (c *compiler) applyXOS(nt *nodeTpl, r *graph.Resource) {
	if !isXOSType(nt.typ) {
		return
	}
	props := nt.props
	for _, k := range []string{"must-exist", "no-create"} {
		if b, ok := props[k].(bool); ok && b {
			r.Management = graph.Unmanaged
		}
	}
	// A type the recipe derives from an XOS model (to give it a lookup)
	// keeps the model's keys.
	model := nt.typ.name
	for _, name := range c.chainOf(nt.typ) {
		if strings.HasPrefix(name, "tosca.nodes.") {
			model = name
			break
		}
	}
	model = model[strings.LastIndexByte(model, '.')+1:]
	lookup := map[string]graph.Value{}
	add := func(key string) {
		if v, ok := props[key]; ok && v != nil {
			lookup[key] = v
			return
		}
		if link, ok := strings.CutSuffix(key, "_id"); ok {
			for _, ra := range nt.reqs {
				if ra.name == link && ra.target != nil {
					lookup[key] = ra.target.name
					return
				}
			}
		}
	}
	for _, k := range xosLookupKeys(model) {
		switch x := k.(type) {
		case string:
			add(x)
		case []string:
			for _, alt := range x {
				add(alt)
			}
		}
	}
	if len(lookup) > 0 {
		r.Lookup = lookup
	}
}
