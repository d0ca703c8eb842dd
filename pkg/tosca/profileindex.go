package tosca

import (
	"context"

	"github.com/xosplan/xosplan/pkg/tosca/internal/tosca2"
)

// ProfileIndex maps TOSCA 2.0 profile names to the files of a search path
// that declare them (Options.ProfilePath). Build one with
// NewProfileIndex; it is read-only afterwards, so one index may serve
// every compile of a run at once.
type ProfileIndex = tosca2.ProfileIndex

// NewProfileIndex indexes the profiles the folders declare: the files
// named *.yaml, *.yml or without an extension (hidden folders skipped,
// links to folders not followed) that are TOSCA 2.0 files declaring
// `profile: NAME`, the first folder that declares a name winning. A
// folder that cannot be read is an error; a file that cannot be read or
// is not a profile is skipped.
func NewProfileIndex(ctx context.Context, dirs []string) (*ProfileIndex, error) {
	return tosca2.NewProfileIndex(ctx, dirs)
}
