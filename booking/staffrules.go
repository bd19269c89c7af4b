package booking

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Staff and door rules both backends obey, moved here from package db so
// that the SQLite and PostgreSQL stores cannot drift apart.

// Sign-in lockout: a name may have MaxPINFailures PIN attempts; the
// attempt that reaches the bound locks the name for PINLockout, counted
// in the database so a restart does not reset it.
const (
	MaxPINFailures = 5
	PINLockout     = 5 * time.Minute
)

// ValidPIN refuses a PIN too short to guess slowly or too long to type.
func ValidPIN(pin string) error {
	if len(pin) < 4 || len(pin) > 32 {
		return Errorf(EInvalid, "A PIN has 4 to 32 characters.")
	}
	return nil
}

// ValidStaffName returns a staff or terminal name cleaned for storing, or
// refuses one that cleaning would change beyond trimming its spaces
// (control characters, invalid UTF-8).
func ValidStaffName(name string) (string, error) {
	clean := CleanLine(name, 40)
	if clean == "" || clean != strings.TrimSpace(name) || !utf8.ValidString(name) {
		return "", Errorf(EInvalid, "A name has 1 to 40 printable characters.")
	}
	return clean, nil
}

// NotYourself refuses a manager taking their own powers away at a
// screen: the last manager disabling or demoting themselves would leave
// nobody who may undo it there. Another manager, or the command line run
// by whoever owns the data directory (a System actor, no StaffID), may.
func NotYourself(actor Actor, name, what string) error {
	if actor.StaffID != 0 && strings.EqualFold(CleanLine(name, 40), actor.Name) {
		return Errorf(EInvalid, "You can't %s yourself: another manager can, or `boxoffice staff` at the server.", what)
	}
	return nil
}

// DoorWindow refuses a ticket for seat outside its show's door window at
// now: before the doors open it says when they do (the same day) or
// which day the show is; once the show ended it says when if that was
// today (a late show that began yesterday evening and ended after
// midnight too), or names the show (a ticket of another day).
func DoorWindow(now time.Time, show Show, seat string) error {
	starts := show.Starts.In(now.Location())
	opens := starts.Add(-DoorsOpen)
	switch {
	case now.Before(opens) && sameDay(now, starts):
		return Errorf(EInvalid, "Doors open at %s for the %s show (%s, seat %s).",
			opens.Format("15:04"), starts.Format("15:04"), Clean(show.Film.Title), Clean(seat))
	case now.Before(opens), !sameDay(now, show.Ends()) && !now.Before(show.Ends()):
		return Errorf(EInvalid, "Ticket %s is for %s at %s.", Clean(seat), Clean(show.Film.Title), starts.Format("Mon 02 Jan 15:04"))
	case !now.Before(show.Ends()):
		return Errorf(EInvalid, "This show ended at %s.", show.Ends().In(now.Location()).Format("15:04"))
	}
	return nil
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}
