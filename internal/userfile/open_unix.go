//go:build unix

package userfile

import (
	"errors"
	"os"
	"syscall"
)

// openFlags makes opening a FIFO or a device return at once instead of
// waiting for a writer or a carrier.
const openFlags = syscall.O_NONBLOCK | syscall.O_CLOEXEC

// noFollowFlag refuses a symbolic link as the last component.
const noFollowFlag = syscall.O_NOFOLLOW

// clearNonblock puts a regular file back to blocking reads (Linux ignores
// O_NONBLOCK on regular files; other systems may not).
func clearNonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}

// isSymlinkErr tells whether an O_NOFOLLOW open failed because name is a
// symbolic link.
func isSymlinkErr(name string, err error) bool {
	if !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.EMLINK) {
		return false
	}
	fi, lerr := os.Lstat(name)
	return lerr == nil && fi.Mode()&os.ModeSymlink != 0
}
