package sync

import (
	"context"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// WatchOptions tune Watch.
type WatchOptions struct {
	// Debounce is how long the files must stay quiet after a change
	// before it is reported: an editor's save or a checkout is one
	// change. Default 500 ms.
	Debounce time.Duration
	// Poll is how often the files are also compared by size and time, for
	// file systems where notifications do not arrive (network mounts,
	// some containers) or run out; 0: DefaultPoll, negative: never.
	Poll time.Duration
	// Ignore reports files whose changes are not the configuration's (the
	// state file and its companions).
	Ignore func(path string) bool
	// Clock is RealClock() when nil.
	Clock Clock
}

// DefaultPoll is WatchOptions.Poll's default.
const DefaultPoll = 30 * time.Second

// Watch reports changes of the files under paths (files, or folders with
// everything under them but hidden names) to changed, debounced, until
// ctx ends. Notifications come from the operating system (fsnotify); a
// poll of sizes and modification times backs them up. It returns when ctx
// ends, or at once with the error of a watch that could not start (the
// poll then still runs until ctx ends).
func Watch(ctx context.Context, paths []string, opts WatchOptions, changed func(reason string)) error {
	opts = opts.withDefaults()
	w := &watcher{paths: paths, opts: opts}
	fw, events, errs := w.notify()
	if fw != nil {
		defer fw.Close()
	}
	last := w.fingerprint()
	var pollC <-chan time.Time
	var poll Timer
	resetPoll := func() {
		if opts.Poll > 0 {
			poll = opts.Clock.NewTimer(opts.Poll)
			pollC = poll.C()
		}
	}
	resetPoll()
	var quiet Timer
	var quietC <-chan time.Time
	pending := ""
	for {
		select {
		case <-ctx.Done():
			if poll != nil {
				poll.Stop()
			}
			if quiet != nil {
				quiet.Stop()
			}
			return nil
		case ev := <-events:
			if w.skip(ev.Name) {
				continue
			}
			if ev.Op.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					_ = fw.Add(ev.Name)
				}
			}
			pending = "changed: " + filepath.Base(ev.Name)
			if quiet != nil {
				quiet.Stop()
			}
			quiet = opts.Clock.NewTimer(opts.Debounce)
			quietC = quiet.C()
		case <-errs:
			// An overflow loses events: the poll compares everything.
			pending = "file notifications overflowed"
			if quiet == nil {
				quiet = opts.Clock.NewTimer(opts.Debounce)
				quietC = quiet.C()
			}
		case <-quietC:
			quiet, quietC = nil, nil
			last = w.fingerprint()
			changed(pending)
		case <-pollC:
			if fp := w.fingerprint(); fp != last {
				last = fp
				changed("changed (poll)")
			}
			resetPoll()
		}
	}
}

// withDefaults fills in the defaults of the options not given.
func (opts WatchOptions) withDefaults() WatchOptions {
	if opts.Debounce <= 0 {
		opts.Debounce = 500 * time.Millisecond
	}
	if opts.Poll == 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Clock == nil {
		opts.Clock = RealClock()
	}
	if opts.Ignore == nil {
		opts.Ignore = func(string) bool { return false }
	}
	return opts
}

// notify starts the notifications of the folders to watch and returns
// their watcher, which the caller closes, and channels; all nil when the
// operating system's watch could not start.
func (w *watcher) notify() (*fsnotify.Watcher, <-chan fsnotify.Event, <-chan error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, nil
	}
	for _, d := range w.dirs() {
		// A folder that cannot be watched is still polled.
		_ = fw.Add(d)
	}
	return fw, fw.Events, fw.Errors
}

type watcher struct {
	paths []string
	opts  WatchOptions
}

// skip reports names whose changes are not the configuration's: hidden
// files and folders (an editor's swap files, .git, .xosplan), what
// Ignore says, and, in the folder of a file path, the other files.
func (w *watcher) skip(path string) bool {
	if strings.HasPrefix(filepath.Base(path), ".") || strings.HasSuffix(path, "~") || w.opts.Ignore(path) {
		return true
	}
	clean := filepath.Clean(path)
	for _, p := range w.paths {
		p = filepath.Clean(p)
		if clean == p {
			return false
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			if rel, err := filepath.Rel(p, clean); err == nil && filepath.IsLocal(rel) {
				return false
			}
		}
	}
	return true
}

// walk calls fn for every file and folder under the paths that is not
// skipped.
func (w *watcher) walk(fn func(path string, d fs.DirEntry)) {
	for _, p := range w.paths {
		_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if path != p && w.skip(path) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			fn(path, d)
			return nil
		})
	}
}

// dirs lists the folders to watch: each folder under the paths, and the
// folder of each file path.
func (w *watcher) dirs() []string {
	var out []string
	for _, p := range w.paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			out = append(out, filepath.Dir(p))
		}
	}
	w.walk(func(path string, d fs.DirEntry) {
		if d.IsDir() {
			out = append(out, path)
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// fingerprint digests the names, sizes and modification times of the
// files under the paths.
func (w *watcher) fingerprint() uint64 {
	h := fnv.New64a()
	w.walk(func(path string, d fs.DirEntry) {
		if d.IsDir() {
			return
		}
		fi, err := d.Info()
		if err != nil {
			return
		}
		h.Write([]byte(path))
		var b [16]byte
		for i, v := range []int64{fi.Size(), fi.ModTime().UnixNano()} {
			for k := range 8 {
				b[i*8+k] = byte(v >> (8 * k))
			}
		}
		h.Write(b[:])
	})
	return h.Sum64()
}
