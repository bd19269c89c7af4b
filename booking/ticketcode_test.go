package booking

import (
	"strings"
	"testing"
)

func TestTicketCode(t *testing.T) {
	key := TicketKey{ID: 3, Secret: []byte("a-secret-of-at-least-16-bytes")}
	old := TicketKey{ID: 2, Secret: []byte("the-previous-secret-kept-a-while")}
	t.Run("OK", func(t *testing.T) {
		for _, id := range []int64{1, 42, 1 << 40} {
			code := SignTicket(key, id)
			if strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
				t.Fatalf("code %q is not QR alphanumeric", code)
			}
			got, err := VerifyTicket([]TicketKey{old, key}, strings.ToLower(code))
			if err != nil || got != id {
				t.Fatalf("verify %d: %d %v", id, got, err)
			}
		}
		// A ticket signed with the previous key still verifies while it is kept.
		if got, err := VerifyTicket([]TicketKey{key, old}, SignTicket(old, 7)); err != nil || got != 7 {
			t.Fatalf("old key: %d %v", got, err)
		}
	})
	t.Run("ErrTampered", func(t *testing.T) {
		code := SignTicket(key, 42)
		for i := range code {
			b := []byte(code)
			if b[i] == 'A' {
				b[i] = 'B'
			} else {
				b[i] = 'A'
			}
			if _, err := VerifyTicket([]TicketKey{key}, string(b)); ErrorCode(err) != ENotFound {
				t.Fatalf("changed char %d: %v", i, err)
			}
		}
		other := TicketKey{ID: 3, Secret: []byte("someone-elses-secret-0123456789")}
		if _, err := VerifyTicket([]TicketKey{key}, SignTicket(other, 42)); err == nil {
			t.Fatal("a code signed with another secret verified")
		}
		for _, junk := range []string{"", "A", "!!!!", strings.Repeat("A", 200)} {
			if _, err := VerifyTicket([]TicketKey{key}, junk); ErrorCode(err) != ENotFound {
				t.Fatalf("%q: %v", junk, err)
			}
		}
	})
}

func FuzzVerifyTicket(f *testing.F) {
	key := TicketKey{ID: 1, Secret: []byte("fuzz-secret-0123456789abcdef")}
	f.Add(SignTicket(key, 5))
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, code string) {
		id, err := VerifyTicket([]TicketKey{key}, code)
		if err == nil && SignTicket(key, id) != strings.ToUpper(strings.TrimSpace(code)) {
			t.Fatalf("%q verified as ticket %d but is not its code", code, id)
		}
	})
}
