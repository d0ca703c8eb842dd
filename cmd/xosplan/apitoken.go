package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"path/filepath"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// apiTokenSuffix names the token a sync makes beside a file state.
const apiTokenSuffix = ".api-token"

// apiTokenPath is where a sync without --api-token-file keeps the token it
// makes, and where status looks for it: beside a file state
// (STATE.api-token, after the links the state's name follows); for a
// PostgreSQL state, whose members may share a machine, in the user's
// folder for such files ($XDG_RUNTIME_DIR/xosplan, else
// $XDG_CACHE_HOME/xosplan, else ~/.cache/xosplan), named after the API's
// port: sync-api-PORT.token.
func apiTokenPath(c *cli, sf *stateFlags, port string) (string, error) {
	path, _ := sf.where(c)
	if !pgbackend.IsConnString(path) {
		f, err := state.OpenFile(path, state.FileOptions{})
		if err != nil {
			return "", err
		}
		return f.Path() + apiTokenSuffix, nil
	}
	dir := c.getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = cacheHome(c)
	}
	if dir == "" || !filepath.IsAbs(dir) {
		return "", errors.New("no folder for the API token (XDG_RUNTIME_DIR, XDG_CACHE_HOME and HOME are unset): give --api-token-file")
	}
	return filepath.Join(dir, "xosplan", "sync-api-"+port+".token"), nil
}

// cacheHome is the user's folder for cached files: $XDG_CACHE_HOME, else
// ~/.cache, else "" (the caller checks the folder is absolute).
func cacheHome(c *cli) string {
	if dir := c.getenv("XDG_CACHE_HOME"); dir != "" {
		return dir
	}
	if home := c.getenv("HOME"); home != "" {
		return filepath.Join(home, ".cache")
	}
	return ""
}

// statusToken is the token status sends: --api-token-file's, else the one
// a sync made for the state and address (none when it made none).
func statusToken(ctx context.Context, c *cli, f statusFlags, addr string) (string, error) {
	if f.tokenFile != "" {
		return readToken(ctx, f.tokenFile)
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil
	}
	path, err := apiTokenPath(c, &f.state, port)
	if err != nil {
		return "", nil
	}
	data, err := userfile.Read(ctx, path, userfile.Options{MaxBytes: maxTokenBytes})
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("the API token sync made: %w", workflow.PlainError(err))
	}
	return strings.TrimSpace(string(data)), nil
}
