// Package layering holds the test that enforces xosplan's import layering
// (DESIGN.md §1): which of our packages may import which, which
// third-party module may be imported where, that only tests import the test
// helpers (internal/testutil) and the test fakes that live beside what they
// fake (pkg/placement/placementtest, pkg/planner/planfixture, …), that
// internal/ holds production libraries only, that nothing imports cmd/, that
// drivers never import each other and only driver/all (the registration
// point) imports them, that no third-party type leaks into an exported
// signature, that pkg/* neither prints nor exits, and that cmd/ calls no
// step of an operation that pkg/workflow holds. It has no code of its own.
package layering
