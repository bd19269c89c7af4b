//go:build unix

package cli

import (
	"errors"
	"os"
	"syscall"
)

// lock takes the data dir's advisory lock, boxoffice.lock, without
// waiting: shared for a process that keeps the database open (serve,
// the counter: several may run on one file), exclusive for one that
// replaces the database (restore). The lock goes with the process: it
// is released by release, or by the kernel when the process ends however
// it ends, so a crash never leaves it stuck. errLocked when another
// process holds it the other way.
func (d dataDir) lock(exclusive bool) (release func(), err error) {
	if err := d.ensure(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(d.file(lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
