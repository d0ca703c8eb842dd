//go:build unix

package ansible

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sweepStale removes the run folders under parent that a process of this
// user which no longer runs left (an xosplan killed with SIGKILL during a
// playbook): their variables file may hold secrets. A folder's name holds
// the process id of the xosplan that made it (runDirPattern).
func sweepStale(parent string) {
	matches, _ := filepath.Glob(filepath.Join(parent, runDirPrefix+"*-*"))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), runDirPrefix)
		pid, err := strconv.Atoi(rest[:max(0, strings.IndexByte(rest, '-'))])
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		fi, err := os.Lstat(m)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.RemoveAll(m)
		}
	}
}
