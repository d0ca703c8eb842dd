package driver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
)

// ErrScriptPath is wrapped by the error of a script path that leaves the
// script root.
var ErrScriptPath = errors.New("script path escapes the script root")

// ErrImplementationPath is wrapped by the error of a TOSCA implementation
// (exec's script, ansible's playbook or a dependency) that resolves
// outside the configuration root (Options.Root).
var ErrImplementationPath = errors.New("implementation outside the configuration root")

// ResolveScript maps a container path (/vm/launch.py) to a file under
// root. A path that climbs above the root with "..", or reaches outside it
// through a symbolic link, is refused.
func ResolveScript(root, containerPath string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("no script root to find %s under (set --script-root)", containerPath)
	}
	if containerPath == "" || strings.ContainsRune(containerPath, 0) {
		return "", fmt.Errorf("invalid script path %q", containerPath)
	}
	depth := 0
	for _, seg := range strings.Split(filepath.ToSlash(containerPath), "/") {
		switch seg {
		case "", ".":
		case "..":
			depth--
			if depth < 0 {
				return "", fmt.Errorf("%s: %w", containerPath, ErrScriptPath)
			}
		default:
			depth++
		}
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	confine, err := userfile.NewRoot(absRoot)
	if err != nil {
		return "", fmt.Errorf("script root: %w", err)
	}
	p := filepath.Join(absRoot, filepath.FromSlash(strings.TrimLeft(containerPath, "/")))
	realP, err := confine.Resolve(p)
	switch {
	case errors.Is(err, userfile.ErrOutsideRoot):
		return "", fmt.Errorf("%s: %w (through a symbolic link)", containerPath, ErrScriptPath)
	case err != nil:
		return "", fmt.Errorf("script %s: %w", containerPath, err)
	}
	if fi, err := os.Stat(realP); err != nil || fi.IsDir() {
		return "", fmt.Errorf("script %s is not a file under %s", containerPath, root)
	}
	return p, nil
}
