// Package views holds the view of every xosplan command: what the command
// shows, and in which form (human text, JSON, or the one form it has). A
// command parses its flags into a plain struct, does its work, and talks
// only to its view, which renders through diagview, planview and
// applyview (the model is OpenTofu's internal/command/views). A view
// decides nothing: the command decides what happened and which exit status
// follows.
//
// Every view writes to the Streams it was made with; human text goes to
// stdout and diagnostics to stderr unless the view says otherwise.
package views
