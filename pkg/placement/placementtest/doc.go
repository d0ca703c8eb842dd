// Package placementtest serves a placement.Model through OpenStack
// Placement's REST API, for tests only: the Client's test and the CLI's
// --placement-url test talk to it on 127.0.0.1, and pkg/placement's corpus
// replays upstream API sequences through it. It is not part of xosplan: no
// command serves Placement's API. Like net/http/httptest it lives beside
// the package it fakes, and only _test.go files may import it
// (internal/layering).
package placementtest
