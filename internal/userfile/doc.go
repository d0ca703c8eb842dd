// Package userfile opens the files a user or a template names: imports,
// artifacts, inputs files, state files, plan files, provider inventories and
// the outputs files scripts write. Templates arrive in pull requests, so a
// name in one is untrusted: it may point at /proc/self/environ, /dev/zero, a
// FIFO, a symbolic link out of the project, or a 20 GB file.
//
// Every open here
//   - is non-blocking (O_NONBLOCK), so a FIFO or a device cannot hang it;
//   - checks the opened file descriptor, not the name, with fstat: only a
//     regular file is read, and only when it is within the size limit;
//   - reads at most the limit plus one byte, so a file that grows after the
//     check is still refused, and stops when the context is done;
//   - optionally refuses a symbolic link as the last component (NoFollow),
//     for files another process may replace (a script's outputs file);
//   - optionally confines the name to a Root: the name is resolved through
//     every symbolic link first, and the resolved file must lie inside one
//     of the root's folders or be one of the files the root allows
//     explicitly (an --import-map target).
//
// Errors are *Error values wrapping ErrNotRegular, ErrTooLarge,
// ErrOutsideRoot or ErrSymlink (compare with errors.Is), or the operating
// system's error (fs.ErrNotExist, fs.ErrPermission). No error quotes any
// content of the file.
package userfile
