package tosca1

// Secrets: which evaluated values carry a secret.
//
// A value is secret when its definition is sensitive (metadata
// sensitive: true, or a data type deriving from tosca.datatypes.Credential)
// or when evaluating it read a secret: get_input of a sensitive input, or
// get_property of a secret property, directly or through concat, join,
// token, a list or a map. The compiler counts secret reads while it
// evaluates (compiler.secretReads); a property whose evaluation raised the
// count is recorded by its path (compiler.secretAt), so that a later
// get_property of its memoized value counts as a read again. Render lists
// secret properties in graph.Resource.Sensitive and secret operation
// inputs in graph.Operation.Sensitive, which keeps them out of plans,
// plan files and `state show`.
//
// A diagnostic about the value of a sensitive definition (compiler.inSecret
// is set while one is checked) or about the value a sensitive input gives
// names the definition and the rule it breaks but never quotes or
// measures the value, and is marked diag.Diagnostic.Sensitive so that no
// renderer shows its source line.
//
// Nothing here reports a diagnostic.

import (
	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// noteSecretNode records that a property or capability property of nt is
// secret when secret reads rose above before. Paths are looked up only for
// such nodes: building them for every property would cost an allocation
// each.
func (c *compiler) noteSecretNode(nt *nodeTpl, before int) {
	if c.SecretReads == before {
		return
	}
	if c.secretNode == nil {
		c.secretNode = map[*nodeTpl]bool{}
	}
	c.secretNode[nt] = true
}

// readSecretAt counts a read of the memoized value at path when it is
// secret.
func (c *compiler) readSecretAt(path string) {
	if c.SecretAt[path] {
		c.SecretReads++
	}
}

// definedSecret reports whether a parameter definition (a map with a
// type) declares a secret: metadata sensitive: true, or a sensitive data
// type.
func (c *compiler) definedSecret(n *yamlsrc.Node) bool {
	if metaSensitive(n) {
		return true
	}
	if tn := n.Get("type"); tn.IsString() {
		if t := c.lookup(kData, tn.Value); t != nil && t.sensitive {
			return true
		}
	}
	return false
}
