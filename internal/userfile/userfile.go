package userfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Reasons a file is refused, wrapped by *Error.
var (
	// ErrNotRegular: the name is a FIFO, a device, a socket or a folder.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is larger than the limit.
	ErrTooLarge = errors.New("file too large")
	// ErrOutsideRoot: the name, once its links are resolved, is outside the
	// configuration root.
	ErrOutsideRoot = errors.New("outside the configuration root")
	// ErrSymlink: the last component is a symbolic link where none is
	// allowed.
	ErrSymlink = errors.New("symbolic link not allowed")
)

// Error is a refused file. Its message names the path and the reason and
// never any content of the file.
type Error struct {
	// Path is the name as given.
	Path string
	// Reason is one of the Err values above.
	Reason error
	// Detail says more ("a named pipe", "20971520 bytes; the limit is …").
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%s: %v", e.Path, e.Reason)
	}
	return fmt.Sprintf("%s: %v (%s)", e.Path, e.Reason, e.Detail)
}

// Unwrap returns the reason, for errors.Is.
func (e *Error) Unwrap() error { return e.Reason }

// Options tune Open and Read.
type Options struct {
	// MaxBytes is the largest file accepted; 0 means DefaultMaxBytes.
	MaxBytes int64
	// NoFollow refuses a symbolic link as the last component of the name.
	NoFollow bool
	// Root, when not nil, confines the name to the root's folders and
	// files (after resolving every link).
	Root *Root
}

// DefaultMaxBytes is the limit when Options.MaxBytes is 0: 16 MiB, the
// limit of a configuration file (DESIGN §7).
const DefaultMaxBytes = 16 << 20

func (o Options) max() int64 {
	if o.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return o.MaxBytes
}

// Open opens path for reading after the checks of the package doc and
// returns the file with its information. The caller closes the file.
func Open(ctx context.Context, path string, opts Options) (*os.File, fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	name := path
	if opts.Root != nil {
		resolved, err := opts.Root.Resolve(path)
		if err != nil {
			return nil, nil, err
		}
		name = resolved
	}
	flags := os.O_RDONLY | openFlags
	if opts.NoFollow {
		flags |= noFollowFlag
	}
	f, err := os.OpenFile(name, flags, 0)
	if err != nil {
		if opts.NoFollow && isSymlinkErr(name, err) {
			return nil, nil, &Error{Path: path, Reason: ErrSymlink}
		}
		return nil, nil, err
	}
	fi, err := Check(f, path, opts)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := clearNonblock(f); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// Check makes the fstat checks of Open on a file opened elsewhere (the
// state's journal, which its lock holder opens read-write to flock it):
// a regular file of at most opts.MaxBytes. path names it in errors.
func Check(f *os.File, path string, opts Options) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{Path: path, Reason: ErrNotRegular, Detail: DescribeMode(fi.Mode())}
	}
	if max := opts.max(); fi.Size() > max {
		return nil, &Error{Path: path, Reason: ErrTooLarge, Detail: sizeDetail(fi.Size(), max)}
	}
	return fi, nil
}

// Read returns the content of path after the checks of the package doc.
func Read(ctx context.Context, path string, opts Options) ([]byte, error) {
	f, fi, err := Open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(ctx, f, path, fi.Size(), opts.max())
}

// chunk is how much ReadAll reads between two looks at the context.
const chunk = 1 << 20

// ReadAll reads r to its end, at most max bytes: one byte more is an
// ErrTooLarge *Error naming path. sizeHint (the size fstat gave, or 0)
// sizes the buffer. It stops with the context's error when ctx is done.
func ReadAll(ctx context.Context, r io.Reader, path string, sizeHint, max int64) ([]byte, error) {
	buf := make([]byte, 0, min(max, sizeHint)+1)
	lr := io.LimitReader(r, max+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):min(cap(buf), len(buf)+chunk)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)) > max {
		return nil, &Error{Path: path, Reason: ErrTooLarge, Detail: fmt.Sprintf("larger than the limit of %s", SizeText(max))}
	}
	return buf, nil
}

// DescribeMode names the kind of a file that is not regular.
func DescribeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "mode " + m.String()
}

func sizeDetail(size, max int64) string {
	return fmt.Sprintf("%d bytes; the limit is %s", size, SizeText(max))
}

// SizeText writes a size limit for messages: its bytes, and in GiB, MiB
// or KiB when it is a whole number of them ("16777216 bytes (16 MiB)").
func SizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d bytes (%d GiB)", n, n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d bytes (%d MiB)", n, n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d bytes (%d KiB)", n, n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
