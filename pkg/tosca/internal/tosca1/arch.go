package tosca1

// The os capability's architecture as a placement trait (part of phase 9,
// render).
//
// Warnings detected here:
//   - an architecture with no standard HW_ARCH_* trait (tosca.value); the
//     request then asks for no architecture rather than for a trait no
//     provider can have

import "strings"

// archTrait returns the os-traits HW_ARCH_* trait of an architecture
// name: the os-traits (libvirt) names themselves in any case, TOSCA's
// x86_32 and x86_64, and the aliases of Go (GOARCH), Debian and uname -m.
// ok is false for a name os-traits does not know.
func archTrait(arch string) (trait string, ok bool) {
	a := strings.ToLower(strings.TrimSpace(arch))
	switch a {
	case "x86_64", "x86-64", "amd64", "x64":
		a = "x86_64"
	case "i686", "i386", "i486", "i586", "x86", "x86_32", "ia32", "386":
		a = "i686"
	case "aarch64", "arm64", "armv8", "armv8l":
		a = "aarch64"
	case "armv7", "armv7l", "armhf", "arm":
		a = "armv7"
	case "armv6", "armv6l":
		a = "armv6"
	case "ppc64le", "ppc64el":
		a = "ppc64le"
	case "ppc", "powerpc":
		a = "ppc"
	case "mipsle":
		a = "mipsel"
	case "mips64le":
		a = "mips64el"
	case "armv7b", "ppc64", "ppcle", "ppcemb", "s390", "s390x", "mips", "mipsel", "mips64", "mips64el",
		"alpha", "cris", "ia64", "lm32", "m68k", "microblaze", "microblazeel", "openrisc", "parisc",
		"parisc64", "sh4", "sh4eb", "sparc", "sparc64", "unicore32", "xtensa", "xtensaeb":
	default:
		return "", false
	}
	return "HW_ARCH_" + strings.ToUpper(a), true
}
