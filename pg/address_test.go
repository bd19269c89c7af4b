package pg

import (
	"context"
	"strings"
	"testing"

	"boxoffice/booking"
)

// An address the driver cannot read is refused in words that keep its
// reason and never its password, whatever the spelling (pgx's own message
// hides it on a best-effort basis only, and the error it wraps may quote
// the address whole).
func TestOpen_ErrAddressHidesPassword(t *testing.T) {
	const pw = "Sekr1tPw"
	for _, c := range []struct{ url, says string }{
		{"postgres://ann:" + pw + "@127.0.0.1:port/cinema", "invalid port"},
		{"postgres://ann:" + pw + "%zz@127.0.0.1/cinema", "failed to parse as URL"},
		{"postgres://ann:" + pw + "@[::1/cinema", "failed to parse as URL"},
		{"host=127.0.0.1 password='" + pw + " port=x", "failed to parse as keyword/value"},
		{"host=127.0.0.1 password=" + pw + " port=x", "invalid port"},
	} {
		_, err := Open(context.Background(), c.url, Options{})
		msg := booking.ErrorMessage(err)
		if booking.ErrorCode(err) != booking.EInvalid || strings.Contains(err.Error(), pw) || !strings.Contains(msg, c.says) || !strings.Contains(msg, "****") {
			t.Errorf("Open(%q): %s %q", c.url, booking.ErrorCode(err), msg)
		}
	}
}
