package diag

import "strings"

// ArchiveSeparator joins the file name of an archive (a CSAR) and the path
// of one of its members into the name diagnostics give the member, as
// Java's jar: URLs do: PKG.csar!/Definitions/main.yaml. A Range.File of
// that form names a member; its line and column are the member's.
const ArchiveSeparator = "!/"

// MemberName returns the name of the member at path (slash-separated,
// relative to the archive's top) of the archive file archive.
func MemberName(archive, path string) string { return archive + ArchiveSeparator + path }

// IsArchiveName reports whether a file name has the extension of a CSAR
// archive: .csar or .zip, in any case. Only such files are read as
// archives, so a folder that happens to end in "!" never is one.
func IsArchiveName(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasSuffix(lower, ".csar") || strings.HasSuffix(lower, ".zip")
}

// SplitMember splits the name of an archive member (MemberName) into the
// archive's file name and the member's path. ok is false for any other
// name: one without the separator, or whose part before it does not end
// in .csar or .zip. A backslash after the "!" is taken as the separator
// too, as filepath.Join writes it on Windows.
func SplitMember(name string) (archive, path string, ok bool) {
	for i := 0; i+1 < len(name); i++ {
		if name[i] != '!' || (name[i+1] != '/' && name[i+1] != '\\') {
			continue
		}
		if IsArchiveName(name[:i]) {
			return name[:i], strings.ReplaceAll(name[i+2:], "\\", "/"), true
		}
	}
	return "", "", false
}
