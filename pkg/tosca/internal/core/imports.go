package core

import (
	"errors"
	"io/fs"

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

// ReadMapped reads name, the local file an import map entry gives for the
// URL u. The mapping is the user's explicit permission to read that one
// file, so the compile's root allows it (userfile.Root.AllowFile)
// wherever it lies; it is read with every other check of an import. A
// file that cannot be read is reported at the import entry (at, path) and
// marks the import failed: ok is false.
func (c *Session) ReadMapped(u, name string, at diag.Range, path string) (data []byte, ok bool) {
	err := c.FSRoot.AllowFile(name)
	if err == nil {
		data, err = c.ReadFile(name)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			c.Errorf(at, path, CodeImportNotFound, "import %q is mapped to %s, which does not exist", u, c.Display(name))
		} else {
			c.ImportRefused(u, at, path, err)
		}
		c.FailedImport()
		return nil, false
	}
	return data, true
}
