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

func TestStore_HoldLifecycle(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
