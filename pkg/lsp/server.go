package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/tosca"
)

// DefaultDebounce is how long the server waits after a change for more
// changes before it compiles.
const DefaultDebounce = 150 * time.Millisecond

// ErrExitWithoutShutdown is what Serve returns when the client sent exit
// without shutdown first: the protocol's signal to exit with status 1.
var ErrExitWithoutShutdown = errors.New("exit before shutdown")

// Options tune Serve.
type Options struct {
	// Root confines the files read from disk; nil: for each document,
	// config.FindRoot of its folder.
	Root *config.Root
	// ImportMap maps URLs that TOSCA templates import to local files.
	ImportMap map[string]string
	// ProfilePath lists the folders searched for the TOSCA 2.0 profiles
	// templates import by name (tosca.Options.ProfilePath), indexed when
	// Serve starts.
	ProfilePath []string
	// Debounce is the pause after a change before compiling; 0:
	// DefaultDebounce.
	Debounce time.Duration
	// Log receives the server's log lines (also sent to the client as
	// window/logMessage); nil discards them.
	Log io.Writer
	// Version names the server in its initialize answer.
	Version string
}

// Serve speaks the Language Server Protocol over stream until the client
// sends exit, the stream ends, or ctx is done, and returns once every
// goroutine it started has finished. A handler that panics answers the
// request with an error and logs the panic; the server carries on.
func Serve(ctx context.Context, stream io.ReadWriteCloser, opts Options) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{opts: opts, ctx: ctx, docs: map[string]*document{}, results: map[string]config.Document{}, good: map[string]config.Document{},
		pending: map[string]bool{}, kick: make(chan struct{}, 1), parses: tosca.NewParseCache()}
	s.proto = s.handlers()
	if len(opts.ProfilePath) > 0 {
		// A folder that cannot be read leaves its profiles unknown, as
		// the templates importing them will say; the server serves.
		x, err := tosca.NewProfileIndex(ctx, opts.ProfilePath)
		if err != nil {
			s.logf("indexing the profile search path: %v", err)
		}
		s.profiles = x
	}
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(stream, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(s.handle), jsonrpc2.SetLogger(logger{s}))
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	var workers sync.WaitGroup
	workers.Go(s.compileLoop)
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	cancel()
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	workers.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited && !s.shutdown {
		return ErrExitWithoutShutdown
	}
	return nil
}

// server is the state of one Serve call.
type server struct {
	opts  Options
	ctx   context.Context
	proto *protocol.Handler
	// profiles indexes Options.ProfilePath; nil when it is empty.
	profiles *tosca.ProfileIndex
	// parses keeps the parse of every file the compiles read, so that a
	// change parses again only what it changed.
	parses *tosca.ParseCache

	mu   sync.Mutex
	conn *jsonrpc2.Conn
	// docs are the open documents by path; results the last compile of
	// each, kept after it is closed only while open; good the last
	// compile of each whose text parsed (lastGood).
	docs    map[string]*document
	results map[string]config.Document
	good    map[string]config.Document
	// pending lists the documents to compile once the debounce timer
	// fires and kicks the compile loop.
	pending map[string]bool
	timer   *time.Timer
	kick    chan struct{}
	// running cancels the compiles under way, whose results a change
	// makes stale; nil when none runs.
	running context.CancelFunc

	shutdown, exited bool
	// watch is set when the client can watch files for the server.
	watch bool
	// folders are the workspace folders the client announced (absolute);
	// announced is set once it announced any, even none (workspace.go).
	folders   []string
	announced bool
}

// document is one open text document.
type document struct {
	uri     protocol.DocumentUri
	path    string
	version protocol.Integer
	text    *text
}

type logger struct{ s *server }

func (l logger) Printf(format string, args ...any) { l.s.logf(format, args...) }

// logf writes a log line to Options.Log and, once connected, to the
// client as window/logMessage.
func (s *server) logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if s.opts.Log != nil {
		fmt.Fprintln(s.opts.Log, "xosplan lsp: "+msg)
	}
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn != nil {
		_ = conn.Notify(s.ctx, protocol.ServerWindowLogMessage, protocol.LogMessageParams{Type: protocol.MessageTypeLog, Message: msg})
	}
}

// handle answers one request or notification, turning a panic of a
// handler into an error answer and a log line.
func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("internal error in %s: %v (this is a bug in xosplan; please report it)", req.Method, r)
			result, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("internal error in %s; see the server log", req.Method)}
		}
	}()
	gctx := glsp.Context{Method: req.Method, Notify: func(method string, params any) { _ = conn.Notify(ctx, method, params) }}
	if req.Params != nil {
		gctx.Params = *req.Params
	}
	if req.Method == protocol.MethodExit {
		s.mu.Lock()
		s.exited = true
		s.mu.Unlock()
		return nil, conn.Close()
	}
	r, validMethod, validParams, herr := s.proto.Handle(&gctx)
	switch {
	case !validMethod:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
	case !validParams:
		msg := "invalid params"
		if herr != nil {
			msg = herr.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case herr != nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: herr.Error()}
	}
	return r, nil
}

func (s *server) handlers() *protocol.Handler {
	h := &protocol.Handler{
		Initialize:  s.initialize,
		Initialized: s.initialized,
		Shutdown: func(*glsp.Context) error {
			s.mu.Lock()
			s.shutdown = true
			s.mu.Unlock()
			return nil
		},
		SetTrace:                       func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		CancelRequest:                  func(*glsp.Context, *protocol.CancelParams) error { return nil },
		TextDocumentDidOpen:            s.didOpen,
		TextDocumentDidChange:          s.didChange,
		TextDocumentDidClose:           s.didClose,
		TextDocumentDidSave:            func(*glsp.Context, *protocol.DidSaveTextDocumentParams) error { return nil },
		TextDocumentHover:              s.hover,
		TextDocumentDefinition:         s.definition,
		TextDocumentReferences:         s.references,
		TextDocumentCompletion:         s.completion,
		TextDocumentDocumentSymbol:     s.documentSymbol,
		TextDocumentSemanticTokensFull: s.semanticTokens,
		TextDocumentCodeAction:         s.codeAction,
		WorkspaceDidChangeWatchedFiles: func(_ *glsp.Context, p *protocol.DidChangeWatchedFilesParams) error {
			for _, ch := range p.Changes {
				if path, ok := pathOf(ch.URI); ok {
					s.schedule(path)
				}
			}
			return nil
		},
		WorkspaceDidChangeConfiguration:    func(*glsp.Context, *protocol.DidChangeConfigurationParams) error { return nil },
		WorkspaceDidChangeWorkspaceFolders: s.didChangeFolders,
	}
	return h
}

func (s *server) initialize(_ *glsp.Context, p *protocol.InitializeParams) (any, error) {
	if ws := p.Capabilities.Workspace; ws != nil && ws.DidChangeWatchedFiles != nil && ws.DidChangeWatchedFiles.DynamicRegistration != nil {
		s.mu.Lock()
		s.watch = *ws.DidChangeWatchedFiles.DynamicRegistration
		s.mu.Unlock()
	}
	s.setFolders(p)
	caps := s.proto.CreateServerCapabilities()
	supported := true
	caps.Workspace = &protocol.ServerCapabilitiesWorkspace{WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
		Supported: &supported, ChangeNotifications: &protocol.BoolOrString{Value: true}}}
	caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{":", " ", "[", "{", "(", "#", ",", ".", "$"}}
	caps.CodeActionProvider = &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}}
	caps.SemanticTokensProvider = &protocol.SemanticTokensOptions{Legend: protocol.SemanticTokensLegend{TokenTypes: tokenTypes, TokenModifiers: []string{"declaration"}}, Full: true}
	version := s.opts.Version
	return protocol.InitializeResult{Capabilities: caps, ServerInfo: &protocol.InitializeResultServerInfo{Name: "xosplan", Version: &version}}, nil
}

// initialized asks a client that can watch files to report changes to
// YAML files on disk, so that a template is checked again when a file it
// imports changes outside the editor (a checkout, another tool). The
// request is not waited for: the handler runs on the connection's read
// loop, which must go on to read the answer.
func (s *server) initialized(_ *glsp.Context, _ *protocol.InitializedParams) error {
	s.mu.Lock()
	watch, conn := s.watch, s.conn
	s.mu.Unlock()
	if !watch {
		return nil
	}
	_, err := conn.DispatchCall(s.ctx, string(protocol.ServerClientRegisterCapability), protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID: "xosplan-yaml-files", Method: protocol.MethodWorkspaceDidChangeWatchedFiles,
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: []protocol.FileSystemWatcher{{GlobPattern: "**/*.{yaml,yml}"}}},
	}}})
	return err
}

func (s *server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	path, ok := pathOf(p.TextDocument.URI)
	if !ok {
		return nil
	}
	s.mu.Lock()
	s.docs[path] = &document{uri: p.TextDocument.URI, path: path, version: p.TextDocument.Version, text: newText(p.TextDocument.Text)}
	s.mu.Unlock()
	s.schedule(path)
	return nil
}

func (s *server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	path, ok := pathOf(p.TextDocument.URI)
	if !ok {
		return nil
	}
	s.mu.Lock()
	d := s.docs[path]
	if d == nil {
		s.mu.Unlock()
		return fmt.Errorf("%s is not open", p.TextDocument.URI)
	}
	for _, ch := range p.ContentChanges {
		switch c := ch.(type) {
		case protocol.TextDocumentContentChangeEvent:
			if c.Range != nil {
				d.text = d.text.apply(*c.Range, c.Text)
			} else {
				d.text = newText(c.Text)
			}
		case protocol.TextDocumentContentChangeEventWhole:
			d.text = newText(c.Text)
		}
	}
	d.version = p.TextDocument.Version
	s.mu.Unlock()
	s.schedule(path)
	return nil
}

func (s *server) didClose(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	path, ok := pathOf(p.TextDocument.URI)
	if !ok {
		return nil
	}
	s.mu.Lock()
	delete(s.docs, path)
	delete(s.results, path)
	delete(s.good, path)
	delete(s.pending, path)
	conn := s.conn
	s.mu.Unlock()
	// Its problems leave the editor with it; the documents that import
	// it read it from disk again.
	_ = conn.Notify(s.ctx, protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
	s.schedule(path)
	return nil
}

// schedule marks the document at path, if open, and every open document
// whose last compile read path, for compiling once changes pause, and
// stops the compiles under way: they read text that is no longer current.
func (s *server) schedule(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docs[path] != nil {
		s.pending[path] = true
	}
	for p, res := range s.results {
		if s.docs[p] != nil && slices.Contains(res.Index.Files, path) {
			s.pending[p] = true
		}
	}
	if len(s.pending) == 0 {
		return
	}
	if s.running != nil {
		s.running()
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timer = time.AfterFunc(s.opts.Debounce, func() {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	})
}

// compileLoop compiles the pending documents each time the debounce
// timer kicks it, until the server stops.
func (s *server) compileLoop() {
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.kick:
			s.compilePending()
		}
	}
}
