package tosca1

import (
	"github.com/xosplan/xosplan/pkg/diag"
)

// undeclaredInputs reports the input values given for inputs the template
// does not declare (core.Session.UndeclaredInputs).
func (c *compiler) undeclaredInputs(declared map[string]bool, section string, fallback diag.Range) {
	c.UndeclaredInputs(c.opts.Inputs, c.opts.InputRanges, c.root.name, declared, section, fallback)
}
