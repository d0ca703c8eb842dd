package tosca1

// Keynames that a later TOSCA version introduced, used in a file that
// declares an older tosca_definitions_version: xosplan reads them (an
// orchestrator of the newer version would), but the file does not conform
// to the version it declares, so they are warnings naming the version
// that introduced them (tosca.newer_keyname).

import (
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// newerKeyname is a keyname of one place in the grammar and the version
// that introduced it there.
type newerKeyname struct {
	where, key, since string
}

// newerKeynames lists them; a function so that no package-level slice can
// be changed.
func newerKeynames() []newerKeyname {
	return []newerKeyname{
		{"operation", "outputs", version13},
		{"interface", "operations", version13},
		{"interface", "notifications", version13},
		{"implementation", "timeout", version12},
		{"implementation", "operation_host", version12},
		{"definition", "key_schema", version13},
		{"definition", "external-schema", version13},
		{"topology", "workflows", version11},
		{"substitution", "substitution_filter", version13},
	}
}

// checkNewer warns of the keynames of n (a map at the place where in the
// grammar) that a version later than the file's introduced.
func (c *compiler) checkNewer(n *yamlsrc.Node, where, path string) {
	declared := c.readingVersion
	if declared == "" {
		declared = c.version
	}
	if declared == version13 || n == nil || n.Kind != yamlsrc.Mapping {
		return
	}
	for _, k := range newerKeynames() {
		if k.where != where || k.since <= declared {
			continue
		}
		if p, ok := n.GetPair(k.key); ok {
			c.warnf(p.Key.Range, joinPath(path, k.key), core.CodeNewerKeyname, "%q in %s is TOSCA %s (%s); this file declares %s",
				k.key, articled(where), versionNumber(k.since), k.since, declared)
		}
	}
}

// versionNumber is "1.3" for tosca_simple_yaml_1_3.
func versionNumber(v string) string {
	return strings.ReplaceAll(strings.TrimPrefix(v, "tosca_simple_yaml_"), "_", ".")
}

// articled names a place of the grammar for a message.
func articled(where string) string {
	switch where {
	case "operation", "interface", "implementation":
		return "an " + where
	case "definition":
		return "a property definition"
	case "topology":
		return "a topology template"
	}
	return "substitution mappings"
}
