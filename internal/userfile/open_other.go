//go:build !unix

package userfile

import "os"

// Without O_NONBLOCK and O_NOFOLLOW the checks rely on fstat after the
// open and on Lstat before it.
const (
	openFlags    = 0
	noFollowFlag = 0
)

func clearNonblock(*os.File) error { return nil }

func isSymlinkErr(string, error) bool { return false }
