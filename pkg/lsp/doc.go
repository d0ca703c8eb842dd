// Package lsp is xosplan's language server: it speaks the Language Server
// Protocol over any stream (`xosplan lsp` gives it standard input and
// output) for TOSCA 1.0–1.3 and 2.0 templates, XOS recipes and Tonomi
// manifests. The messages and capabilities it serves are those of LSP
// 3.16, which 3.17 clients speak unchanged; it serves none that 3.17
// added (pull diagnostics, inlay hints, type hierarchy, notebooks).
// It holds no compiler of its own: every answer comes from
// config.CompileDocument, the compile `validate` runs, with the editor's
// unsaved buffers read instead of the files on disk, and from the symbol
// index (package symbols) that compile returns.
//
// # What it answers
//
//   - Diagnostics, published for a document when it is opened and after
//     every change once changes pause (Options.Debounce), for the changed
//     document and every open document whose last compile read it (a
//     template importing a type file being edited). Each carries the
//     compiler's code, severity, range and related places (each hop of a
//     dependency cycle). A problem in an imported file that is not open is
//     shown at the import that reads it.
//   - Hover: a type's derivation chain and description; a property's,
//     attribute's, requirement's or capability's definition; a template's
//     type; what a function call resolves to at compile time (a sensitive
//     value is never shown).
//   - Go to definition and find references of types, templates,
//     requirement targets, imports (the file), inputs, manifest
//     components and pins, and bind() targets; references are gathered
//     from the compiles of every open document.
//   - Completion: keynames valid at the cursor for the file's TOSCA
//     version (2.0's service_template, profile, dsl_definitions,
//     functions… in a tosca_2_0 file), type names after type: and
//     derived_from: (2.0: as the file may write them, ns:name for a
//     namespaced import), the property, attribute, requirement and
//     capability names of a template's type, template names in
//     requirements and functions, input names in get_input, function
//     names (2.0: $concat… and the file's custom functions); manifest
//     keys, component types, pin kinds and types, bind() targets.
//   - Document symbols: types with their members, templates, inputs,
//     outputs, groups, policies, components and pins.
//   - Semantic tokens: each name the compiler resolved, by what it names
//     (type, template, input, property, function, …), declarations
//     marked.
//
// TOSCA 2.0 profiles imported by name are found on Options.ProfilePath
// (indexed when Serve starts) and in xosplan's embedded profiles.
//
// The workspace folders the client announces (workspaceFolders, rootUri
// or rootPath at initialize, and workspace/didChangeWorkspaceFolders)
// confine what a document's compile reads (workspace.go): a document
// inside a folder reads at most that folder (the repository holding it
// when that lies inside); a document outside every folder is compiled
// from its own text alone. Options.Root overrides both.
//
// A client that can watch files is asked to report changed YAML files, so
// that a template is checked again when a file it imports changes on disk
// outside the editor.
//
// # Decisions
//
// Documents are synchronised incrementally; positions are UTF-16 code
// units as the protocol's default encoding says. A request answers from
// the last compile of its document, which may be one debounce period
// behind the text; completion and hover answer from the last compile
// whose text parsed while the buffer does not (an unclosed { being
// typed), its positions those of that text. Only file: URIs are served
// (an untitled buffer has no folder to resolve imports from). The
// cursor's place for completion is read from the indentation of the lines
// above it, since text being typed rarely parses. A handler or compile that panics (a bug) answers with an
// error or publishes nothing, and logs one line to Options.Log and
// window/logMessage; the server carries on. The compiles of one server
// share a tosca.ParseCache: a file that did not change is not parsed
// again, and a change inside one entry of a block mapping has that entry
// parsed again, not the file (a keystroke in a 10,000-node template). Serve starts one compile
// goroutine and waits for it before it returns.
package lsp
