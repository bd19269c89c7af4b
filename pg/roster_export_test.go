package pg

import "golang.org/x/crypto/bcrypt"

// The tests hash PINs at bcrypt's lowest cost, as db's tests do
// (db.Options.PINCost): the race detector makes each hash slow, and
// what they test is the counting, not the cost.
func init() { pinCost = bcrypt.MinCost }
