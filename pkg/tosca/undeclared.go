package tosca

import (
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
)

// UndeclaredInput reports whether d is the error Compile gives for a
// value given for an input the template does not declare, and the
// input's name. A loader compiling several templates with one set of
// values uses it to keep only the values no template declares.
func UndeclaredInput(d diag.Diagnostic) (string, bool) {
	if d.Code != CodeUnknownInput || !strings.HasPrefix(d.Detail, "Declare the input under ") {
		return "", false
	}
	for _, section := range []string{"topology_template", "service_template"} {
		if name, ok := strings.CutPrefix(d.Path, section+".inputs."); ok {
			return name, true
		}
	}
	return "", false
}
