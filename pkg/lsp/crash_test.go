package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// TestHandlerPanicBecomesErrorResponseAndLogLine proves that a handler
// that panics answers its request with an internal error and writes one
// log line, instead of taking the server down.
func TestHandlerPanicBecomesErrorResponseAndLogLine(t *testing.T) {
	var log strings.Builder
	s := &server{opts: Options{Log: &log}, ctx: context.Background()}
	s.proto = &protocol.Handler{
		TextDocumentHover: func(*glsp.Context, *protocol.HoverParams) (*protocol.Hover, error) {
			panic("a bug of the handler")
		},
	}
	s.proto.SetInitialized(true)
	params := json.RawMessage(`{"textDocument":{"uri":"file:///x.yaml"},"position":{"line":0,"character":0}}`)
	res, err := s.handle(context.Background(), nil, &jsonrpc2.Request{Method: protocol.MethodTextDocumentHover, Params: &params})
	var rpcErr *jsonrpc2.Error
	if res != nil || !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeInternalError {
		t.Fatalf("handle = %v, %v; want an internal error", res, err)
	}
	if !strings.Contains(log.String(), "internal error in textDocument/hover") || strings.Count(log.String(), "\n") != 1 {
		t.Errorf("log = %q; want one line naming the method", log.String())
	}
}

// TestExitWithoutShutdownIsReported proves that Serve tells its caller
// when the client exits without shutdown (the command then exits 1).
func TestExitWithoutShutdownIsReported(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize()
	c.notify(protocol.MethodExit, nil)
	if err := <-c.done; !errors.Is(err, ErrExitWithoutShutdown) {
		t.Errorf("Serve = %v, want ErrExitWithoutShutdown", err)
	}
	c.done <- nil
}
