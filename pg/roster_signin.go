package pg

import (
	"golang.org/x/crypto/bcrypt"
)

// pinCost is the bcrypt cost of every PIN hash this package makes (db's
// Options.PINCost default); the tests lower it, as db's do, because the
// race detector makes each hash slow.
var pinCost = bcrypt.DefaultCost

// PINChecks is how many PINs this store compared with bcrypt, as db's
// Stats().PINChecks: what the lockout bounds.
func (s *Store) PINChecks() int64 { return s.pinChecks.Load() }
