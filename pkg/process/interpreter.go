package process

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
)

// Interpreter returns the command line that runs script: ".sh" with sh,
// ".bash" with bash, ".py" with python3; a file with another or no
// extension with the interpreter its "#!" line names. Anything else is
// refused; the file is opened without blocking, so that a named pipe or
// a device is refused too, not waited on.
func Interpreter(ctx context.Context, script string) ([]string, error) {
	switch strings.ToLower(filepath.Ext(script)) {
	case ".sh":
		return []string{"sh", script}, nil
	case ".bash":
		return []string{"bash", script}, nil
	case ".py":
		return []string{"python3", script}, nil
	}
	// Non-blocking and checked: a named pipe or a device named as an
	// implementation is refused, not waited on.
	f, _, err := userfile.Open(ctx, script, userfile.Options{})
	if err != nil {
		return nil, fmt.Errorf("implementation: %w", err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return nil, fmt.Errorf("implementation %s: not a .sh, .bash or .py file and no #! line says how to run it", filepath.Base(script))
	}
	fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "#!"))
	if len(fields) == 0 {
		return nil, fmt.Errorf("implementation %s: empty #! line", filepath.Base(script))
	}
	return append(fields, script), nil
}
