//go:build unix

package cli

import (
	"path/filepath"
	"syscall"
)

// freeBytes is the room this process may still use on the file system
// that holds path, or its nearest parent that exists (a data dir not made
// yet); ok is false where it cannot be told.
func freeBytes(path string) (free uint64, ok bool) {
	for {
		var st syscall.Statfs_t
		err := syscall.Statfs(path, &st)
		if err == nil {
			return uint64(st.Bavail) * uint64(st.Bsize), true
		}
		parent := filepath.Dir(path)
		if err != syscall.ENOENT || parent == path {
			return 0, false
		}
		path = parent
	}
}
