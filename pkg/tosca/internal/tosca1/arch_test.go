package tosca1

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestArchTrait(t *testing.T) {
	cases := []struct {
		arch, trait string
	}{
		{"x86_64", "HW_ARCH_X86_64"}, {"amd64", "HW_ARCH_X86_64"}, {"X86-64", "HW_ARCH_X86_64"}, {" x64 ", "HW_ARCH_X86_64"},
		{"aarch64", "HW_ARCH_AARCH64"}, {"arm64", "HW_ARCH_AARCH64"},
		{"i386", "HW_ARCH_I686"}, {"i686", "HW_ARCH_I686"}, {"x86", "HW_ARCH_I686"}, {"x86_32", "HW_ARCH_I686"},
		{"armv7l", "HW_ARCH_ARMV7"}, {"armhf", "HW_ARCH_ARMV7"}, {"armv6l", "HW_ARCH_ARMV6"},
		{"ppc64le", "HW_ARCH_PPC64LE"}, {"ppc64el", "HW_ARCH_PPC64LE"}, {"ppc64", "HW_ARCH_PPC64"},
		{"s390x", "HW_ARCH_S390X"}, {"mips64le", "HW_ARCH_MIPS64EL"}, {"mipsle", "HW_ARCH_MIPSEL"}, {"MIPS", "HW_ARCH_MIPS"},
		{"sparc64", "HW_ARCH_SPARC64"},
		{"riscv64", ""}, {"", ""}, {"x86_64; rm", ""},
	}
	for _, c := range cases {
		got, ok := archTrait(c.arch)
		if got != c.trait || ok != (c.trait != "") {
			t.Errorf("archTrait(%q) = %q, %v; want %q", c.arch, got, ok, c.trait)
		}
	}
}

// Every trait archTrait yields is an os-traits standard trait, and every
// HW_ARCH_* trait of os-traits is reachable by its own lower-case name.
func TestArchTraitsAreStandard(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "..", "shared", "corpus", "placement", "os-traits.txt"))
	if err != nil {
		t.Skipf("os-traits list not available: %v", err)
	}
	standard := map[string]bool{}
	for _, line := range strings.Fields(string(data)) {
		if strings.HasPrefix(line, "HW_ARCH_") {
			standard[line] = true
		}
	}
	if len(standard) == 0 {
		t.Fatal("no HW_ARCH_* trait in os-traits.txt")
	}
	for trait := range standard {
		if got, ok := archTrait(strings.ToLower(strings.TrimPrefix(trait, "HW_ARCH_"))); !ok || got != trait {
			t.Errorf("%s is not reachable by its name: got %q", trait, got)
		}
	}
	for _, alias := range []string{"amd64", "x86-64", "x64", "arm64", "armv8", "i386", "x86", "armv7l", "armhf", "ppc64el", "mipsle", "mips64le", "powerpc"} {
		if got, _ := archTrait(alias); !standard[got] {
			t.Errorf("alias %s gives %q, not a standard trait", alias, got)
		}
	}
}
