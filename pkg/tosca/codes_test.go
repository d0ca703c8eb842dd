package tosca

import (
	"context"
	"path/filepath"
	"testing"
)

// TestFixturesCoverCodes checks that the error fixtures produce every
// documented code, except those that dedicated tests cover (a canceled
// context, an unreadable root file, RequireInputs, the work budgets).
func TestFixturesCoverCodes(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("testdata", "errors", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range fixtures {
		_, diags := Compile(context.Background(), f, Options{Root: rootAt(t, "testdata")})
		for _, d := range diags {
			seen[d.Code] = true
		}
	}
	elsewhere := map[string]string{
		CodeCanceled:            "TestCanceled",
		CodeRead:                "TestMissingFile",
		CodeMissingInput:        "TestInputs",
		CodeTooComplex:          "the value budget (maxValueSteps)",
		CodeTooDeep:             "TestAdversarial",
		CodeTooLong:             "TestTextLimits",
		CodeImplicitRequirement: "TestRequirementMatching",
		CodeImportNotRegular:    "TestImportOfSpecialFileIsRefusedWithoutBlocking",
		CodeImportTooLarge:      "TestImportTooLargeIsRefusedBeforeReading",
		CodeArtifactNotFound:    "TestSelfContainedPackageNamesOnlyItsFiles",
		CodeImplNotFound:        "TestSelfContainedPackageNamesOnlyItsFiles",
		CodeInternal:            "TestRenderReportsWhatTheGraphRefuses",
		CodeExpansion:           "TestExpansionLimit2",
	}
	for _, code := range allCodes() {
		if !seen[code] && elsewhere[code] == "" {
			t.Errorf("no fixture in testdata/errors produces %s", code)
		}
	}
}

// allCodes lists the code constants.
func allCodes() []string {
	return []string{
		CodeCanceled, CodeRead, CodeNoDriver, CodeWrongKind, CodeVersion, CodeMetadata, CodeUnknownField,
		CodeMissingField, CodeDuplicateKey, CodeImportNotFound, CodeNetworkImport,
		CodeUnknownRepository, CodeTypeRedefined, CodeUnknownType, CodeUnknownParent,
		CodeDerivationCycle, CodeNativeExtended, CodeIncompatibleRefinement, CodeStatus,
		CodeOccurrences, CodeValue, CodeConstraint, CodeUnknownProperty, CodeMissingProperty,
		CodeMissingInput, CodeUnknownInput, CodeCopy, CodeDirective, CodeUnknownCapability,
		CodeUnknownRequirement, CodeUnknownInterface, CodeUnknownOperation, CodeUnknownTemplate,
		CodeGroupMembers, CodePolicyTargets, CodeUnsatisfied, CodeNodeMismatch,
		CodeCapabilityMismatch, CodeValidSource, CodeFunction, CodeDependencyCycle,
		CodeSubstitution, CodeWorkflow, CodeLegacyType, CodeImportFallback, CodeTooComplex,
		CodeTooDeep, CodeValidTarget, CodeImplicitRequirement, CodeBadName, CodeTooLong,
		CodeImportOutsideRoot, CodeImportNotRegular, CodeImportTooLarge, CodeArtifactOutsideRoot,
		CodeImplOutsideRoot, CodePolicyImplementation, CodeNewerKeyname, CodeNonNormativeType, CodeArtifactNotFound, CodeImplNotFound,
		CodeProfile, CodeLegacyKeyname, CodeHealthCheck, CodeHealthInterval, CodeImportFilter, CodeInternal, CodeExpansion, CodePlacement,
	}
}
