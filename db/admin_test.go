package db_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"

	"golang.org/x/crypto/ssh"
)

func newAuthorizedKey(t *testing.T) ([]byte, ssh.PublicKey) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return ssh.MarshalAuthorizedKey(key), key
}

func TestStore_Keys(t *testing.T) {
	ctx := context.Background()
	mgr := booking.Actor{Name: "mgr", Role: booking.RoleManager}
	s, _ := dbtest.MustOpen(t, db.Options{})
	staffLine, staffKey := newAuthorizedKey(t)
	termLine, termKey := newAuthorizedKey(t)
	_, strangerKey := newAuthorizedKey(t)

	t.Run("OK", func(t *testing.T) {
		if _, err := s.AddStaff(ctx, mgr, "Maria", booking.RoleClerk, "4321", staffLine); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddTerminal(ctx, mgr, "till-1", termLine); err != nil {
			t.Fatal(err)
		}
		st, term, err := s.IdentifyKey(ctx, staffKey.Marshal())
		if err != nil || st == nil || st.Name != "Maria" || term != nil {
			t.Fatalf("staff key: %+v %+v %v", st, term, err)
		}
		st, term, err = s.IdentifyKey(ctx, termKey.Marshal())
		if err != nil || st != nil || term == nil || term.Name != "till-1" {
			t.Fatalf("terminal key: %+v %+v %v", st, term, err)
		}
		list, _ := s.ListStaff(ctx, mgr)
		found := false
		for _, x := range list {
			found = found || (x.Name == "Maria" && x.HasKey)
		}
		if !found {
			t.Fatalf("staff list %+v", list)
		}
	})
	t.Run("ErrUnknownAndDisabled", func(t *testing.T) {
		if _, _, err := s.IdentifyKey(ctx, strangerKey.Marshal()); booking.ErrorCode(err) != booking.ENotFound {
			t.Fatalf("unknown key: %v", err)
		}
		if err := s.DisableStaff(ctx, mgr, "Maria"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.IdentifyKey(ctx, staffKey.Marshal()); booking.ErrorCode(err) != booking.EForbidden {
			t.Fatalf("disabled staff's key: %v", err)
		}
		if _, err := s.SignIn(ctx, booking.SignInRequest{Name: "Maria", PIN: "4321"}); booking.ErrorCode(err) != booking.EForbidden {
			t.Fatalf("disabled staff's PIN: %v", err)
		}
		if err := s.RemoveTerminal(ctx, mgr, "till-1"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.IdentifyKey(ctx, termKey.Marshal()); booking.ErrorCode(err) != booking.ENotFound {
			t.Fatalf("removed terminal's key: %v", err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		cases := []struct {
			name, pin string
			key       []byte
			want      string
		}{
			{"Ann\x1b[2J", "1234", nil, booking.EInvalid},
			{"Ann", "12", nil, booking.EInvalid},
			{"Ann", "1234", []byte("not a key"), booking.EInvalid},
			{"carl", "1234", nil, booking.EConflict},      // exists already
			{"Zed", "1234", staffLine, booking.EConflict}, // key bound to Maria
		}
		for _, c := range cases {
			if _, err := s.AddStaff(ctx, mgr, c.name, booking.RoleClerk, c.pin, c.key); booking.ErrorCode(err) != c.want {
				t.Errorf("AddStaff(%q, %q): %v, want %s", c.name, c.pin, err, c.want)
			}
		}
		if _, err := s.AddStaff(ctx, clerk, "Eve", booking.RoleManager, "1234", nil); booking.ErrorCode(err) != booking.EForbidden {
			t.Fatalf("a clerk made a manager: %v", err)
		}
	})
}

func TestStore_HoldLifecycle(t *testing.T) {
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	show := firstShow(t, s)
	t.Run("Extend", func(t *testing.T) {
		h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"B3"}, Owner: "a", TTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		clock.Add(50 * time.Second)
		h2, err := s.Extend(ctx, clerk, h.ID, "a", 5*time.Minute)
		if err != nil || !h2.ExpiresAt.Equal(clock.Now().Add(5*time.Minute)) {
			t.Fatalf("extend: %+v %v", h2, err)
		}
		clock.Add(6 * time.Minute)
		if _, err := s.Extend(ctx, clerk, h.ID, "a", time.Minute); booking.ErrorCode(err) != booking.EExpired {
			t.Fatalf("extending a lapsed hold: %v", err)
		}
		if _, err := s.Extend(ctx, clerk, h.ID, "someone-else", time.Minute); booking.ErrorCode(err) != booking.ENotFound {
			t.Fatalf("extending another owner's hold: %v", err)
		}
	})
	t.Run("ReleaseOwnerAndPrefix", func(t *testing.T) {
		mustHold(t, s, show.ID, "srv1:a", "C1")
		mustHold(t, s, show.ID, "srv1:b", "C2")
		mustHold(t, s, show.ID, "srv2:c", "C3")
		if n, err := s.ReleaseOwner(ctx, "srv1:a"); err != nil || n != 1 {
			t.Fatalf("release owner: %d %v", n, err)
		}
		if n, err := s.ReleasePrefix(ctx, "srv1:"); err != nil || n != 1 {
			t.Fatalf("release prefix: %d %v", n, err)
		}
		m, _ := s.SeatMap(ctx, clerk, show.ID, "")
		for label, want := range map[string]booking.SeatState{"C1": booking.SeatFree, "C2": booking.SeatFree, "C3": booking.SeatHeldByOther} {
			seat, _ := m.Hall.SeatByLabel(label)
			if m.State(seat.ID) != want {
				t.Errorf("%s is %v, want %v", label, m.State(seat.ID), want)
			}
		}
		if _, err := s.ReleasePrefix(ctx, ""); booking.ErrorCode(err) != booking.EInvalid {
			t.Fatalf("an empty prefix would release every hold: %v", err)
		}
	})
}

func TestStore_FindBookings(t *testing.T) {
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	h := mustHold(t, s, show.ID, "a", "D7")
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "find-1", Method: booking.Card, Customer: "Ann Lee", Phone: "+44 20-7946 0018"})
	if err != nil {
		t.Fatal(err)
	}
	mustSell(t, s, show.ID, "b", "D8")
	for _, q := range []string{b.Number, b.Number[3:], "ann", "7946 0018", "0018"} {
		got, err := s.FindBookings(ctx, clerk, booking.BookingQuery{Text: q})
		if err != nil || len(got) != 1 || got[0].Number != b.Number {
			t.Errorf("find %q: %v %v", q, got, err)
		}
	}
	for _, q := range []string{"%", "_", "zzz"} {
		if got, _ := s.FindBookings(ctx, clerk, booking.BookingQuery{Text: q}); len(got) != 0 {
			t.Errorf("find %q matched %d bookings", q, len(got))
		}
	}
	if _, err := s.FindBookings(ctx, clerk, booking.BookingQuery{Text: "  "}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("empty search: %v", err)
	}
	if got, err := s.BookingByKey(ctx, clerk, "find-1"); err != nil || got.Number != b.Number {
		t.Fatalf("by key: %v %v", got, err)
	}
	if _, err := s.FindBookings(ctx, booking.Actor{Name: "dora", Role: booking.RoleDoor}, booking.BookingQuery{Text: "ann"}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("the door searched customers: %v", err)
	}
}
