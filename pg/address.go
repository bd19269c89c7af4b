package pg

import (
	"errors"
	neturl "net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"boxoffice/booking"
)

// openError is a failure to open the database at url, in words that
// never hold its password: an address the driver cannot read
// (addressError), or one it cannot reach.
func openError(url string, err error) error {
	var pe *pgconn.ParseConfigError
	var ue *neturl.Error
	if errors.As(err, &pe) || errors.As(err, &ue) {
		return addressError(url, err)
	}
	return booking.Errorf(booking.EInternal, "Cannot reach the database: %s", booking.CleanLine(booking.RedactSecretsOf(err.Error(), url), 200))
}

// addressError is the driver's refusal of the address url. pgx quotes
// the address in its message (hiding the password on a best-effort basis
// only) and the error it wraps may quote it whole (net/url's does), so
// what is kept is pgx's reason and the inner error's own words; the
// address is shown through booking.RedactDSN, and the rest passed
// through booking.RedactSecretsOf.
func addressError(url string, err error) error {
	reason := "it cannot be read"
	var pe *pgconn.ParseConfigError
	var ue *neturl.Error
	inner := err
	if errors.As(err, &pe) {
		text := pe.Error()
		inner = errors.Unwrap(pe)
		if inner != nil {
			text = strings.TrimSuffix(text, " ("+inner.Error()+")")
		}
		if i := strings.LastIndex(text, "`: "); i >= 0 {
			reason = text[i+len("`: "):]
		}
	}
	switch {
	case errors.As(inner, &ue):
		reason += " (" + ue.Err.Error() + ")"
	case inner != nil && pe != nil:
		reason += " (" + inner.Error() + ")"
	}
	reason = booking.RedactSecretsOf(reason, url)
	return booking.Errorf(booking.EInvalid, "That is not a PostgreSQL address (%s): %s.",
		booking.CleanLine(booking.RedactDSN(url), 120), booking.CleanLine(reason, 200))
}
