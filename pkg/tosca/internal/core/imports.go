package core

import (
	"errors"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/diag"
)

// ImportRefused reports an import that could not be read, at the import
// entry. The refused file was not read, so nothing of it is quoted.
func (c *Session) ImportRefused(written string, at diag.Range, path string, err error) {
	var ue *userfile.Error
	switch {
	case errors.Is(err, userfile.ErrOutsideRoot) && errors.As(err, &ue):
		c.Errorf(at, path, CodeImportOutsideRoot, "import %q is outside the configuration root (%s); a template may import only files inside it", written, ue.Detail)
	case errors.Is(err, userfile.ErrNotRegular) && errors.As(err, &ue):
		c.Errorf(at, path, CodeImportNotRegular, "import %q is not a regular file (%s)", written, ue.Detail)
	case errors.Is(err, userfile.ErrTooLarge) && errors.As(err, &ue):
		c.Errorf(at, path, CodeImportTooLarge, "import %q is too large (%s)", written, ue.Detail)
	default:
		c.Errorf(at, path, CodeRead, "cannot read import %q: %v", written, PlainErr(err))
	}
}

// NetworkImport reports an import that only the network could satisfy;
// the names it may define are its follow-ons.
func (c *Session) NetworkImport(at diag.Range, path, format string, args ...any) {
	c.ErrorDetail(at, path, CodeNetworkImport, "A local copy of the file is read instead when the import map maps the URL to it (the command line's --import-map URL=FILE, Options.ImportMap).", format, args...)
	c.FailedImport()
}

// LongImportKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func LongImportKeys() []string {
	return []string{"file", "repository", "namespace_uri", "namespace_prefix"}
}
