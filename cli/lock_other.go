//go:build !unix

package cli

// lock is a no-op where flock(2) is missing: restore cannot tell a
// running server there, and the README says to stop it first.
func (d dataDir) lock(exclusive bool) (release func(), err error) {
	return func() {}, d.ensure()
}
