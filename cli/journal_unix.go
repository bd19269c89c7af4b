//go:build unix

package cli

import (
	"fmt"
	"os"
	"syscall"
)

// isJournal reports whether f is the stream journald handed the service
// (JOURNAL_STREAM is "DEVICE:INODE" of it): a child started with the
// variable but another stderr, like a command run from a shell inside
// a service, is not logging to the journal.
func isJournal(f *os.File, stream string) bool {
	if stream == "" {
		return false
	}
	info, err := f.Stat()
	if err != nil {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && fmt.Sprintf("%d:%d", st.Dev, st.Ino) == stream
}
